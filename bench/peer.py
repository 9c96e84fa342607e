"""NumPy peer for stridelab's benchmark cases (run by bench.RunNumPy).

Reads {"cases": [...], "runs": N, "min_s": T} as JSON on stdin and prints
{"numpy": version, "results": [{"name", "median_s"}]}: the median of at
least N runs and T seconds per case. Each case allocates a
fresh output per run, the way NumPy code does: broadcast_to().copy(), tile,
sum(keepdims), a broadcast add, exp, and softmax as NumPy code writes it
(exp of x less its max, over its sum).
"""
import json
import sys
import time

import numpy as np


def make(shape, k):
    rng = np.random.default_rng(2463534242 + k)
    return rng.random(shape, dtype=np.float32)


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
    out = []
    for case in req["cases"]:
        fn = runner(case)
        fn()  # warm up
        times = []
        start = time.perf_counter()
        while len(times) < req["runs"] or time.perf_counter() - start < req["min_s"]:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        times.sort()
        out.append({"name": case["name"], "median_s": times[len(times) // 2]})
    json.dump({"numpy": np.__version__, "results": out}, sys.stdout)


main()
