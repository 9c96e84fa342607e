package viz

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
)

// The embedded fonts are subsets (fonts/subset.sh): every character of
// the repository's Go files, Markdown and gallery that the whole Go font
// draws, the subset draws too, so a new label in a script the subset
// left out fails here until subset.sh is run again.
func TestFontSubsetCoversSources(t *testing.T) {
	runes := map[rune]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "site" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md") && filepath.ToSlash(path) != "../docs/gallery/gallery.sh" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, r := range string(b) {
			if _, ok := runes[r]; !ok {
				runes[r] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf sfnt.Buffer
	for _, c := range []struct {
		f     Font
		whole []byte
	}{{FontRegular, goregular.TTF}, {FontBold, gobold.TTF}, {FontMono, gomono.TTF}} {
		whole, err := sfnt.Parse(c.whole)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := sfnt.Parse(FontData(c.f))
		if err != nil {
			t.Fatal(err)
		}
		for r, path := range runes {
			if x, _ := whole.GlyphIndex(&buf, r); x == 0 {
				continue // the Go font does not draw it either
			}
			if x, _ := sub.GlyphIndex(&buf, r); x == 0 {
				t.Errorf("font %d: %q (U+%04X, in %s) is not in the subset: run viz/fonts/subset.sh", c.f, r, r, path)
			}
		}
	}
}
