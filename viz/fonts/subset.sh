#!/bin/sh
# subset.sh regenerates the three fonts beside it (Go-Regular.ttf,
# Go-Bold.ttf, Go-Mono.ttf) from the Go fonts of golang.org/x/image, the
# version go.mod names (font/gofont/ttfs): run it from anywhere after
# changing that version or adding text in a script the fonts do not hold.
# It needs Go and pyftsubset (Debian's fonttools).
#
# Each font keeps the glyphs stridelab can draw, by their code points:
#
#   - ASCII, Latin-1, Latin Extended-A, Greek, General Punctuation,
#     superscripts and subscripts, arrows, mathematical operators and box
#     drawing, whatever a user types among them;
#   - every character of the repository's Go files, Markdown (the lessons
#     and docs) and gallery (docs/gallery/gallery.sh), so every label,
#     lesson and example draws as it did with the whole font.
#
# Everything else of the Go fonts (Cyrillic, Latin Extended-B, IPA, the
# block and geometric shapes…) is left out, and so are the TrueType
# hinting programs: stridelab draws unhinted (font.HintingNone), so they
# were never run. The outlines and metrics of the glyphs kept are the
# originals, so every picture is the same to the byte. A character
# outside the subset draws as the font's .notdef box (its outline is
# kept), as a character outside the whole font always did.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=$(cd "$root" && go list -m -f '{{.Dir}}' golang.org/x/image)/font/gofont/ttfs
text=$(mktemp)
trap 'rm -f "$text"' EXIT
(cd "$root" && git ls-files -z '*.go' '*.md' docs/gallery/gallery.sh | xargs -0 cat) > "$text"
ranges=U+0020-007E,U+00A0-017F,U+0370-03FF,U+2000-206F,U+2070-209F,U+2190-21FF,U+2200-22FF,U+2500-257F
for f in Go-Regular Go-Bold Go-Mono; do
	pyftsubset "$src/$f.ttf" --output-file="$here/$f.ttf" \
		--unicodes="$ranges" --text-file="$text" \
		--no-hinting --notdef-outline --layout-features='*'
done
cat "$src/README" > "$here/LICENSE"
