// Package site turns lessons into standalone HTML pages for a course site
// or a handout: an index, one page per lesson, every step's scene as an
// SVG figure, its sweep as a GIF animation, and every question with its
// answer behind a details/summary reveal. A question comes before its
// figure, which is drawn with the answers hidden (viz.Look.HideAnswers,
// the labels that answer it as "?"), as the playground shows it while the
// question is open; the answer, the revealed figure and the animation
// (whose sweep would show the answer) are behind the reveal. No script
// and no wasm: the pages work from a folder or a printout.
//
// Build only plans the site: it returns the pages' bytes and the figures
// they need (a scene spec, a format and a size each); the caller draws the
// figures with the same code as `stridelab draw`, so a figure is the same
// bytes the CLI writes for the command in its caption.
package site

import (
	"bytes"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/viz"
)

// Figure is one picture a page shows.
type Figure struct {
	Path   string   // relative to the site's folder: expand-repeat/step-01.svg
	Spec   viz.Spec // the scene; an SVG draws Spec.Step, a GIF every step
	Format string   // "svg" or "gif"
	Size   viz.Size
	// HideAnswers draws the figure as a lesson's open question shows it
	// (viz.Look.HideAnswers): a question's step, before its reveal.
	HideAnswers bool
}

// Command is the `stridelab draw` command line that writes the same file.
func (f Figure) Command() string {
	c := "stridelab draw " + f.Spec.String()
	if f.Size != viz.DefaultSize {
		c += fmt.Sprintf(" --width %d --height %d", f.Size.W, f.Size.H)
	}
	if f.HideAnswers {
		c += " --hide-answers"
	}
	return c + " -o " + f.Path[strings.LastIndex(f.Path, "/")+1:]
}

// Page is one HTML file.
type Page struct {
	Path string // index.html, expand-repeat.html
	HTML []byte
}

// Site is what Build plans: the pages and every figure they show.
type Site struct {
	Pages   []Page
	Figures []Figure
}

// GIFSize is the animations' frame size (the gallery's): half the pixels
// of a slide, so a page of them stays light.
var GIFSize = viz.Size{W: 960, H: 540}

// MaxGIFSteps bounds the animations: a scene with more steps than this
// (a sweep over hundreds of cells) gets no GIF, only its figure; the
// caption's command draws the whole sweep for whoever wants it.
const MaxGIFSteps = 60

// Build plans the site of ls.
func Build(ls []*lessons.Lesson) (*Site, error) {
	s := &Site{}
	var entries []indexEntry
	for i, l := range ls {
		p, err := s.lessonPage(l, ls, i)
		if err != nil {
			return nil, err
		}
		s.Pages = append(s.Pages, p)
		asked := 0
		for _, st := range l.Steps {
			if st.Question != nil {
				asked++
			}
		}
		entries = append(entries, indexEntry{Href: l.ID + ".html", Title: l.Title, Summary: l.Summary, Source: l.Source, Steps: len(l.Steps), Questions: asked})
	}
	var b bytes.Buffer
	if err := indexTmpl.Execute(&b, entries); err != nil {
		return nil, err
	}
	s.Pages = append([]Page{{Path: "index.html", HTML: b.Bytes()}}, s.Pages...)
	return s, nil
}

type indexEntry struct {
	Href, Title, Summary, Source string
	Steps, Questions             int
}

type stepView struct {
	N          int
	Anchor     string
	Title      string
	Text       template.HTML
	Figure     figView
	Animation  *figView
	Question   *questionView
	Prev, Next string
}

type figView struct {
	Src, Alt, Command string
	W, H              int
	Steps             int
}

type questionView struct {
	Prompt  string
	Answer  string
	Explain string
	Reveal  figView
	// Animation is the step's sweep, shown with the answer: it would
	// show the answer as it passes the cell asked about.
	Animation *figView
	Wrongs    []wrongView
}

type wrongView struct{ Click, Feedback string }

type lessonView struct {
	Title, Summary, Source string
	Steps                  []stepView
	Prev, Next             *indexEntry
}

