package lessons

import (
	"fmt"
	"html"
	"strings"
)

// TextHTML renders a step's text, a small subset of Markdown, as HTML:
// paragraphs (separated by blank lines), lists ("- item" or "1. item",
// continued by indented lines), *emphasis*, **strong**, `inline code`
// and code blocks between ``` fences (a learner's own PyTorch, its
// indentation kept). Everything is escaped first, so text cannot inject
// markup. An unclosed `, ** or ``` is an error, so a typo does not
// swallow the rest of a step.
func TextHTML(text string) (string, error) {
	var b strings.Builder
	var para []string
	list := "" // "ul" or "ol" while a list is open
	var item []string
	flushItem := func() error {
		if item == nil {
			return nil
		}
		s, err := inline(strings.Join(item, " "))
		if err != nil {
			return err
		}
		b.WriteString("<li>" + s + "</li>\n")
		item = nil
		return nil
	}
	closeAll := func() error {
		if err := flushItem(); err != nil {
			return err
		}
		if list != "" {
			b.WriteString("</" + list + ">\n")
			list = ""
		}
		if para != nil {
			s, err := inline(strings.Join(para, " "))
			if err != nil {
				return err
			}
			b.WriteString("<p>" + s + "</p>\n")
			para = nil
		}
		return nil
	}
	var code []string // the lines of an open code block, or nil
	inCode := false
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		kind, rest := listItem(line)
		switch {
		case strings.HasPrefix(line, "```"):
			if !inCode {
				if err := closeAll(); err != nil {
					return "", err
				}
				inCode, code = true, []string{}
				continue
			}
			b.WriteString("<pre><code>" + html.EscapeString(strings.Join(code, "\n")) + "</code></pre>\n")
			inCode, code = false, nil
		case inCode:
			code = append(code, strings.TrimRight(raw, " \t\r"))
		case line == "":
			if err := closeAll(); err != nil {
				return "", err
			}
		case kind != "":
			if list != kind {
				if err := closeAll(); err != nil {
					return "", err
				}
				b.WriteString("<" + kind + ">\n")
				list = kind
			}
			if err := flushItem(); err != nil {
				return "", err
			}
			item = []string{rest}
		case list != "" && raw != line: // an indented line continues the item
			item = append(item, line)
		default:
			if list != "" {
				if err := closeAll(); err != nil {
					return "", err
				}
			}
			para = append(para, line)
		}
	}
	if inCode {
		return "", fmt.Errorf("a ``` code block is not closed")
	}
	if err := closeAll(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// listItem recognises "- x", "* x" and "12. x".
func listItem(line string) (kind, rest string) {
	if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") {
		return "ul", strings.TrimSpace(line[2:])
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && strings.HasPrefix(line[i:], ". ") {
		return "ol", strings.TrimSpace(line[i+2:])
	}
	return "", ""
}

// inline renders code spans, **strong** and *emphasis* of one block.
func inline(s string) (string, error) {
	var b strings.Builder
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		return "", fmt.Errorf("an unclosed ` in %q", s)
	}
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
			continue
		}
		t, err := emphasis(html.EscapeString(p))
		if err != nil {
			return "", fmt.Errorf("%v in %q", err, s)
		}
		b.WriteString(t)
	}
	return b.String(), nil
}

// emphasis turns **a** into <strong>a</strong> and *a* into <em>a</em>.
// A lone * between spaces (as in 2 * 3) stays a star.
func emphasis(s string) (string, error) {
	strong := strings.Split(s, "**")
	if len(strong)%2 == 0 {
		return "", fmt.Errorf("an unclosed **")
	}
	var b strings.Builder
	for i, p := range strong {
		if i%2 == 1 {
			b.WriteString("<strong>")
		}
		em := false
		for j := 0; j < len(p); j++ {
			c := p[j]
			if c != '*' {
				b.WriteByte(c)
				continue
			}
			open := !em && j+1 < len(p) && p[j+1] != ' '
			closing := em && j > 0 && p[j-1] != ' '
			switch {
			case open:
				b.WriteString("<em>")
				em = true
			case closing:
				b.WriteString("</em>")
				em = false
			default:
				b.WriteByte(c)
			}
		}
		if em {
			return "", fmt.Errorf("an unclosed *")
		}
		if i%2 == 1 {
			b.WriteString("</strong>")
		}
	}
	return b.String(), nil
}
