#!/usr/bin/env bash
# The GPU check of issue 42, as one script for a machine with a GPU (the
# device machine: `run` it from the repository root): builds the CLI,
# runs the kernel conformance suite on the GPU (every layout, special
# values, chunked bindings, 2-D grids; OUT/conformance.txt), then times
# every bench case's kernel on the GPU beside the device's own copy
# kernel and copyBufferToBuffer, with each case's invocations and its
# fraction of the datasheet's memory bandwidth (bench.DatasheetFor), and,
# where PyTorch with CUDA is installed, PyTorch's own CUDA kernels on the
# same cases in the same run (--torch-cuda). Writes OUT/gpu.txt,
# OUT/gpu.json and OUT/gpu.svg, and OUT/cpu.txt and OUT/cpu.json, the CPU
# kernels beside NumPy, PyTorch and memcpy at the machine's thread count.
#
# Usage: bench/gpu.sh [OUT]   (OUT: $OUT, else bench-gpu)
set -euo pipefail
out=${1:-${OUT:-bench-gpu}}
mkdir -p "$out"
go build -o bin/stridelab ./native/cmd/stridelab
nvidia-smi --query-gpu=name,memory.total,clocks.max.memory --format=csv 2>/dev/null | tee "$out/nvidia-smi.txt" || true
# The GPU must be there (no skip); -short leaves out the multi-GiB cases.
STRIDELAB_REQUIRE_GPU=1 timeout 300 go test -short -count=1 -v ./shaders \
  -run 'TestConformance$|TestChunkedKernelsAgreeWithTheCPU|TestSplitReductionsAgreeWithTheCPU|TestTwoDimensionalGridsAgreeWithTheCPU' \
  2>&1 | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|adapter:' | tee "$out/conformance.txt" ||
  echo "conformance: FAILED or timed out (the bench runs on)" | tee -a "$out/conformance.txt"
torch=()
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  torch=(--torch-cuda)
fi
./bin/stridelab bench --backend gpu --rounds 7 "${torch[@]}" --json "$out/gpu.json" --svg "$out/gpu.svg" | tee "$out/gpu.txt"
./bin/stridelab bench --runs 21 --rounds 3 --json "$out/cpu.json" | tee "$out/cpu.txt"
