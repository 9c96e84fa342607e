#!/usr/bin/env bash
# The gallery: the worked examples of the source documents (../shared/sources),
# drawn by `stridelab draw` as SVG (one step) and GIF (the whole sweep), and
# OUTDIR/README.md, the page that shows them with their captions.
# Usage: docs/gallery/gallery.sh BIN OUTDIR   (make gallery runs it)
# The playground's Gallery menu reads the same list (make web copies it to
# gallery.txt) and shows an example's caption beside its scene.
set -euo pipefail
bin=$1 out=$2
mkdir -p "$out"
readme=$(mktemp)
trap 'rm -f "$readme"' EXIT
cat >"$readme" <<'HEAD'
# The gallery

The worked examples of the source documents, drawn by `stridelab draw`
(`make gallery` redraws them; this page is written by
[gallery.sh](gallery.sh), whose list the playground's Gallery menu also
opens). Each picture is one step of its scene; an animation walks every
step.
HEAD
# name | scene and flags | the step the SVG shows | gif (yes/no) | caption (optional; no '|')
while IFS='|' read -r name args step gif caption; do
  [ -z "$name" ] && continue
  eval "set -- $args"
  "$bin" draw "$@" --step "$step" -o "$out/$name.svg" >/dev/null
  if [ "$gif" = yes ]; then
    "$bin" draw "$@" --width 960 --height 540 -o "$out/$name.gif" >/dev/null
  fi
  {
    printf '\n## %s\n\n' "$name"
    if [ -n "$caption" ]; then printf '%s\n\n' "$caption"; fi
    printf '![%s](%s.svg)\n\n' "${caption:-$name}" "$name"
    printf '```sh\nstridelab draw %s --step %s\n```\n' "$args" "$step"
    if [ "$gif" = yes ]; then printf '\nThe whole animation: [%s.gif](%s.gif).\n' "$name" "$name"; fi
  } >>"$readme"
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
program-data-parallel|program --src 'placement 4; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; s = sum y 1,1; grad s' --strategy exact|10|yes|Data parallel, planned exactly (--strategy exact): x is split by rows (S(0)) and the weight w is on every device (B), so y = x·w runs as S(0) × B → S(0) with no boxing. In the backward, w's gradient x.T·grad_y comes out partial (P(sum)): each device summed over its own rows only. The all-reduce that makes it B again, as w is, is the program's only traffic (12.0 KiB). Greedy, OneFlow's eager rule, sends as much another way: it keeps the backward's seed B, so x.T is all-to-alled and w's gradient all-gathered.
program-model-parallel|program --src 'placement 4; x = input 64,32 B; w = input 32,16 S(1); y = matmul x w; s = sum y 1,1; grad s' --strategy exact|11|no|Model parallel, planned exactly: w is split by columns (S(1)) and x is on every device (B), so y = x·w runs as B × S(1) → S(1) with no boxing, and w's gradient comes out S(1), as w is. x's gradient grad_y·w.T would come out partial if each device multiplied by its own columns of w only; the exact plan all-gathers w.T first (6.00 KiB), and the gradient comes out B, as x is. Greedy, OneFlow's eager rule, sends 25.5 KiB.
program-matmul-s0-s0|program --src 'placement 4; x = input 64,32 S(0); w = input 32,16 S(0); y = matmul x w'|2|no|The source's matmul with both inputs S(0): no signature of matmul takes S(0) × S(0) (the devices' blocks do not fit a product), so the planner boxes w to B with an all-gather (6.00 KiB; no valid signature costs less) and y = x·w runs as S(0) × B → S(0). Hover the op's column for every signature it could have run under and what its boxing would have sent.
program-mesh-2d|program --src 'placement [[0,1],[2,3]]; x = input 64,32 (S(0), B); w = input 32,16 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s' --strategy exact|11|no|A 2-D mesh, data × model, planned exactly: x (S(0), B) is split by rows along the mesh's first dim, w (B, S(1)) by columns along its second, and y = x·w runs as (S(0), S(1)) with no boxing. In the backward w's gradient comes out (P(sum), B): sliced along the second dim and all-reduced along the first, it is (B, S(1)) again. w.T is gathered along the second dim, so x's gradient comes out (S(0), B), as x is: 8.00 KiB in all.
program-greedy|program --src 'placement 4; x = input 64,32 S(0); w = input 32,16 S(0); y = matmul x w; s = sum y 1,1; grad s'|12|no|Greedy against exact: greedy (OneFlow's eager rule) sends 18.0 KiB, exact 12.0 KiB. Both all-gather w (S(0)) to B for y = x·w. In the backward greedy keeps the seed's expand B (B → B, the only signature OneFlow's expand has for a B input) and transposes w as it lies (S(0)), so grad_x = grad_y·w.T comes out S(1), and its all-to-all to S(0) sends 6.00 KiB, beside an all-to-all of x.T for w's gradient. Exact expands the seed to S(0) and transposes the B copy of w that the forward already gathered, so grad_x comes out S(0) directly, and only w's gradient is reduce-scattered. The steps where they differ are marked ≠.
program-exact|program --src 'placement 4; x = input 64,32 S(0); w = input 32,16 S(0); y = matmul x w; s = sum y 1,1; grad s' --strategy exact|8|no|The same program planned exactly (--strategy exact, 12.0 KiB): w.T is the transpose of the forward's gathered copy of w (B), and the seed's expand lays grad_y out as S(0), so grad_x = grad_y·w.T runs as S(0) × B → S(0) with no boxing, and only w's own gradient is reduce-scattered back to S(0).
program-seed|program --src 'placement 4; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; z = mul y y; s = sum z 1,1; grad s'|7|no|The backward's seed, where the strategies part: s is a partial sum, so its gradient ds/ds = 1 is laid out B on every device. OneFlow's expand has only B → B for a B input, so greedy's grad_z is B, the backward's products follow it (OneFlow's copy cost makes B → S dearer than S → B), y is all-gathered for them (12.0 KiB), and w's gradient takes an all-to-all and an all-gather: 24.0 KiB in all. Exact picks expand's B → S(0), an output stridelab adds beyond OneFlow's: each device slices its own rows of grad_z (nothing sent), the backward stays split by rows, and only w's gradient is all-reduced: 12.0 KiB. The steps where they differ are marked ≠.
program-cluster-bytes|program --src 'placement [[0,1],[2,3]]; x = input 64,32 (S(0), B); w = input 32,16 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s' --strategy exact --cluster two-h100-nodes --cost bytes|11|no|The gallery's 2-D mesh program on two H100 nodes (the cluster two-h100-nodes): mesh dim 0 crosses InfiniBand between the nodes (α 10 µs, 50 GB/s a direction), dim 1 stays on a node's NVLink (α 3 µs, 450 GB/s). Planned for the fewest bytes (--cost bytes), exact sends 8.00 KiB: w's gradient comes out partial along dim 0 and is all-reduced across the nodes. Only 4.00 KiB, but a ring all-reduce on two devices takes two steps, and each step pays the slow link's latency: 20.0 µs of the plan's 23.0 µs. The bars under the columns are each step's time.
program-cluster-time|program --src 'placement [[0,1],[2,3]]; x = input 64,32 (S(0), B); w = input 32,16 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s' --strategy exact --cluster two-h100-nodes|13|no|The same program on the same cluster, planned for the least time (--cost time, the default with a cluster): exact sends two and a half times the bytes, 20.0 KiB, and takes 13.1 µs instead of 23.0. It all-gathers x.T across the nodes (16.0 KiB in one ring step: 10 µs of latency and 0.16 µs of bandwidth) so that w's gradient comes out whole on every device and needs no all-reduce. At this size the slow link's latency, not its bandwidth, decides: the cheapest plan in bytes is not the fastest. Greedy takes 26.1 µs.
program-dp-memory|program --src 'placement 4; x = input 1024,128 S(0); w = input 128,256 B; y = matmul x w; s = sum y 1,1; grad s' --strategy exact --cluster h100-node --cost bytes --memory show|10|no|Plain data parallelism on four GPUs of an H100 node, with what each device holds (the line under the bars, its peak marked): every device keeps the whole weight w (128 KiB), and in the backward the whole partial gradient and its all-reduced copy. One all-reduce of w's gradient, 768 KiB sent in 18.4 µs; each device peaks at 896 KiB.
program-zero3|program --src 'placement 4; x = input 1024,128 S(0); w = input 128,256 S(0); wb = box w B; y = matmul x wb; s = sum y 1,1; grad s' --strategy exact --cluster h100-node --cost bytes --memory show|11|no|The same layer as ZeRO-3 / FSDP: w lives split by rows (S(0)), a quarter on each device; wb = box w B all-gathers it just before the matmul, and its gradient comes out partial and is reduce-scattered back to S(0), as w is. The same 768 KiB as data parallelism in two collectives, an all-gather in the forward and a reduce-scatter in the backward of 384 KiB each (each is half an all-reduce), and each device peaks at 800 KiB instead of 896 KiB: the weight and its gradient are kept as shards. Here the backward reads the copy the forward gathered, so it is kept; FSDP frees it after the forward and gathers it again for the backward (one more all-gather, 1.5 times the traffic) so that no device holds more than one layer's whole weight at a time.
program-megatron-mlp|program --src 'placement 4; x = input 64,32 B; w1 = input 32,128 S(1); h = matmul x w1; k = input 1,128 S(1); a = input 1,128 S(1); half = input 1,128 S(1); h2 = mul h h; h3 = mul h2 h; c = mul h3 k; d = add h c; u = mul d a; t = tanh u; hh = mul h half; ht = mul hh t; g = add hh ht; w2 = input 128,32 S(0); y = matmul g w2; z = box y B; s = sum z 1,1; grad s' --strategy exact|17|no|Megatron-LM's MLP (Shoeybi et al. 2019) on 4 devices, planned exactly: the tokens x (64 × 32) are on every device (B); w1 is split by columns (S(1), column-parallel), so h = x·w1 comes out S(1), and GELU written out with tanh, 0.5·h·(1 + tanh(a·(h + k·h³))) with a = √(2/π) and k = 0.044715, runs on each device's own columns with no communication. Its constants k, a and half are inputs laid out as h's columns (S(1), one per column, like a bias), since the language has no literals: a constant laid out B would be a parameter whose gradient is all-reduced (give them their values with from in the CLI). w2 is split by rows (S(0), row-parallel), so y = g·w2 comes out partial (P(sum)), and z = box y B is Megatron's g operator, the forward's one all-reduce: 48.0 KiB (y is 8.00 KiB; a ring all-reduce sends 2·3/4 of it from each of the 4 devices). In the backward the one all-reduce is of x's gradient, Megatron's f operator: grad_h·w1.T comes out P(sum), 48.0 KiB. Every weight's gradient comes out split as its weight is: 96.0 KiB in all, and greedy finds the same plan.
program-sequence-parallel|program --src 'placement 4; x = input 64,32 S(0); m = mean x 64,1; c = sub x m; v = mul c c; q = mean v 64,1; r = rsqrt q; n = mul c r; nb = box n B; w1 = input 32,128 S(1); h = matmul nb w1; a = tanh h; w2 = input 128,32 S(0); y = matmul a w2; z = box y S(0); o = add z x; l = mul o o; s = sum l 1,1; grad s' --strategy exact|13|no|Sequence parallelism (Korthikanti et al. 2022) on 4 devices, planned exactly: the tokens x (64 × 32) are split along the sequence (S(0)), and the layer norm (mean, sub, mul, rsqrt over each token's 32 features; its scale and shift left out) runs on each device's own tokens with no communication. nb = box n B is the all-gather before the column-parallel matmul (24.0 KiB); h and its tanh stay S(1); z = box y S(0) is the reduce-scatter after the row-parallel one, the partial sums summed and split along the sequence again (24.0 KiB). The two send what Megatron's one all-reduce sends, but the layer norm, the residual add o = z + x and their activations are held a quarter on each device. In the backward the roles swap: o's gradient is all-gathered for the row-parallel matmul's gradient (the reduce-scatter's backward, 24.0 KiB), and n's gradient, partial, is reduce-scattered back to S(0) (the all-gather's backward, 24.0 KiB): 96.0 KiB in all. Greedy, OneFlow's eager rule, sends 169 KiB in 8 collectives: it gathers o itself rather than its gradient, and the layer norm's backward gathers and scatters again.
program-softmax|program --src 'placement 4; x = input 8,16 S(1); y = softmax x 1; w = input 8,16 S(1); t = tanh w; z = mul y t; s = sum z 1,1; grad s' --strategy exact|6|no|Softmax along a split dim, planned exactly: x is split along dim 1 (S(1)), the dim softmax normalises along, and no signature of softmax takes that (each device would normalise over its own part of a row). So x is boxed to S(0) first, whole rows on each device (an all-to-all, 384 B), and y back to S(1) for the product with t = tanh w (another all-to-all, 384 B): 768 B in the forward. In the backward the rule's few ops, y · (grad − sum(grad · y, 1)), run on S(1): the sum over the split dim comes out P(sum), and its all-reduce (192 B) is the backward's only traffic. 960 B in all; greedy, OneFlow's eager rule, sends 3.38 KiB. The next picture writes the same softmax out of its parts.
program-softmax-by-hand|program --src 'placement 4; x = input 8,16 S(1); m = max x 8,1; c = sub x m; e = exp c; d = sum e 8,1; y = div e d; w = input 8,16 S(1); t = tanh w; z = mul y t; s = sum z 1,1; grad s' --strategy exact|6|no|The same softmax written out of max, sub, exp, sum and div, planned exactly: x stays split along dim 1. Each device takes the max of its part of every row, a P(max), and the all-reduce of those 8 maxima (192 B) gives every device the row max; the sum of its part's exponentials is a P(sum), all-reduced too (192 B): 384 B in the forward, half of what boxing x for softmax sends, since only one number per row moves. The backward has more ops (div's, exp's and max's rules), and its partial sums over the split dim are an all-reduce (192 B), two reduce-scatters and an all-gather (96 B each): 864 B in all against the fused softmax's 960 B; greedy sends 6.84 KiB.
LIST
chmod 644 "$readme"
mv "$readme" "$out/README.md"
