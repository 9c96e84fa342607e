package lessons

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/stridelab/stridelab/viz"
)

// Lesson is one lesson file: its front matter and its steps.
type Lesson struct {
	ID      string // the file's base name, as URLs name it: expand-repeat
	Title   string
	Source  string // the source document it teaches
	Summary string
	Order   int    // menus list lessons by Order
	File    string // the name errors give: lessons/expand-repeat.md
	Steps   []*Step
}

// Step is one step of a lesson: its title, its text (the Markdown subset
// of TextHTML), the scene at the state it shows, and optionally a
// question about that scene.
type Step struct {
	N        int // 1-based, as URLs and errors count
	Title    string
	Text     string
	Scene    viz.Spec
	Question *Question // nil when the step asks nothing
	Line     int       // the line of the step's heading in the file
}

// Build builds the step's scene; draw it at Scene.Step.
func (s *Step) Build() (*viz.Scene, error) { return viz.Build(s.Scene) }

// Size is the frame size lessons are drawn and checked at: a question's
// answer must be drawn at this size (the storage strips elide by width).
// Front ends may draw larger frames, never smaller ones.
var Size = viz.DefaultSize

// ErrLesson is wrapped by every error about a lesson file.
var ErrLesson = errors.New("lessons: bad lesson")

// Error is what is wrong with a lesson file, naming the file and, when
// the trouble is in a step, the step (1-based) and what part of it:
// "lessons/expand-repeat.md: step 3: scene: viz: scene expand needs --size".
type Error struct {
	File string
	Step int    // 0 when the trouble is outside the steps
	Line int    // the line in the file, 0 when unknown
	What string // "scene", "ask", "front matter", …
	Err  error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Step > 0 {
		fmt.Fprintf(&b, ": step %d", e.Step)
	}
	if e.What != "" {
		b.WriteString(": " + e.What)
	}
	b.WriteString(": " + e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() []error { return []error{ErrLesson, e.Err} }

//go:embed *.md
var files embed.FS

// Builtin returns the lessons this package carries (every lessons/*.md,
// embedded, so the wasm build and the desktop app have them), parsed as
// Load parses them but not checked: this package's tests Check every one
// of them (TestBuiltinLessonsCheck), so a front end need not plan every
// program of every lesson before it can list them (in the browser that
// took seconds before the first scene). They are parsed once, on the first
// call; later calls (the playground asks on every hash change) return the
// same lessons without parsing anything.
//
// The slice is the caller's own (a copy: sort or append to it freely),
// but the *Lesson values it points to are shared by every caller of
// Builtin and must be treated as read-only. To change a lesson, Parse
// or Load a copy of your own.
func Builtin() ([]*Lesson, error) {
	ls, err := builtin()
	return slices.Clone(ls), err
}

// builtin loads the embedded lessons once.
var builtin = sync.OnceValues(func() ([]*Lesson, error) { return load(files, ".", "lessons", false) })

// Load parses every *.md file in dir of fsys (a teacher's own folder:
// Load(os.DirFS("."), "my-lessons")), builds every step's scene and checks
// every question against it; lessons come back in Order, then ID.
func Load(fsys fs.FS, dir string) ([]*Lesson, error) { return load(fsys, dir, dir, true) }

// load parses every lesson of dir (shown is what errors call the folder)
// and, with check, Checks each.
func load(fsys fs.FS, dir, shown string, check bool) ([]*Lesson, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: no *.md files in %s", ErrLesson, shown)
	}
	var out []*Lesson
	ids := map[string]string{}
	for _, name := range names {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		l, err := Parse(path.Join(shown, path.Base(name)), src)
		if err != nil {
			return nil, err
		}
		if check {
			if err := l.Check(); err != nil {
				return nil, err
			}
		}
		if other, ok := ids[l.ID]; ok {
			return nil, &Error{File: l.File, What: "front matter", Err: fmt.Errorf("id %q is also %s's", l.ID, other)}
		}
		ids[l.ID] = l.File
		out = append(out, l)
	}
	slices.SortStableFunc(out, func(a, b *Lesson) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Find returns the lesson of id, or nil.
func Find(ls []*Lesson, id string) *Lesson {
	for _, l := range ls {
		if l.ID == id {
			return l
		}
	}
	return nil
}

// Check builds every step's scene and checks its question against it
// (see Question.Check); the first trouble comes back as an *Error.
func (l *Lesson) Check() error {
	for _, st := range l.Steps {
		sc, err := st.Build()
		if err != nil {
			return &Error{File: l.File, Step: st.N, Line: st.Line, What: "scene", Err: err}
		}
		if st.Question == nil {
			continue
		}
		if err := st.Question.Check(sc); err != nil {
			return &Error{File: l.File, Step: st.N, Line: st.Question.Line, What: "ask: " + st.Question.Spelled, Err: err}
		}
	}
	return nil
}

// Parse reads one lesson file (see the package doc for the format); name
// is what errors call it. It checks the format and the scene lines'
// flags; Check builds the scenes.
func Parse(name string, src []byte) (*Lesson, error) {
	l := &Lesson{File: name}
	bad := func(step, line int, what string, format string, args ...any) error {
		return &Error{File: name, Step: step, Line: line, What: what, Err: fmt.Errorf(format, args...)}
	}
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return nil, bad(0, 1, "front matter", "the file must start with a --- line, then id, title, source and summary, then ---")
	}
	i := 1
	seen := map[string]bool{}
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != "---"; i++ {
		ln := strings.TrimSpace(lines[i])
		if ln == "" {
			continue
		}
		k, v, ok := strings.Cut(ln, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || v == "" {
			return nil, bad(0, i+1, "front matter", "line %q is not key: value", ln)
		}
		if seen[k] {
			return nil, bad(0, i+1, "front matter", "%s is given twice", k)
		}
		seen[k] = true
		switch k {
		case "id":
			l.ID = v
		case "title":
			l.Title = v
		case "source":
			l.Source = v
		case "summary":
			l.Summary = v
		case "order":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, bad(0, i+1, "front matter", "order %q is not a whole number", v)
			}
			l.Order = n
		default:
			return nil, bad(0, i+1, "front matter", "unknown key %q (the keys are id, title, source, summary, order)", k)
		}
	}
	if i == len(lines) {
		return nil, bad(0, 1, "front matter", "no closing --- line")
	}
	for _, k := range []string{"id", "title", "source", "summary"} {
		if !seen[k] {
			return nil, bad(0, 1, "front matter", "%s is missing", k)
		}
	}
	if want := strings.TrimSuffix(path.Base(name), ".md"); l.ID != want {
		return nil, bad(0, 1, "front matter", "id %q must be the file's name, %q", l.ID, want)
	}

	var st *Step
	var text []string
	finish := func() error {
		if st == nil {
			return nil
		}
		st.Text = strings.TrimSpace(strings.Join(text, "\n"))
		text = nil
		if st.Text == "" {
			return bad(st.N, st.Line, "text", "the step says nothing: write a paragraph for the learner")
		}
		if _, err := TextHTML(st.Text); err != nil {
			return bad(st.N, st.Line, "text", "%v", err)
		}
		if st.Scene.Scene == "" {
			return bad(st.N, st.Line, "scene", "the step has no scene: line (e.g. scene: expand --shape 4,1,3 --size 4,2,3)")
		}
		if q := st.Question; q != nil {
			if err := q.checkText(); err != nil {
				return bad(st.N, q.Line, "ask: "+q.Spelled, "%v", err)
			}
		}
		l.Steps = append(l.Steps, st)
		return nil
	}
	for i++; i < len(lines); i++ {
		raw := lines[i]
		n := i + 1
		switch {
		case strings.HasPrefix(raw, "## "):
			if err := finish(); err != nil {
				return nil, err
			}
			st = &Step{N: len(l.Steps) + 1, Title: strings.TrimSpace(raw[3:]), Line: n}
			continue
		case strings.HasPrefix(raw, "#"):
			return nil, bad(len(l.Steps)+1, n, "text", "only ## headings are allowed: each starts a step")
		}
		if st == nil {
			if strings.TrimSpace(raw) != "" {
				return nil, bad(0, n, "text", "text before the first ## step heading")
			}
			continue
		}
		key, val, isDirective := directive(raw)
		if !isDirective {
			text = append(text, raw)
			continue
		}
		switch {
		case key == "scene":
			if st.Scene.Scene != "" {
				return nil, bad(st.N, n, "scene", "a step shows one scene; this one has two scene: lines")
			}
			spec, err := viz.ParseCommand(val)
			if err != nil {
				return nil, bad(st.N, n, "scene", "%v", err)
			}
			st.Scene = spec
		case key == "ask":
			if st.Question != nil {
				return nil, bad(st.N, n, "ask", "a step asks one question; this one has two ask: lines")
			}
			q, err := ParseQuestion(val)
			if err != nil {
				return nil, bad(st.N, n, "ask", "%v", err)
			}
			q.Line = n
			st.Question = q
		default: // right, wrong, wrong TARGET
			if st.Question == nil {
				return nil, bad(st.N, n, key, "comes before any ask: line")
			}
			if err := st.Question.addFeedback(key, val); err != nil {
				return nil, bad(st.N, n, key, "%v", err)
			}
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(l.Steps) == 0 {
		return nil, bad(0, 0, "steps", "the lesson has no ## steps")
	}
	return l, nil
}

// directive splits a line "key: value" whose key is scene, ask, right,
// wrong or "wrong TARGET" (at the start of the line); other lines are text.
func directive(line string) (key, val string, ok bool) {
	k, v, found := strings.Cut(line, ":")
	if !found {
		return "", "", false
	}
	// A target such as out[1,2] or x[5] may hold no colon, but "wrong
	// [0:2]" could: cut after the target's closing bracket.
	if strings.HasPrefix(k, "wrong ") && strings.Contains(line, "[") {
		if end := strings.Index(line, "]"); end > 0 && end+1 < len(line) && line[end+1] == ':' {
			k, v = line[:end+1], line[end+2:]
		}
	}
	switch {
	case k == "scene" || k == "ask" || k == "right" || k == "wrong":
	case strings.HasPrefix(k, "wrong ") && !strings.ContainsAny(k, "*`"):
	default:
		return "", "", false
	}
	return k, strings.TrimSpace(v), true
}
