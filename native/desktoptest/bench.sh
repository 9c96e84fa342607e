#!/usr/bin/env bash
# make bench-desktop: the desktop app's frame rate under Xvfb (llvmpipe) at
# 1280×720, a benchmark and not a timed test. Three runs of one build:
#   hover    a 64×64 expand, labels on, the pointer on a new cell every
#            frame (each frame lights another cell: a full repaint)
#   still    the same scene, nothing moving (the painted scene is reused)
#   empty    an empty scene (the controls alone): the baseline
# Usage: native/desktoptest/bench.sh BIN [SECONDS]
set -euo pipefail
bin=$1 secs=${2:-8}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'wait 60\nsweep %d\n' $((secs * 60)) >"$dir/hover.txt"

echo "wait $((secs * 120))" >"$dir/still.txt"
run() { xvfb-run -a -s "-screen 0 1280x720x24" "$bin" "$@" --backend cpu --fps-report; }
echo "stridelab-desktop frame rate, 1280×720 under Xvfb (Mesa llvmpipe), $(nproc) cores"
echo "hover (64×64 expand, a new cell lit every frame, $((secs * 60)) frames):"
run expand --shape 64,1 --size 64,64 --script "$dir/hover.txt" | grep fps
echo "still (the same scene, nothing moving, ${secs} s):"
run expand --shape 64,1 --size 64,64 --seconds "$secs" --paused | grep fps
echo "empty (an empty scene: the controls alone, ${secs} s):"
run expand --shape 0,1 --size 0,64 --seconds "$secs" --paused | grep fps
