package lessons

import "testing"

// BenchmarkBuiltin: loading and checking every lesson, as the playground
// does once at start.
func BenchmarkBuiltin(b *testing.B) {
	for b.Loop() {
		if _, err := Builtin(); err != nil {
			b.Fatal(err)
		}
	}
}
