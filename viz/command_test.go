package viz

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"expand --shape 4,1,3 --size 4,2,3 --step 5", "expand --shape '4,1,3' --size '4,2,3' --step 5"},
		{"expand --shape=4,1,3 --size=4,2,3", "expand --shape '4,1,3' --size '4,2,3'"},
		{"  expand\t--shape 4 --size 2,4 ", "expand --shape 4 --size '2,4'"},
		{`placement --shape 8,6 --sbp '(S(0), P)' --placement "[[0,1],[2,3]]"`, "placement --shape '8,6' --sbp '(S(0), P)' --placement '[[0,1],[2,3]]'"},
		{"view --shape 4,5 --index '1:4:2, 2'", "view --shape '4,5' --index '1:4:2, 2'"},
		{"view --shape 4,5 --index 1:4:2,' '2", "view --shape '4,5' --index '1:4:2, 2'"},
	} {
		s, err := ParseCommand(c.line)
		if err != nil {
			t.Fatalf("ParseCommand(%q): %v", c.line, err)
		}
		if s.String() != c.want {
			t.Errorf("ParseCommand(%q) = %q, want %q", c.line, s.String(), c.want)
		}
	}
}

func TestParseCommandErrors(t *testing.T) {
	for _, c := range []struct{ line, want, field string }{
		{"", "viz: name a scene: expand, repeat", ""},
		{"explode --shape 1", `viz: unknown scene "explode"`, ""},
		{"expand 4,1,3", `viz: "4,1,3" is not a --flag`, ""},
		{"expand --shape 1 --sise 2", "viz: unknown flag --sise", ""},
		{"expand --shape", "viz: --shape needs a value", "shape"},
		{"expand --shape 1 --shape 2", "viz: --shape is given twice", "shape"},
		{"expand --shape 1 --size 2 --step 1 --step=2", "viz: --step is given twice", "step"},
		{"expand --shape 1 --size 2 --step x", `viz: --step "x" is not a whole number`, "step"},
		{"expand --shape 1 --size 2 --step -1", "viz: step -1: steps count from 0", ""},
		{"expand --shape 1 --size 2 --times 3", "viz: scene expand takes no --times", "times"},
		{"expand --shape 1", "viz: scene expand needs --size", "size"},
		{"placement --shape 4 --sbp 'S(0) --placement 4", "viz: unclosed ' quote", ""},
	} {
		_, err := ParseCommand(c.line)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseCommand(%q) = %v, want an error containing %q", c.line, err, c.want)
			continue
		}
		var fe *FieldError
		if got := errors.As(err, &fe); got != (c.field != "") || (got && fe.Key != c.field) {
			t.Errorf("ParseCommand(%q): error %v is about field %v, want %q", c.line, err, fe, c.field)
		}
	}
}

// TestCommandRoundTrip: ParseCommand reads back what String writes, for
// every scene's worked example and for values that need quoting.
func TestCommandRoundTrip(t *testing.T) {
	specs := []Spec{
		example("view", "shape", "4,5", "index", "1:4:2, None, ::-1"),
		example("placement", "shape", "8,6", "sbp", "(S(0), P)", "placement", "[[0, 1], [2, 3]]"),
		example("plan", "op", "add", "shape", "4,1", "b-shape", "1,3", "sbp", "(S(0), B)", "b-sbp", "(B, S(1))", "placement", "[[0,1],[2,3]]"),
		example("boxing", "shape", "25,33", "from", "it's", "to", `say "S(1)"`, "placement", `'"'`),
		example("expand", "shape", "\t4 ,1", "size", "x\ny"),
	}
	for _, k := range Kinds() {
		specs = append(specs, k.Example)
		ex := k.Example
		ex.Step = 3
		specs = append(specs, ex)
	}
	for _, s := range specs {
		checkCommandRoundTrip(t, s)
	}
}

func checkCommandRoundTrip(t *testing.T, s Spec) {
	t.Helper()
	line := s.String()
	got, err := ParseCommand(line)
	if err != nil {
		t.Fatalf("%+v: ParseCommand(%q): %v", s, line, err)
	}
	if got.Scene != s.Scene || got.Step != s.Step || !maps.Equal(got.Values, s.Values) {
		t.Fatalf("ParseCommand(%q) = %+v, want %+v", line, got, s)
	}
}

// FuzzParseCommand: no line panics, and a line that parses is written
// back by String as one that parses to the same spec.
func FuzzParseCommand(f *testing.F) {
	for _, k := range Kinds() {
		f.Add(k.Example.String())
	}
	f.Add("expand --shape=4,1,3 --size 4,2,3 --step 5")
	f.Add(`boxing --shape 25,33 --from "it's" --to 'S(1)' --placement 4`)
	f.Add("view --shape 4,5 --index 1:4:2,' '2")
	f.Fuzz(func(t *testing.T, line string) {
		if s, err := ParseCommand(line); err == nil {
			checkCommandRoundTrip(t, s)
		}
	})
}
