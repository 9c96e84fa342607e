package viz

import (
	"fmt"
	"strconv"
	"strings"
)

// The command grammar: a spec in the CLI's words, as `stridelab draw`
// takes it and a lesson's scene: line and the playground's gallery write
// it,
//
//	SCENE [--KEY VALUE | --KEY=VALUE]… [--step N]
//	expand --shape 4,1,3 --size 4,2,3 --step 5
//	placement --shape 8,6 --sbp '(S(0), P)' --placement '[[0,1],[2,3]]'
//
// Words are split on spaces and tabs; a run quoted with '…' or "…" is
// part of a word, quotes removed, as a shell reads it (no escapes). The
// keys are Keys and step. Spec.String writes the grammar and ParseCommand
// reads it: ParseCommand(s.String()) gives s back for every valid spec s.

// String spells the spec as the CLI would: expand --shape '4,1,3' --size
// '4,2,3', quoting values that hold spaces, brackets, commas or quotes.
func (s Spec) String() string {
	var b strings.Builder
	b.WriteString(s.Scene)
	for _, p := range s.Params() {
		fmt.Fprintf(&b, " --%s %s", p[0], quoteWord(p[1]))
	}
	return b.String()
}

// ParseCommand reads a spec in the command grammar above and checks it as
// ParseSpec does. An error about one flag's value (a --step that is not a
// whole number, a flag given twice or without a value) is a *FieldError
// naming that key.
func ParseCommand(line string) (Spec, error) {
	words, err := splitWords(line)
	if err != nil {
		return Spec{}, err
	}
	if len(words) == 0 {
		return Spec{}, fmt.Errorf("viz: name a scene: %s", strings.Join(Scenes, ", "))
	}
	values := map[string]string{}
	step, hasStep := 0, false
	for i := 1; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "--") {
			return Spec{}, fmt.Errorf("viz: %q is not a --flag", w)
		}
		name, val, hasVal := strings.Cut(w[2:], "=")
		if name != "step" && !isKey(name) {
			return Spec{}, fmt.Errorf("viz: unknown flag --%s", name)
		}
		if !hasVal {
			if i+1 == len(words) {
				return Spec{}, onField(name, fmt.Errorf("viz: --%s needs a value", name))
			}
			i++
			val = words[i]
		}
		_, dup := values[name]
		if dup || (name == "step" && hasStep) {
			return Spec{}, onField(name, fmt.Errorf("viz: --%s is given twice", name))
		}
		if name == "step" {
			if step, err = strconv.Atoi(val); err != nil {
				return Spec{}, onField(name, fmt.Errorf("viz: --step %q is not a whole number", val))
			}
			hasStep = true
			continue
		}
		values[name] = val
	}
	return ParseSpec(words[0], values, step)
}

// isKey reports whether name is one of Keys.
func isKey(name string) bool {
	for _, k := range Keys {
		if k.Name == name {
			return true
		}
	}
	return false
}

// splitWords splits a command line on spaces and tabs, keeping quoted
// runs ('…' or "…") whole and removing their quotes, as a shell would for
// the flags scenes take.
func splitWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("viz: unclosed %c quote", quote)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// quoteWord spells v as one word splitWords reads back: as it is when it
// holds nothing to quote, else in '…', with each run of ' in "…" beside
// the rest ("it's" is 'it'"'"'s').
func quoteWord(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t()[],:'\"") {
		return v
	}
	var b strings.Builder
	for v != "" {
		q, n := "'", strings.IndexByte(v, '\'')
		if n == 0 {
			q, n = `"`, len(v)-len(strings.TrimLeft(v, "'"))
		} else if n < 0 {
			n = len(v)
		}
		b.WriteString(q + v[:n] + q)
		v = v[n:]
	}
	if b.Len() == 0 {
		return "''"
	}
	return b.String()
}
