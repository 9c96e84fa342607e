package viz

import (
	"flag"
	"io"
	"maps"
	"strings"
	"testing"
)

// TestKeyFlags: every key is a flag with its help, and each kind's
// worked example, spelled as flags, reads back into the same spec.
func TestKeyFlags(t *testing.T) {
	fs := flag.NewFlagSet("draw", flag.ContinueOnError)
	KeyFlags(fs)
	for _, k := range Keys {
		if f := fs.Lookup(k.Name); f == nil || f.Usage != k.Help || f.DefValue != "" {
			t.Errorf("--%s: got %+v, want a string flag with help %q", k.Name, f, k.Help)
		}
	}
	for _, kind := range Kinds() {
		fs := flag.NewFlagSet("draw "+kind.Name, flag.ContinueOnError)
		values := KeyFlags(fs)
		var args []string
		for _, p := range kind.Example.Params() {
			args = append(args, "--"+p[0], p[1])
		}
		args = append(args, "--offset", "") // empty: as if not given
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%s %v: %v", kind.Name, args, err)
		}
		got := values()
		if !maps.Equal(got, kind.Example.Values) {
			t.Errorf("%s %v: read %v, want %v", kind.Name, args, got, kind.Example.Values)
		}
		spec, err := ParseSpec(kind.Name, got, 0)
		if err != nil || spec.String() != kind.Example.String() {
			t.Errorf("%s %v: ParseSpec gives %v, %v; want %v", kind.Name, args, spec, err, kind.Example)
		}
	}
	fs = flag.NewFlagSet("draw", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	values := KeyFlags(fs)
	if err := fs.Parse(nil); err != nil || len(values()) != 0 {
		t.Errorf("no flags: %v, %v; want no values", values(), err)
	}
}

// TestKindsUsage: one line per kind, in menu order, each its worked
// example and the optional keys left out.
func TestKindsUsage(t *testing.T) {
	lines := strings.Split(KindsUsage(), "\n")
	if len(lines) != len(Kinds()) {
		t.Fatalf("%d lines for %d kinds:\n%s", len(lines), len(Kinds()), KindsUsage())
	}
	for i, want := range []string{
		"  expand --shape '4,1,3' --size '4,2,3'  [--offset]",
		"  repeat --shape '3,1' --times '2,1,3'  [--offset]",
		"  binary --shape '3,1' --op add --b-shape '1,4'  [--offset]",
		"  reduce --shape '2,3,4' --op sum --to '1,3,1'",
	} {
		if lines[i] != want {
			t.Errorf("line %d: got %q, want %q", i, lines[i], want)
		}
	}
	for i, k := range Kinds() {
		if !strings.HasPrefix(lines[i], "  "+k.Name+" ") {
			t.Errorf("line %d: %q, want the %s scene", i, lines[i], k.Name)
		}
	}
}
