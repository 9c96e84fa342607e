package cluster

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// ownFile is a calibrated file: one link with its own α and β for the
// reduce-scatter and the all-to-all, given out of ownCollectives' order.
const ownFile = `{"name": "loop4", "links": [{"alpha_s": 1e-4, "beta_bytes_per_s": 1e9,
  "collectives": {"all-to-all": {"alpha_s": 2e-4, "beta_bytes_per_s": 4e8}, "reduce-scatter": {"alpha_s": 3e-4, "beta_bytes_per_s": 2e8}}}],
  "device": {"flops_per_s": 1e9, "mem_bytes_per_s": 5e9, "mem_capacity_bytes": 6e9}}`

// TestOwnParseAndWrite: a link's own α and β per collective read back
// as written; File writes them in OwnCollectives' order and Parse reads
// that back as the same cluster; a link without them (every preset, the
// issue's file) writes no "collectives" field.
func TestOwnParseAndWrite(t *testing.T) {
	c, err := Parse("loop4.json", []byte(ownFile))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Links[0]
	for _, tc := range []struct {
		c    sbp.Collective
		want Own
		ok   bool
	}{
		{sbp.AllGather, Own{}, false},
		{sbp.ReduceScatter, Own{3e-4, 2e8}, true},
		{sbp.AllReduce, Own{}, false},
		{sbp.AllToAll, Own{2e-4, 4e8}, true},
		{sbp.LocalSlice, Own{}, false},
	} {
		if got, ok := l.Own(tc.c); got != tc.want || ok != tc.ok {
			t.Errorf("Own(%s) = %+v, %v; want %+v, %v", tc.c, got, ok, tc.want, tc.ok)
		}
	}
	if !l.HasOwn() || l.Plain().HasOwn() || l.Plain().Alpha != 1e-4 || l.Plain().Beta != 1e9 {
		t.Errorf("HasOwn %v, Plain %+v", l.HasOwn(), l.Plain())
	}
	out, err := c.File()
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	if rs, ata := strings.Index(text, `"reduce-scatter"`), strings.Index(text, `"all-to-all"`); rs < 0 || ata < rs {
		t.Errorf("File wrote the collectives out of order:\n%s", text)
	}
	back, err := Parse("again.json", out)
	if err != nil || !equal(back, c) {
		t.Fatalf("Parse(File) = %+v, %v; want %+v", back, err, c)
	}
	plain, err := Parse("two.json", []byte(issueFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(Presets(), plain) {
		for i, pl := range p.Links {
			if pl.HasOwn() {
				t.Errorf("%s: link %d has its own α and β: %+v", p.Name, i, pl.Collectives)
			}
		}
		if b, _ := p.File(); strings.Contains(string(b), "collectives") {
			t.Errorf("%s's file has a collectives field:\n%s", p.Name, b)
		}
	}
}

// TestOwnRefuses: a bad "collectives" field is one line naming the
// field, wrapping ErrInvalid; so is a bad own α or β set in Go.
func TestOwnRefuses(t *testing.T) {
	with := func(own string) string {
		return file(`"x"`, `[{"alpha_s": 1e-5, "beta_bytes_per_s": 5e10, "collectives": `+own+`}]`, okDev)
	}
	cases := []struct{ src, want string }{
		{with(`[]`), `cluster two.json: links[0].collectives: must be an object of collectives {"all-gather": {"alpha_s": …, "beta_bytes_per_s": …}, …}, got a list`},
		{with(`{"broadcast": {"alpha_s": 1, "beta_bytes_per_s": 1}}`), `cluster two.json: links[0].collectives: unknown field "broadcast"; a link's own α and β are for all-gather, reduce-scatter, all-reduce and all-to-all`},
		{with(`{"local-slice": {"alpha_s": 1, "beta_bytes_per_s": 1}}`), `cluster two.json: links[0].collectives: unknown field "local-slice"`},
		{with(`{"all-gather": 3}`), `cluster two.json: links[0].collectives.all-gather: must be {"alpha_s": …, "beta_bytes_per_s": …}, got 3`},
		{with(`{"all-gather": {"alpha_s": 1e-5}}`), `cluster two.json: links[0].collectives.all-gather.beta_bytes_per_s: missing`},
		{with(`{"all-reduce": {"alpha_s": 0, "beta_bytes_per_s": 1}}`), `cluster two.json: links[0].collectives.all-reduce.alpha_s: must be a positive number of seconds, got 0`},
		{with(`{"all-reduce": {"alpha_s": 1, "beta_bytes_per_s": "1e9"}}`), `cluster two.json: links[0].collectives.all-reduce.beta_bytes_per_s: must be a positive number of bytes per second, got the string "1e9" (write numbers without quotes)`},
		{with(`{"all-to-all": {"alpha_s": 1, "beta_bytes_per_s": 1, "steps": 3}}`), `cluster two.json: links[0].collectives.all-to-all: unknown field "steps"; a collective's own α and β are alpha_s and beta_bytes_per_s`},
	}
	for _, c := range cases {
		_, err := Parse("two.json", []byte(c.src))
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%s):\n got %v\nwant %q…", c.src, err, c.want)
		}
	}
	if c, err := Parse("two.json", []byte(with(`{}`))); err != nil || c.Links[0].HasOwn() {
		t.Errorf("an empty collectives object: %+v, %v; want a link with none", c, err)
	}

	l, err := Link{Alpha: 1e-5, Beta: 5e10}.WithOwn(sbp.AllToAll, Own{Alpha: math.NaN(), Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	bad := Cluster{Name: "nan", Links: []Link{l}, Device: Device{FLOPs: 1, MemBytes: 1, MemCapacity: 1}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "links[0].collectives.all-to-all.alpha_s: must be a positive number of seconds, got NaN") {
		t.Errorf("Validate of a NaN own α: %v", err)
	}
	if _, err := (Link{}).WithOwn(sbp.LocalPad, Own{1, 1}); err == nil || !errors.Is(err, ErrUnsupported) {
		t.Errorf("WithOwn(local-pad): %v", err)
	}
}

// TestOwnTime: a collective with its own α and β is timed by its own
// ring formula with them, every other by the link's, written out by
// hand for 2, 4 and 8 devices and a 1 MiB tensor; a boxing step says
// which α and β it used.
func TestOwnTime(t *testing.T) {
	c, err := Parse("loop4.json", []byte(ownFile))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Links[0]
	const s = 1 << 20
	for _, n := range []float64{2, 4, 8} {
		want := map[sbp.Collective]float64{
			sbp.AllGather:     (n-1)*1e-4 + (n-1)/n*s/1e9,     // the link's
			sbp.ReduceScatter: (n-1)*3e-4 + (n-1)/n*s/2e8,     // its own
			sbp.AllReduce:     2*(n-1)*1e-4 + 2*(n-1)/n*s/1e9, // the link's
			sbp.AllToAll:      (n-1)*2e-4 + (n-1)/(n*n)*s/4e8, // its own
			sbp.LocalSlice:    0,
		}
		for col, w := range want {
			got, err := l.Time(col, int(n), s)
			if err != nil || math.Abs(got-w) > 1e-12*w {
				t.Errorf("n=%g: %s: %g s, %v; want %g s", n, col, got, err, w)
			}
			plain, _ := l.Plain().Time(col, int(n), s)
			ring, _ := RingTerms(col, int(n))
			if p := ring.Time(Link{Alpha: 1e-4, Beta: 1e9}, s); math.Abs(plain-p) > 1e-12*p {
				t.Errorf("n=%g: %s on the plain link: %g s, want %g s", n, col, plain, p)
			}
		}
	}
	p, _ := sbp.ParsePlacement("4")
	from, _ := sbp.ParseNd("P")
	to, _ := sbp.ParseNd("S(0)")
	b, err := sbp.PlanBoxing(tensor.Shape{512, 512}, tensor.Float32, p, from, to)
	if err != nil {
		t.Fatal(err)
	}
	bt, err := TimeBoxing(c, b)
	if err != nil {
		t.Fatal(err)
	}
	st := bt.Steps[0]
	if want := 3*3e-4 + 0.75*s/2e8; st.Collective != sbp.ReduceScatter || st.Alpha != 3e-4 || st.Beta != 2e8 || math.Abs(bt.TimeS-want) > 1e-12*want {
		t.Errorf("P -> S(0) on 4: %+v, %g s; want a reduce-scatter at its own 300 µs and 200 MB/s, %g s", st, bt.TimeS, want)
	}
}
