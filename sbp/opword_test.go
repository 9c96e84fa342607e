package sbp

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestOpTable: every kind of op has both Python spellings; every word
// builds and spells its op and has its usage and its place in the
// language's order; no two words share a place; and the language's
// reference (docs/reference.md) lists every word among the words it
// reserves and shows it in a statement.
func TestOpTable(t *testing.T) {
	orders := map[int]string{}
	for _, s := range Specs() {
		if s.Name == "" || s.Global == nil || s.Local == nil {
			t.Errorf("op %q: a spec needs its name and both spellings (Global %v, Local %v)", s.Name, s.Global != nil, s.Local != nil)
		}
		for _, w := range s.Words {
			if w.Word == "" || w.Usage == "" || w.Build == nil || w.Spell == nil || w.Order <= 0 {
				t.Errorf("op %q, word %q: a word needs its usage, Build, Spell and order", s.Name, w.Word)
			}
			if prev, ok := orders[w.Order]; ok && prev != w.Word {
				t.Errorf("op %q: words %q and %q share the place %d", s.Name, prev, w.Word, w.Order)
			}
			orders[w.Order] = w.Word
		}
	}
	words := Words()
	if len(words) < 23 {
		t.Fatalf("the language has %d op words: %v", len(words), words)
	}
	doc, err := os.ReadFile("../docs/reference.md")
	if err != nil {
		t.Skipf("no docs/reference.md beside the module: %v", err)
	}
	reserved := regexp.MustCompile("(?s)the words of the\\s+language \\(`([^`]*)`\\)").FindSubmatch(doc)
	if reserved == nil {
		t.Fatal("docs/reference.md no longer lists the words of the language")
	}
	listed := strings.Fields(string(reserved[1]))
	for _, w := range words {
		if !strings.Contains(" "+strings.Join(listed, " ")+" ", " "+w+" ") {
			t.Errorf("docs/reference.md's words of the language leave out %q", w)
		}
		row := regexp.MustCompile("\\| `NAME = ([a-z|\\\\]*\\|)?" + w + "(\\\\?\\|[a-z|\\\\]*)? ")
		if !row.Match(doc) {
			t.Errorf("docs/reference.md's table of statements has no row for %q", w)
		}
	}
}
