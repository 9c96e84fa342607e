package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// svgElements parses doc with encoding/xml and counts its elements by
// name, collecting the character data of each <text>.
func svgElements(t *testing.T, doc []byte) (count map[string]int, texts []string) {
	t.Helper()
	count = map[string]int{}
	d := xml.NewDecoder(bytes.NewReader(doc))
	var in string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG does not parse: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			count[tok.Name.Local]++
			if tok.Name.Local == "svg" && tok.Name.Space != "http://www.w3.org/2000/svg" {
				t.Errorf("svg element in namespace %q", tok.Name.Space)
			}
			if tok.Name.Local == "text" {
				in = ""
			}
		case xml.CharData:
			in += string(tok)
		case xml.EndElement:
			if tok.Name.Local == "text" {
				texts = append(texts, in)
			}
		}
	}
	return count, texts
}

func TestSVGElements(t *testing.T) {
	var b bytes.Buffer
	if err := SVG(&b, testFrame()); err != nil {
		t.Fatal(err)
	}
	count, texts := svgElements(t, b.Bytes())
	// The test frame: a background, 12 cells (one hatched: fill, hatch,
	// outline) and 4 more rects (one hatched without fill: hatch and
	// outline); 6 lines (3 with arrows, drawn as a line and a polygon);
	// 3 + 12 + 1 texts; one hatch colour.
	want := map[string]int{"svg": 1, "defs": 1, "pattern": 1, "path": 1,
		"rect": 1 + 11 + 3 + 3 + 2, "line": 6, "polygon": 3, "text": 16}
	for name, n := range want {
		if count[name] != n {
			t.Errorf("%d <%s> elements, want %d", count[name], name, n)
		}
	}
	if texts[0] != "Regular start <&>" {
		t.Errorf("first text reads %q, want %q", texts[0], "Regular start <&>")
	}
	if !bytes.Contains(b.Bytes(), []byte("Regular start &lt;&amp;&gt;")) {
		t.Errorf("the SVG does not escape <&> as &lt;&amp;&gt;")
	}
	for _, want := range []string{`width="400" height="280" viewBox="0 0 400 280"`, `text-anchor="middle"`, `text-anchor="end"`,
		`font-family="Go Mono, monospace"`, `font-weight="bold"`, `stroke-dasharray="4 3"`, `fill-opacity="0.38"`,
		`fill="url(#hatch0)"`, `patternUnits="userSpaceOnUse"`} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("the SVG lacks %s", want)
		}
	}
}

func TestSVGGroupsAndSpaces(t *testing.T) {
	f := viz.Frame{W: 100, H: 50, Items: []viz.Item{
		viz.Text{X: 10, Y: 10, S: "a", Size: 10, Color: dark},
		viz.Text{X: 20, Y: 10, S: "b", Size: 10, Color: dark},
		viz.Text{X: 30, Y: 10, S: "  two  spaces", Size: 10, Color: dark},
		viz.Text{X: 30, Y: 30, S: "odd\x00\xff", Size: 10, Color: red},
	}}
	var b bytes.Buffer
	if err := SVG(&b, f); err != nil {
		t.Fatal(err)
	}
	count, texts := svgElements(t, b.Bytes())
	if count["g"] != 1 || count["text"] != 4 || count["rect"] != 0 {
		t.Errorf("got %d <g>, %d <text>, %d <rect>; want 1 group of the three dark texts, 4 texts and no background for a transparent one", count["g"], count["text"], count["rect"])
	}
	if texts[2] != "  two  spaces" {
		t.Errorf("text with spaces reads %q", texts[2])
	}
}

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {-0.0, "0"}, {-0.001, "0"}, {1, "1"}, {1.5, "1.5"}, {2.25, "2.25"}, {1.005, "1"}, {1.006, "1.01"},
		{-4.25, "-4.25"}, {100, "100"}, {0.1, "0.1"}, {1 / 3.0, "0.33"}, {1280, "1280"}, {123456.789, "123456.79"},
	} {
		if got := num(tc.v); got != tc.want {
			t.Errorf("num(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestSVGErrors(t *testing.T) {
	for _, tc := range []struct {
		f    viz.Frame
		kind error
		text string
	}{
		{viz.Frame{W: 0, H: 10}, ErrSize, "render: svg: frame is 0×10"},
		{viz.Frame{W: 10, H: 10, Items: []viz.Item{viz.Rect{W: 1, H: 1}, viz.Line{X1: math.NaN()}}}, ErrNumber, "render: svg: item 1 (a Line) has X1 = NaN"},
		{viz.Frame{W: 10, H: 10, Items: []viz.Item{viz.Text{Size: math.Inf(1)}}}, ErrNumber, "item 0 (a Text) has Size = +Inf"},
	} {
		err := SVG(io.Discard, tc.f)
		if !errors.Is(err, tc.kind) || err == nil || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("SVG of %+v: got %v, want %v saying %q", tc.f, err, tc.kind, tc.text)
		}
	}
}

func TestSVGDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := SVG(&a, gridFrame(5)); err != nil {
		t.Fatal(err)
	}
	if err := SVG(&b, gridFrame(5)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two SVGs of one frame differ")
	}
	svgElements(t, a.Bytes())
}

// escapeText writes what encoding/xml's EscapeText writes, to the byte.
func TestEscapeText(t *testing.T) {
	for _, s := range []string{"", "plain", `a < b && c > "d" 'e'`, "tab\there\nnew\rcr", "ctl\x00\x01\x1f\x7f",
		"bad \xff\xfe utf-8 \xe2\x82", "\uFFFD \uFFFE \uFFFF \uE000 \U0001F600", "×→≤ Σ … ‖x‖", strings.Repeat("<&>", 3)} {
		var want bytes.Buffer
		if err := xml.EscapeText(&want, []byte(s)); err != nil {
			t.Fatal(err)
		}
		if got := escapeText(s); got != want.String() {
			t.Errorf("escapeText(%q) = %q, want %q", s, got, want.String())
		}
	}
}

func FuzzEscapeText(f *testing.F) {
	f.Add("a<b & \"c\"\t\xff")
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		xml.EscapeText(&want, []byte(s))
		if got := escapeText(s); got != want.String() {
			t.Errorf("escapeText(%q) = %q, want %q", s, got, want.String())
		}
	})
}
