//go:build !js && !linux

package tensor

// DefaultLimit is the result budget where no memory figure is read: 4 GiB.
func DefaultLimit() Limit {
	return Limit{4 << 30, "the default; --max-bytes or " + MaxBytesEnv + " sets another"}
}