func (s *Site) lessonPage(l *lessons.Lesson, all []*lessons.Lesson, at int) (Page, error) {
	v := lessonView{Title: l.Title, Summary: l.Summary, Source: l.Source}
	if at > 0 {
		v.Prev = &indexEntry{Href: all[at-1].ID + ".html", Title: all[at-1].Title}
	}
	if at+1 < len(all) {
		v.Next = &indexEntry{Href: all[at+1].ID + ".html", Title: all[at+1].Title}
	}
	gifs := map[string]figView{} // by the scene without its step
	bad := func(st *lessons.Step, err error) error {
		return &lessons.Error{File: l.File, Step: st.N, Line: st.Line, What: "site", Err: err}
	}
	for _, st := range l.Steps {
		sc, err := st.Build()
		if err != nil {
			return Page{}, bad(st, err)
		}
		text, err := lessons.TextHTML(st.Text)
		if err != nil {
			return Page{}, bad(st, err)
		}
		base := fmt.Sprintf("%s/step-%02d", l.ID, st.N)
		sv := stepView{N: st.N, Anchor: fmt.Sprintf("step-%d", st.N), Title: st.Title, Text: template.HTML(text)}
		sv.Figure = s.figure(base+".svg", sc, st.Scene, "svg", lessons.Size, st.Question != nil)
		if sc.Steps > 1 && sc.Steps <= MaxGIFSteps {
			whole := st.Scene
			whole.Step = 0
			key := whole.String()
			f, ok := gifs[key]
			if !ok {
				f = s.figure(base+".gif", sc, whole, "gif", GIFSize, false)
				gifs[key] = f
			}
			sv.Animation = &f
		}
		if q := st.Question; q != nil {
			a, err := q.Answer(sc)
			if err != nil {
				return Page{}, bad(st, err)
			}
			reveal, err := viz.Build(a.Reveal)
			if err != nil {
				return Page{}, bad(st, err)
			}
			qv := &questionView{Prompt: q.Prompt(sc), Answer: a.Text, Explain: a.Explain}
			qv.Reveal = s.figure(base+"-answer.svg", reveal, a.Reveal, "svg", lessons.Size, false)
			for _, k := range slices.Sorted(maps.Keys(q.WrongFor)) {
				t, err := viz.ParseFocus(k)
				if err != nil {
					return Page{}, bad(st, err)
				}
				_, fb := q.Judge(sc, t)
				qv.Wrongs = append(qv.Wrongs, wrongView{Click: k, Feedback: fb})
			}
			qv.Animation, sv.Animation = sv.Animation, nil
			sv.Question = qv
		}
		if st.N > 1 {
			sv.Prev = fmt.Sprintf("#step-%d", st.N-1)
		}
		if st.N < len(l.Steps) {
			sv.Next = fmt.Sprintf("#step-%d", st.N+1)
		}
		v.Steps = append(v.Steps, sv)
	}
	var b bytes.Buffer
	if err := lessonTmpl.Execute(&b, v); err != nil {
		return Page{}, err
	}
	return Page{Path: l.ID + ".html", HTML: b.Bytes()}, nil
}

// figure records a figure of sc at spec, with the answers hidden or not,
// and returns how a page shows it.
func (s *Site) figure(path string, sc *viz.Scene, spec viz.Spec, format string, size viz.Size, hide bool) figView {
	f := Figure{Path: path, Spec: spec, Format: format, Size: size, HideAnswers: hide}
	s.Figures = append(s.Figures, f)
	alt := fmt.Sprintf("%s, step %d of %d", sc.Title, spec.Step+1, sc.Steps)
	if hide {
		alt += ", the labels that would answer the question drawn as ?"
	}
	if format == "gif" {
		alt = fmt.Sprintf("%s: all %d steps, animated", sc.Title, sc.Steps)
	}
	return figView{Src: path, Alt: alt, Command: f.Command(), W: size.W, H: size.H, Steps: sc.Steps}
}

