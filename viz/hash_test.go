package viz

import (
	"maps"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestParseHash: the three links, old names, the options, and a
// spec that comes back as the same hash.
func TestParseHash(t *testing.T) {
	for _, c := range []struct {
		hash   string
		scene  string
		values map[string]string
		step   int
		opts   HashOptions
		canon  string // the hash Spec.HashWith writes back; "" when hash itself
	}{
		{"#/expand?shape=4,1,3&size=4,2,3&step=5", "expand", map[string]string{"shape": "4,1,3", "size": "4,2,3"}, 5, HashOptions{Version: 1}, ""},
		{"#/boxing?shape=25,33&from=S(0)&to=S(1)&placement=4", "boxing", map[string]string{"shape": "25,33", "from": "S(0)", "to": "S(1)", "placement": "4"}, 0, HashOptions{Version: 1}, ""},
		{"#/placement?shape=8,6&sbp=S(0),P&placement=[[0,1],[2,3]]", "placement", map[string]string{"shape": "8,6", "sbp": "S(0),P", "placement": "[[0,1],[2,3]]"}, 0, HashOptions{Version: 1}, ""},
		// Without '#' or '/', percent-escaped as a browser may, '+' as a space, an old name, an unknown key, embed.
		{"/binary?shape=2%2C3&bShape=3&op=add&colour=red&embed=1", "binary", map[string]string{"shape": "2,3", "b-shape": "3", "op": "add"}, 0, HashOptions{Version: 1, Embed: true}, "#/binary?shape=2,3&b-shape=3&op=add&embed=1"},
		{"view?shape=4,5&index=1:4:2,+2&lesson=views-1&v=1", "view", map[string]string{"shape": "4,5", "index": "1:4:2, 2"}, 0, HashOptions{Version: 1, Lesson: "views-1"}, "#/view?shape=4,5&index=1:4:2,%202&lesson=views-1"},
		{"#/reduce?shape=2,3&to=1,3&op=sum&step=0&embed=0", "reduce", map[string]string{"shape": "2,3", "to": "1,3", "op": "sum"}, 0, HashOptions{Version: 1}, "#/reduce?shape=2,3&to=1,3&op=sum"},
	} {
		spec, opts, err := ParseHash(c.hash)
		if err != nil {
			t.Errorf("ParseHash(%q): %v", c.hash, err)
			continue
		}
		if spec.Scene != c.scene || !maps.Equal(spec.Values, c.values) || spec.Step != c.step || opts != c.opts {
			t.Errorf("ParseHash(%q) = %v step %d, %+v; want %s %v step %d, %+v", c.hash, spec.Values, spec.Step, opts, c.scene, c.values, c.step, c.opts)
		}
		want := c.canon
		if want == "" {
			want = c.hash
		}
		if got := spec.HashWith(opts); got != want {
			t.Errorf("ParseHash(%q).HashWith = %q, want %q", c.hash, got, want)
		}
	}
}

// TestParseHashErrors: a bad link is one line naming what is wrong.
func TestParseHashErrors(t *testing.T) {
	for _, c := range []struct{ hash, want string }{
		{"", "want #/SCENE?KEY=VALUE"},
		{"#/", "want #/SCENE?KEY=VALUE"},
		{"#/spiral?shape=2", `unknown scene "spiral"`},
		{"#/expand?shape=4,1,3", "needs --size"},
		{"#/expand?shape=4,1,3&size=4,2,3&times=2", "takes no --times"},
		{"#/expand?shape=4,1,3&size=4,2,3&step=five", `step "five" is not a whole number`},
		{"#/expand?shape=4,1,3&size=4,2,3&step=-1", "steps count from 0"},
		{"#/expand?shape=4,1,3&size=4%2", "invalid URL escape"},
		{"#/expand?shape=4,1,3&size=4,2,3&v=2", "version 2 is newer than this build reads (1)"},
		{"#/expand?shape=4,1,3&size=4,2,3&v=0", `version "0" is not a version`},
	} {
		_, _, err := ParseHash(c.hash)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseHash(%q): %v, want one line with %q", c.hash, err, c.want)
		}
	}
}

