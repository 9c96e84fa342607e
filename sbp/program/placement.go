package program

import (
	"strings"

	"github.com/stridelab/stridelab/sbp"
)

// WithPlacement returns src with its placement statement replaced by
// placement p (spelled as p.Nested()), every other byte as it was: the
// same program on other devices, as a sweep over device counts asks.
// A source without a placement statement is returned with one in front.
func WithPlacement(src string, p sbp.Placement) string {
	lines := strings.Split(src, "\n")
	for _, st := range split(src) {
		if word, _ := cut(st.text); word == "placement" {
			line := lines[st.line-1]
			start := st.col - 1
			lines[st.line-1] = line[:start] + "placement " + p.Nested() + line[start+len(st.text):]
			return strings.Join(lines, "\n")
		}
	}
	return "placement " + p.Nested() + "\n" + src
}
