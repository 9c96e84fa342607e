package site

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/viz"
)

func builtSite(t *testing.T) (*Site, []*lessons.Lesson) {
	t.Helper()
	ls, err := lessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Build(ls)
	if err != nil {
		t.Fatal(err)
	}
	return s, ls
}

// voidElements have no end tag.
var voidElements = []string{"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

// TestPagesAreValidHTML parses every page with golang.org/x/net/html and
// walks its tokens: every element is closed in order, ids are unique,
// every in-page link has its target, every link to a page and every
// figure a page shows is in the site, and every image says what it shows.
func TestPagesAreValidHTML(t *testing.T) {
	s, ls := builtSite(t)
	pages := map[string]bool{}
	for _, p := range s.Pages {
		pages[p.Path] = true
	}
	figures := map[string]Figure{}
	for _, f := range s.Figures {
		if _, dup := figures[f.Path]; dup {
			t.Errorf("figure %s is planned twice", f.Path)
		}
		figures[f.Path] = f
	}
	if len(s.Pages) != len(ls)+1 || s.Pages[0].Path != "index.html" {
		t.Fatalf("pages %d, want the index and %d lessons", len(s.Pages), len(ls))
	}
	shown := map[string]bool{}
	for _, p := range s.Pages {
		if !bytes.HasPrefix(p.HTML, []byte("<!DOCTYPE html>\n<html lang=\"en\">")) {
			t.Errorf("%s: no doctype and language", p.Path)
		}
		if _, err := html.Parse(bytes.NewReader(p.HTML)); err != nil {
			t.Fatalf("%s: %v", p.Path, err)
		}
		ids, anchors, links, imgs := walk(t, p.Path, p.HTML)
		for _, a := range anchors {
			if !ids[a] {
				t.Errorf("%s: link to #%s, which is not on the page", p.Path, a)
			}
		}
		for _, l := range links {
			if !pages[l] {
				t.Errorf("%s: link to %s, which the site does not have", p.Path, l)
			}
		}
		for _, src := range imgs {
			if _, ok := figures[src]; !ok {
				t.Errorf("%s: <img src=%q>, a figure the site does not draw", p.Path, src)
			}
			shown[src] = true
		}
	}
	for f := range figures {
		if !shown[f] {
			t.Errorf("figure %s is drawn but no page shows it", f)
		}
	}
}

// walk checks one page's structure and returns its ids, its in-page
// anchors, the pages it links to and its images' sources.
func walk(t *testing.T, name string, page []byte) (ids map[string]bool, anchors, links, imgs []string) {
	t.Helper()
	ids = map[string]bool{}
	z := html.NewTokenizer(bytes.NewReader(page))
	var open []string
	for {
		tt := z.Next()
		tok := z.Token()
		switch tt {
		case html.ErrorToken:
			if len(open) > 0 {
				t.Errorf("%s: elements left open at the end: %v", name, open)
			}
			return
		case html.StartTagToken, html.SelfClosingTagToken:
			attrs := map[string]string{}
			for _, a := range tok.Attr {
				attrs[a.Key] = a.Val
			}
			if id, ok := attrs["id"]; ok {
				if ids[id] {
					t.Errorf("%s: id %q twice", name, id)
				}
				ids[id] = true
			}
			if href, ok := attrs["href"]; ok {
				if a, ok := strings.CutPrefix(href, "#"); ok {
					anchors = append(anchors, a)
				} else {
					links = append(links, href)
				}
			}
			if tok.Data == "img" {
				for _, k := range []string{"src", "alt", "width", "height"} {
					if attrs[k] == "" {
						t.Errorf("%s: an <img> without %s: %v", name, k, tok)
					}
				}
				imgs = append(imgs, attrs["src"])
			}
			if tt == html.StartTagToken && !slices.Contains(voidElements, tok.Data) {
				open = append(open, tok.Data)
			}
		case html.EndTagToken:
			if len(open) == 0 || open[len(open)-1] != tok.Data {
				t.Errorf("%s: </%s> closes %v", name, tok.Data, open)
				return
			}
			open = open[:len(open)-1]
		}
	}
}

// TestPagesReadAsLessons checks what a learner reads: every step's
// title and text in order, its figure, and every question with its
// prompt, its answer and explanation behind a reveal, and its wrong-answer
// feedback, all computed from the scene.
func TestPagesReadAsLessons(t *testing.T) {
	s, ls := builtSite(t)
	for i, l := range ls {
		// Compare text, not escapes (html/template writes + as &#43;).
		page := html.UnescapeString(string(s.Pages[i+1].HTML))
		last := 0
		for _, st := range l.Steps {
			head := fmt.Sprintf("<h2>%d. %s</h2>", st.N, st.Title)
			at := strings.Index(page, head)
			if at < last {
				t.Fatalf("%s: step %d's heading %q missing or out of order", l.File, st.N, head)
			}
			last = at
			text, _ := lessons.TextHTML(st.Text)
			if !strings.Contains(page, html.UnescapeString(text)) {
				t.Errorf("%s: step %d's text is not on the page", l.File, st.N)
			}
			if !strings.Contains(page, fmt.Sprintf(`src="%s/step-%02d.svg"`, l.ID, st.N)) {
				t.Errorf("%s: step %d has no figure", l.File, st.N)
			}
			q := st.Question
			if q == nil {
				continue
			}
			sc, _ := st.Build()
			a, err := q.Answer(sc)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{
				"<strong>Predict.</strong> " + q.Prompt(sc),
				"<summary>Reveal the answer</summary>",
				"Answer: <strong>" + a.Text + "</strong>",
				"<p>" + a.Explain + "</p>",
				fmt.Sprintf(`src="%s/step-%02d-answer.svg"`, l.ID, st.N),
			} {
				if !strings.Contains(page, want) {
					t.Errorf("%s: step %d: the page lacks %q", l.File, st.N, want)
				}
			}
			// The question comes before its figure, drawn with the
			// answers hidden; the animation's sweep (it would pass the
			// cell asked about) only behind the reveal.
			sec := page[at:]
			if end := strings.Index(sec, "</section>"); end >= 0 {
				sec = sec[:end]
			}
			prompt := strings.Index(sec, "<strong>Predict.</strong>")
			fig := strings.Index(sec, fmt.Sprintf(`src="%s/step-%02d.svg"`, l.ID, st.N))
			reveal := strings.Index(sec, "<summary>Reveal the answer</summary>")
			if prompt < 0 || fig < prompt || reveal < fig {
				t.Errorf("%s: step %d: the question (at %d) must come before its figure (at %d), and the figure before the reveal (at %d)", l.File, st.N, prompt, fig, reveal)
			}
			if !strings.Contains(sec[fig:], " --hide-answers -o ") || strings.Contains(sec[reveal:], " --hide-answers ") {
				t.Errorf("%s: step %d: the question's figure is not drawn with --hide-answers, or the reveal is", l.File, st.N)
			}
			if gif := strings.Index(sec, ".gif\""); gif >= 0 && gif < reveal {
				t.Errorf("%s: step %d: the animation is shown before the reveal", l.File, st.N)
			}
			for k := range q.WrongFor {
				if !strings.Contains(page, "<dt>"+k+"</dt>") {
					t.Errorf("%s: step %d: the feedback for %s is not on the page", l.File, st.N, k)
				}
			}
		}
	}
}

func TestFigures(t *testing.T) {
	s, ls := builtSite(t)
	asked := map[string]bool{} // the figures of the steps that ask a question
	for _, l := range ls {
		for _, st := range l.Steps {
			if st.Question != nil {
				asked[fmt.Sprintf("%s/step-%02d.svg", l.ID, st.N)] = true
			}
		}
	}
	gifs := 0
	for _, f := range s.Figures {
		sc, err := viz.Build(f.Spec)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		switch f.Format {
		case "svg":
			if f.Size != lessons.Size || path.Ext(f.Path) != ".svg" {
				t.Errorf("%s: %v at %v", f.Path, f.Format, f.Size)
			}
		case "gif":
			gifs++
			if f.Spec.Step != 0 || sc.Steps < 2 || sc.Steps > MaxGIFSteps || f.Size != GIFSize {
				t.Errorf("%s: a GIF of %d steps from step %d at %v", f.Path, sc.Steps, f.Spec.Step, f.Size)
			}
		default:
			t.Errorf("%s: format %q", f.Path, f.Format)
		}
		if f.HideAnswers != (f.Format == "svg" && asked[f.Path]) {
			t.Errorf("%s: HideAnswers %v: a question's step figure, and only it, hides the answers", f.Path, f.HideAnswers)
		}
		if !strings.HasPrefix(f.Command(), "stridelab draw "+f.Spec.Scene+" ") || !strings.HasSuffix(f.Command(), " -o "+path.Base(f.Path)) {
			t.Errorf("%s: command %q", f.Path, f.Command())
		}
	}
	if gifs < 10 {
		t.Errorf("only %d animations", gifs)
	}
}
