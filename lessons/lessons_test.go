package lessons

import "testing"

func TestBuiltinLessonsLoad(t *testing.T) {
	ls, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		t.Logf("%s: %d steps", l.File, len(l.Steps))
	}
}
