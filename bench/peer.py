"""NumPy and PyTorch peers for stridelab's benchmark cases (run by
bench.RunPeer).

Reads {"lib": "numpy"|"torch", "threads": T, "device": "cpu"|"cuda",
"cases": [...], "runs": N, "min_s": S} as JSON on stdin and prints {"version": the library's,
"results": [{"name", "median_s"}]}: the median of at least N runs and S
seconds per case. Each case allocates a fresh output per run, the way
code in either library does. NumPy: broadcast_to().copy(), tile,
sum(keepdims), a broadcast add, exp, and softmax as NumPy code writes it
(exp of x less its max, over its sum). PyTorch, on the CPU with T threads
(torch.set_num_threads, stridelab's GOMAXPROCS): expand().contiguous(),
repeat, sum(keepdim), a broadcast add, exp and torch.softmax, on the
same values. With "device": "cuda", PyTorch's CUDA kernels on the same
values resident on the GPU, each run timed between two
torch.cuda.synchronize() calls.
"""
import json
import sys
import time

import numpy as np


def make(shape, k):
    rng = np.random.default_rng(2463534242 + k)
    return rng.random(shape, dtype=np.float32)


def torch_runner(case, threads, device):
    import torch
    if threads:
        torch.set_num_threads(threads)
    a = torch.from_numpy(make(case["in"], 0)).to(device)
    op, arg = case["op"], case["arg"]
    if op == "expand":
        return lambda: a.expand(arg).contiguous()
    if op == "repeat":
        return lambda: a.repeat(*arg)
    if op == "sum":
        dims = tuple(d for d, n in enumerate(arg) if n == 1 and a.shape[d] != 1)
        return lambda: a.sum(dim=dims, keepdim=True)
    if op == "add":
        b = torch.from_numpy(make(case["b"], 1)).to(device)
        return lambda: a + b
    if op == "exp":
        return lambda: torch.exp(a)
    if op == "softmax":
        return lambda: torch.softmax(a, arg[0])
    raise SystemExit("unknown op " + op)


def runner(case):
    a = make(case["in"], 0)
    op, arg = case["op"], case["arg"]
    if op == "expand":
        return lambda: np.broadcast_to(a, arg).copy()
    if op == "repeat":
        return lambda: np.tile(a, arg)
    if op == "sum":
        axes = tuple(d for d, n in enumerate(arg) if n == 1 and a.shape[d] != 1)
        return lambda: a.sum(axis=axes, keepdims=True)
    if op == "add":
        b = make(case["b"], 1)
        return lambda: a + b
    if op == "exp":
        return lambda: np.exp(a)
    if op == "softmax":
        d = arg[0]

        def softmax():
            e = np.exp(a - a.max(axis=d, keepdims=True))
            return e / e.sum(axis=d, keepdims=True)
        return softmax
    raise SystemExit("unknown op " + op)


def main():
    req = json.load(sys.stdin)
    lib = req.get("lib", "numpy")
    version = np.__version__
    if lib == "torch":
        import torch
        version = torch.__version__
    device = req.get("device", "cpu")
    sync = lambda: None
    if device == "cuda":
        import torch
        sync = torch.cuda.synchronize
    out = []
    for case in req["cases"]:
        fn = torch_runner(case, req["threads"], device) if lib == "torch" else runner(case)
        fn()  # warm up
        sync()
        times = []
        start = time.perf_counter()
        while len(times) < req["runs"] or time.perf_counter() - start < req["min_s"]:
            t0 = time.perf_counter()
            fn()
            sync()
            times.append(time.perf_counter() - t0)
        times.sort()
        out.append({"name": case["name"], "median_s": times[len(times) // 2]})
    json.dump({"version": version, "results": out}, sys.stdout)


main()