const style = `
body { font: 17px/1.55 Georgia, "Go", serif; color: #1b1b1b; background: #fdfcf8; margin: 0 auto; max-width: 60rem; padding: 1.5rem; }
h1, h2, nav, summary, figcaption, .meta { font-family: "Go", system-ui, sans-serif; }
h1 { font-size: 2rem; margin: .5rem 0; }
h2 { font-size: 1.35rem; margin-top: 3rem; border-top: 1px solid #ddd; padding-top: 1.2rem; }
code { font-family: "Go Mono", ui-monospace, monospace; font-size: .92em; background: #f1efe7; padding: 0 .2em; border-radius: 3px; }
figure { margin: 1rem 0; }
figure img { width: 100%; height: auto; border: 1px solid #ddd; background: #fff; }
figcaption { font-size: .8rem; color: #555; margin-top: .3rem; overflow-wrap: anywhere; }
.meta { color: #555; font-size: .95rem; }
.question { border-left: 4px solid #0072b2; background: #eef5fa; padding: .6rem 1rem; margin: 1rem 0; }
.question details { margin-top: .5rem; }
summary { cursor: pointer; color: #0b5c8f; font-weight: 600; }
.answer { font-size: 1.1rem; }
.wrongs dt { font-family: "Go Mono", ui-monospace, monospace; margin-top: .4rem; }
.stepnav { display: flex; justify-content: space-between; font-size: .9rem; margin-top: 1rem; }
ol.toc li, ul.lessons li { margin: .3rem 0; }
ul.lessons li { margin-bottom: 1rem; }
a { color: #0b5c8f; }
@media print { details { display: block; } details > summary { display: none; } .stepnav { display: none; } }
`

var indexTmpl = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stridelab lessons</title>
<style>` + style + `</style>
</head>
<body>
<main>
<h1>stridelab lessons</h1>
<p>Tensor views, broadcasting and sharding, one scene at a time. Each lesson follows one source document; each step shows a scene of stridelab's and, often, asks you to predict what it will show before you open the answer.</p>
<ul class="lessons">
{{range .}}<li><a href="{{.Href}}"><strong>{{.Title}}</strong></a><br>{{.Summary}}<br><span class="meta">{{.Steps}} steps, {{.Questions}} questions. Source: {{.Source}}</span></li>
{{end}}</ul>
</main>
</body>
</html>
`))

var lessonTmpl = template.Must(template.New("lesson").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · stridelab lessons</title>
<style>` + style + `</style>
</head>
<body>
<nav aria-label="lessons"><a href="index.html">All lessons</a>{{with .Prev}} · previous: <a href="{{.Href}}">{{.Title}}</a>{{end}}{{with .Next}} · next: <a href="{{.Href}}">{{.Title}}</a>{{end}}</nav>
<main>
<h1>{{.Title}}</h1>
<p>{{.Summary}}</p>
<p class="meta">Source: {{.Source}}</p>
<ol class="toc">
{{range .Steps}}<li><a href="#{{.Anchor}}">{{.Title}}</a>{{if .Question}} (question){{end}}</li>
{{end}}</ol>
{{range .Steps}}<section id="{{.Anchor}}">
<h2>{{.N}}. {{.Title}}</h2>
{{.Text}}{{with .Question}}<div class="question">
<p><strong>Predict.</strong> {{.Prompt}}</p>
{{end}}<figure>
<img src="{{.Figure.Src}}" alt="{{.Figure.Alt}}" width="{{.Figure.W}}" height="{{.Figure.H}}">
<figcaption><code>{{.Figure.Command}}</code></figcaption>
</figure>
{{with .Animation}}{{template "animation" .}}{{end}}{{with .Question}}<details>
<summary>Reveal the answer</summary>
<p class="answer">Answer: <strong>{{.Answer}}</strong></p>
<p>{{.Explain}}</p>
<figure>
<img src="{{.Reveal.Src}}" alt="{{.Reveal.Alt}}" width="{{.Reveal.W}}" height="{{.Reveal.H}}" loading="lazy">
<figcaption><code>{{.Reveal.Command}}</code></figcaption>
</figure>
{{if .Wrongs}}<p>Common wrong answers:</p>
<dl class="wrongs">
{{range .Wrongs}}<dt>{{.Click}}</dt><dd>{{.Feedback}}</dd>
{{end}}</dl>
{{end}}{{with .Animation}}{{template "animation" .}}{{end}}</details>
</div>
{{end}}<nav class="stepnav" aria-label="around step {{.N}}">{{if .Prev}}<a href="{{.Prev}}">← previous step</a>{{else}}<span></span>{{end}}{{if .Next}}<a href="{{.Next}}">next step →</a>{{end}}</nav>
</section>
{{end}}</main>
</body>
</html>
{{define "animation"}}<details>
<summary>Watch it animated ({{.Steps}} steps)</summary>
<figure>
<img src="{{.Src}}" alt="{{.Alt}}" width="{{.W}}" height="{{.H}}" loading="lazy">
<figcaption><code>{{.Command}}</code></figcaption>
</figure>
</details>
{{end}}`))
