#!/usr/bin/env bash
# Predicted against measured (issue 31, docs/performance.md): calibrates
# this machine's gloo on 2 and 4 processes (`stridelab calibrate`), then
# runs each program below on that many torch.distributed processes with
# --cluster set to that calibration, RUNS times each (`sbp program
# --engine torch --cluster FILE --json`), and prints the table
# docs/performance.md records: per boxing the predicted time, the median
# of the measured ones (each the slowest process's, every collective
# timed alone between barriers) with their range, and the ratio; per
# program the totals; then whether every boxing of 1 MiB or more is
# within a factor of 2 of its prediction.
#
# Usage: bench/predicted.sh BIN OUTDIR [RUNS]   (RUNS: 3 by default)
# OUTDIR keeps the calibrations (loopN.json) and every run's JSON
# (NAME.N.RUN.json), each reused when present: delete them to measure
# again, keep them to print the table again.
set -euo pipefail
bin=$1 out=$2 runs=${3:-3}
mkdir -p "$out"
# The machine's load average (1, 5 and 15 minutes) before each stage
# measured (load.txt): the table is only as quiet as the machine was.
load() { echo "$1: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"; }
for n in 2 4; do
  if [ ! -s "$out/loop$n.json" ]; then
    load "calibrating $n"
    "$bin" calibrate --engine torch --placement "$n" --name "loop$n" -o "$out/loop$n.json" >"$out/loop$n.txt"
    echo "predicted: calibrated $n processes: $out/loop$n.json" >&2
  fi
done
: >"$out/order.txt"
# name | strategy | program (@N: the processes)
while IFS='|' read -r name strategy src; do
  [ -z "$name" ] && continue
  for n in 2 4; do
    for r in $(seq 1 "$runs"); do
      f="$out/$name.$n.$r.json"
      [ -s "$f" ] && continue
      [ "$r" = 1 ] && load "$name on $n"
      "$bin" sbp program --src "${src//@N/$n}" --strategy "$strategy" --engine torch --cluster "$out/loop$n.json" --json >"$f.tmp"
      mv "$f.tmp" "$f"
    done
    echo "$name $n" >>"$out/order.txt"
    echo "predicted: $name on $n processes, $runs runs" >&2
  done
done <<'LIST'
data-parallel|exact|placement @N; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; s = sum y 1,1; grad s
model-parallel|exact|placement @N; x = input 64,32 B; w = input 32,16 S(1); y = matmul x w; s = sum y 1,1; grad s
matmul-s0-s0|greedy|placement @N; x = input 64,32 S(0); w = input 32,16 S(0); y = matmul x w
greedy|greedy|placement @N; x = input 64,32 S(0); w = input 32,16 S(0); y = matmul x w; s = sum y 1,1; grad s
exact|exact|placement @N; x = input 64,32 S(0); w = input 32,16 S(0); y = matmul x w; s = sum y 1,1; grad s
seed|greedy|placement @N; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; z = mul y y; s = sum z 1,1; grad s
data-parallel-512|exact|placement @N; x = input 64,512 S(0); w = input 512,512 B; y = matmul x w; s = sum y 1,1; grad s
boxings-2mib|greedy|placement @N; x = input 1024,512 S(0); y = box x B; a = input 1024,512 S(0); z = box a S(1); p = input 1024,512 P; q = box p B; c = input 1024,512 P; r = box c S(0)
boxings-8mib|greedy|placement @N; x = input 2048,1024 S(0); y = box x B; a = input 2048,1024 S(0); z = box a S(1); p = input 2048,1024 P; q = box p B; c = input 2048,1024 P; r = box c S(0)
LIST
python3 - "$out" "$runs" <<'PY'
import json, os, statistics, sys

out, runs = sys.argv[1], int(sys.argv[2])


def secs(s):
    if s == 0:
        return "0"
    if s < 1e-3:
        return "%.3g µs" % (s * 1e6)
    if s < 1:
        return "%.3g ms" % (s * 1e3)
    return "%.3g s" % s


def size(b):
    for unit in ("B", "KiB", "MiB"):
        if b < 1024 or unit == "MiB":
            return ("%d %s" % (b, unit)) if unit == "B" else ("%.3g %s" % (b, unit))
        b /= 1024.0


names = [(line.split()[0], int(line.split()[1])) for line in open(os.path.join(out, "order.txt")) if line.strip()]
print("| program | processes | step | boxing | collectives | tensor | predicted | measured: median (range) | in the call | measured / predicted |")
print("|---|---:|---:|---|---|---:|---:|---:|---:|---:|")
big, within = 0, 0
for name, n in names:
    plans = [json.load(open(os.path.join(out, "%s.%d.%d.json" % (name, n, r)))) for r in range(1, runs + 1)]
    m0 = plans[0]["measured"]
    for i, b in enumerate(m0["boxings"]):
        got = [p["measured"]["boxings"][i]["measured_s"] for p in plans]
        med = statistics.median(got)
        call = statistics.median(p["measured"]["boxings"][i]["call_s"] for p in plans)
        tensor = 4
        for d in b["shape"]:
            tensor *= d
        ratio = "%.2f" % (med / b["predicted_s"]) if b["predicted_s"] > 0 else "-"
        if tensor >= 1 << 20 and b["predicted_s"] > 0:
            big += 1
            within += 0.5 <= med / b["predicted_s"] <= 2
            ratio = "**%s**" % ratio
        ran = " + ".join(c["collective"] + ("" if c["ran"] in ("local", c["collective"].replace("-", "_")) else " (%s)" % c["ran"]) for c in b["collectives"]) or "none"
        print("| %s | %d | %d | %s: %s -> %s | %s | %s | %s | %s (%s-%s) | %s | %s |" % (
            name, n, b["step"] + 1, b["name"], b["from"], b["to"], ran, size(tensor), secs(b["predicted_s"]),
            secs(med), secs(min(got)), secs(max(got)), secs(call), ratio))
    tot = [p["measured"]["measured_s"] for p in plans]
    med = statistics.median(tot)
    call = statistics.median(p["measured"]["call_s"] for p in plans)
    ratio = "%.2f" % (med / m0["predicted_s"]) if m0["predicted_s"] > 0 else "-"
    k = len(m0["boxings"])
    print("| %s | %d | | total: %d boxing%s | | | %s | %s (%s-%s) | %s | %s |" % (
        name, n, k, "" if k == 1 else "s", secs(m0["predicted_s"]), secs(med), secs(min(tot)), secs(max(tot)), secs(call), ratio))
print()
print("boxings of 1 MiB or more within a factor of 2 of the prediction: %d of %d" % (within, big))
loads = [line.rsplit(":", 1)[1].split() for line in open(os.path.join(out, "load.txt"))]
ones = [float(l[0]) for l in loads]
print("load average (1 minute) before each stage: %.1f to %.1f, median %.1f" % (min(ones), max(ones), statistics.median(ones)))
PY
