package main

import (
	"bytes"
	"image/gif"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/lessons"
)

// TestLessonsWritesTheSite: stridelab lessons -o DIR writes the index and
// every lesson's page; every image a page shows is a file in DIR (a GIF
// that decodes, an SVG), and a figure is the same bytes `stridelab draw`
// writes for the command in its caption.
func TestLessonsWritesTheSite(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"lessons", "-o", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	ls, err := lessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != len(ls)+1 {
		t.Fatalf("pages %v, want index.html and %d lessons", pages, len(ls))
	}
	img := regexp.MustCompile(`<img src="([^"]+)"`)
	caption := regexp.MustCompile(`<img src="([^"]+\.svg)"[^>]*>\s*<figcaption><code>stridelab ([^<]+) -o [^<]+</code>`)
	compared := 0
	for _, p := range pages {
		b, _ := os.ReadFile(p)
		for _, m := range img.FindAllSubmatch(b, -1) {
			f, err := os.ReadFile(filepath.Join(dir, string(m[1])))
			if err != nil {
				t.Fatalf("%s shows %s: %v", filepath.Base(p), m[1], err)
			}
			if strings.HasSuffix(string(m[1]), ".gif") {
				if _, err := gif.DecodeAll(bytes.NewReader(f)); err != nil {
					t.Errorf("%s: %v", m[1], err)
				}
			} else if !bytes.Contains(f[:min(len(f), 200)], []byte("<svg")) {
				t.Errorf("%s: not an SVG", m[1])
			}
		}
		// The first figure of each page, drawn again by its caption's command.
		if m := caption.FindSubmatch(b); m != nil {
			args := splitCommand(strings.ReplaceAll(string(m[2]), "&#39;", "'"))
			out := filepath.Join(t.TempDir(), "again.svg")
			if code := run(append(args, "-o", out), &stdout, &stderr); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
			}
			want, _ := os.ReadFile(filepath.Join(dir, string(m[1])))
			got, _ := os.ReadFile(out)
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from what %q draws", m[1], m[2])
			}
			compared++
		}
	}
	if compared != len(ls) {
		t.Errorf("compared %d figures with draw, want one per lesson", compared)
	}
}

// splitCommand splits a caption's command line, keeping '…' whole.
func splitCommand(s string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`'([^']*)'|(\S+)`).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1]+m[2])
	}
	return out
}

func TestLessonsBadFolder(t *testing.T) {
	dir := t.TempDir()
	src := "---\nid: bad\ntitle: t\nsource: s\nsummary: s\n---\n## One\ntext\nscene: expand --shape 4,3 --size 4,5\n"
	if err := os.WriteFile(filepath.Join(dir, "bad.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"lessons", "--from", dir, "-o", out}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr.String())
	}
	if want := "bad.md: step 1: scene: tensor: expand [4 3] to [4 5]"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want it to name %q", stderr.String(), want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a bad lesson left %s behind", out)
	}
}
