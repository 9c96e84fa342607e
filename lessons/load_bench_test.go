package lessons

import "testing"

// BenchmarkBuiltin: what the playground pays on every hash change once
// the lessons are loaded: a copy of the slice, nothing parsed or built.
func BenchmarkBuiltin(b *testing.B) {
	if _, err := Builtin(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Builtin(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadBuiltin: parsing every embedded lesson, what the first
// call to Builtin pays, beside checking them too (what Load pays, and
// what Builtin paid before it left the checks to the tests).
func BenchmarkLoadBuiltin(b *testing.B) {
	for _, check := range []bool{false, true} {
		b.Run(map[bool]string{false: "parse", true: "parse+check"}[check], func(b *testing.B) {
			for b.Loop() {
				if _, err := load(files, ".", "lessons", check); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBuiltinLoadsOnce: a second call to Builtin parses and builds
// nothing (its one allocation is the copy of the slice) and returns the
// same lessons in a slice of its own.
func TestBuiltinLoadsOnce(t *testing.T) {
	first, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(10, func() { Builtin() }); allocs > 1 {
		t.Errorf("Builtin allocates %v times a call after the first, want at most 1 (the slice's copy)", allocs)
	}
	second, _ := Builtin()
	if len(second) != len(first) {
		t.Fatalf("%d lessons, then %d", len(first), len(second))
	}
	for i := range first {
		if first[i] != second[i] {
			t.Errorf("lesson %d: a second call returned another *Lesson (loaded again)", i)
		}
	}
	second[0] = nil
	if third, _ := Builtin(); third[0] != first[0] {
		t.Error("changing the returned slice changed what the next caller gets")
	}
}
