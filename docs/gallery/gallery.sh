#!/usr/bin/env bash
# The gallery: the worked examples of the source documents (../shared/sources),
# drawn by `stridelab draw` as SVG (one step) and GIF (the whole sweep).
# Usage: docs/gallery/gallery.sh BIN OUTDIR   (make gallery runs it)
set -euo pipefail
bin=$1 out=$2
mkdir -p "$out"
# name | scene and flags | the step the SVG shows | gif (yes/no)
while IFS='|' read -r name args step gif; do
  [ -z "$name" ] && continue
  eval "set -- $args"
  "$bin" draw "$@" --step "$step" -o "$out/$name.svg" >/dev/null
  if [ "$gif" = yes ]; then
    "$bin" draw "$@" --width 960 --height 540 -o "$out/$name.gif" >/dev/null
  fi
  echo "gallery: $name"
done <<'LIST'
expand-new-size|expand --shape 4,3,1,2 --size 4,3,5,2|7|no
expand-new-dims|expand --shape 1,4,3,5 --size 2,1,2,4,3,5|37|no
expand-output-stride|expand --shape 4,1,3,5 --size 2,1,4,4,3,5|20|no
expand-small|expand --shape 4,1,3 --size 4,2,3|5|yes
expand-readers|expand --shape 3,1 --size 2,3,4 --offset 1|6|no
repeat-1d|repeat --shape 5 --times 3|7|yes
repeat-3d|repeat --shape 3,1,5 --times 5,3,1|12|no
repeat-new-dim|repeat --shape 3,1,5 --times 2,5,3,1|30|no
repeat-stage-expand|repeat --shape 3,1,5 --times 5,3,1|1|no
view-interval-point|view --shape 4,5 --index '1:4:2, 2'|1|no
view-all-newaxis|view --shape 3,4 --index ':, None, 1:3'|2|yes
view-permute|view --shape 2,3,4 --permute 2,0,1|5|no
view-reshape-copy|view --shape 4,5 --permute 1,0 --reshape 20|3|no
reduce-grad-x|reduce --shape 2,2,2,2,2 --to 2,2,1,2,2|5|no
reduce-grad-y|reduce --shape 2,2,2,2,2 --to 1,1,2,2,1|3|yes
binary-broadcast|binary --shape 2,2,1,2,2 --b-shape 1,1,2,2,1 --op add|9|no
placement-split0|placement --shape 4,4 --sbp 'S(0)' --placement 4|0|no
placement-split1|placement --shape 4,4 --sbp 'S(1)' --placement 4|0|no
placement-broadcast|placement --shape 4,4 --sbp B --placement 4|0|no
placement-partial|placement --shape 4,4 --sbp P --placement 4|0|no
placement-uneven|placement --shape 25,33 --sbp 'S(0)' --placement 4|0|yes
placement-mesh|placement --shape 8,6 --sbp '(S(0), P)' --placement '[[0,1],[2,3]]'|0|no
plan-expand-s3|plan --op expand --shape 4,3,1,2 --size 2,4,3,4,2 --sbp 'S(3)' --placement 2|0|yes
plan-matmul|plan --op matmul --shape 4,6 --b-shape 6,8 --sbp 'S(0)' --b-sbp B --placement 2|0|no
boxing-all-to-all|boxing --shape 25,33 --from 'S(0)' --to 'S(1)' --placement 4|1|yes
boxing-all-reduce|boxing --shape 8,8 --from P --to B --placement 4|1|no
boxing-mesh|boxing --shape 16,32 --from '(S(0), S(1))' --to '(B, B)' --placement '[[0,1],[2,3]]'|2|yes
LIST