// TestGalleryHashes: every spec of docs/gallery/gallery.sh comes back
// from its hash.
func TestGalleryHashes(t *testing.T) {
	script, err := os.ReadFile("../docs/gallery/gallery.sh")
	if err != nil {
		t.Fatal(err)
	}
	_, list, _ := strings.Cut(string(script), "<<'LIST'\n")
	list, _, _ = strings.Cut(list, "\nLIST")
	n := 0
	for line := range strings.Lines(list) {
		fields := strings.Split(strings.TrimSpace(line), "|")
		if len(fields) != 4 && len(fields) != 5 {
			t.Fatalf("gallery line %q: want name|args|step|gif or name|args|step|gif|caption", line)
		}
		args := shellWords(fields[1])
		values := map[string]string{}
		for i := 1; i+1 < len(args); i += 2 {
			values[strings.TrimPrefix(args[i], "--")] = args[i+1]
		}
		step, _ := strconv.Atoi(fields[2])
		spec, err := ParseSpec(args[0], values, step)
		if err != nil {
			t.Fatalf("gallery %s: %v", fields[0], err)
		}
		checkHashRoundTrip(t, spec)
		n++
	}
	if n < 30 {
		t.Errorf("read %d gallery specs; the list has more than 30", n)
	}
}

// shellWords splits a gallery line's arguments: words, 'quoted words'.
func shellWords(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '\'' {
			w, rest, _ := strings.Cut(s[1:], "'")
			out, s = append(out, w), rest
			continue
		}
		w, rest, _ := strings.Cut(s, " ")
		out, s = append(out, w), rest
	}
	return out
}

func checkHashRoundTrip(t *testing.T, spec Spec) {
	t.Helper()
	h := spec.Hash()
	got, opts, err := ParseHash(h)
	if err != nil {
		t.Fatalf("%s: ParseHash(%q): %v", spec, h, err)
	}
	if got.Scene != spec.Scene || got.Step != spec.Step || !maps.Equal(got.Values, spec.Values) || opts != (HashOptions{Version: 1}) {
		t.Fatalf("%s: ParseHash(%q) = %s, %+v", spec, h, got, opts)
	}
	if strings.ContainsAny(h[1:], " #\n") || strings.Count(h, "?") != 1 {
		t.Fatalf("%s: hash %q holds a character a URL cannot", spec, h)
	}
}

// FuzzParseHash: no hash panics, and a hash that parses is written back
// as one that parses to the same spec.
func FuzzParseHash(f *testing.F) {
	f.Add("#/expand?shape=4,1,3&size=4,2,3&step=5")
	f.Add("#/placement?shape=8,6&sbp=S(0),P&placement=[[0,1],[2,3]]&embed=1")
	f.Add("#/view?shape=4,5&index=1:4:2,%202&lesson=a%26b")
	f.Fuzz(func(t *testing.T, h string) {
		spec, _, err := ParseHash(h)
		if err == nil {
			checkHashRoundTrip(t, spec)
		}
	})
}

// FuzzHashRoundTrip: any values a spec accepts, whatever bytes they hold,
// come back from its hash.
func FuzzHashRoundTrip(f *testing.F) {
	f.Add(uint8(0), "4,1,3", "4,2,3", 5)
	f.Add(uint8(7), "25,33", "S(0)&to=B#x%", 1)
	f.Fuzz(func(t *testing.T, scene uint8, a, b string, step int) {
		name := Scenes[int(scene)%len(Scenes)]
		kind, _ := KindOf(name)
		values := map[string]string{}
		for i, k := range kind.Required {
			values[k] = []string{a, b}[i%2] + strconv.Itoa(i)
		}
		spec, err := ParseSpec(name, values, step)
		if err == nil {
			checkHashRoundTrip(t, spec)
		}
	})
}
