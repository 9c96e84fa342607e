//go:build js

package tensor

// DefaultLimit is the result budget in a browser tab: 1 GiB. wasm32 gives
// a tab at most 4 GiB of linear memory, which a result's readback and the
// JS typed array it is copied into share with everything else.
func DefaultLimit() Limit { return Limit{1 << 30, "a browser tab's share"} }
