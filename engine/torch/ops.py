# stridelab's local arithmetic on torch, as package sbp computes it on its
# simulated devices: float32 elementwise, sums accumulated in float64.
# The torch engine's worker.py imports it; the files `--emit torch` writes
# hold it inline.
import numpy as np
import torch

F32, F64 = torch.float32, torch.float64
INF = float("inf")
IDENTITY = {"sum": 0.0, "max": -INF, "min": INF}
DEV = torch.device("cpu")  # where full() makes tensors (an emitted file's --device cuda sets it)


def part_range(n, k, i):
    """Balanced split: part i of [0, n) cut in k; the first n mod k parts
    get one more element (sbp's BalancedSplit, OneFlow's BalancedSplitter)."""
    q, r = divmod(n, k)
    lo = i * q + min(i, r)
    return lo, lo + q + (1 if i < r else 0)


def numel(shape):
    return int(np.prod(shape, dtype=np.int64))


def full(shape, value):
    return torch.full(tuple(shape), value, dtype=F32, device=DEV)


def reduce_to(x, op, to):
    """be.Reduce(op, x, to): to aligns on the right; an axis is reduced
    where to has no axis or 1 against a longer one. Sums add in float64
    (tensor's float32 sums do); max and min of nothing are the identity
    (sbp's reduce Local)."""
    lead = x.dim() - len(to)
    dims = [a for a in range(x.dim()) if a < lead or (to[a - lead] == 1 and x.shape[a] != 1)]
    if x.numel() == 0 and op != "sum":
        return full(to, IDENTITY[op])
    if not dims:  # sum(dim=()) would reduce every dim
        return x.reshape(tuple(to)).clone()
    if op == "sum":
        y = x.to(F64).sum(dim=dims, keepdim=True).to(F32)
    elif op == "max":
        y = x.amax(dim=dims, keepdim=True)
    else:
        y = x.amin(dim=dims, keepdim=True)
    return y.reshape(tuple(to))


# The unary ops (tensor.UnaryOp): torch's own, step as relu's mask.
UNARY = {
    "exp": torch.exp, "log": torch.log, "neg": torch.neg, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
    "tanh": torch.tanh, "relu": torch.relu, "step": lambda x: (x > 0).to(x.dtype),
    "erf": torch.erf, "square": torch.square,
}


def gather_rows(table, ids, at):
    """sbp's Gather on one device: the rows of its table, which holds rows
    at[0] … of the logical one, looked up by ids; 0 for the ids whose
    rows it does not hold (a table split along its rows)."""
    rows = table.shape[0]
    r = ids.long() - at[0]
    held = (r >= 0) & (r < rows)
    out = torch.zeros(tuple(ids.shape) + tuple(table.shape[1:]), dtype=table.dtype)
    if rows:
        out[held] = table[r[held]]
    return out


def scatter_rows(dy, ids, at):
    """sbp's UnsortedSegmentSumLike on one device: the rows of dy summed
    by id into rows at[0] … at[1]−1, in float64, rounded once (as
    tensor.ScatterAdd); the ids outside them add nothing."""
    k = ids.dim()
    rest = tuple(dy.shape[k:])
    r = ids.reshape(-1).long() - at[0]
    held = (r >= 0) & (r < at[1] - at[0])
    out = torch.zeros((at[1] - at[0],) + rest, dtype=F64)
    out.index_add_(0, r[held], dy.reshape((-1,) + rest).to(F64)[held])
    return out.to(F32)


def slice_part(x, dim, start, stop, at):
    """sbp's Slice on one device: elements start … stop−1 along dim of the
    logical tensor, of which x holds at[0] … at[1]−1; the output shard
    holds at[2] … at[3]−1 of the slice. What of the slice x holds lands in
    place; the rest is 0 (a split along dim comes out P(sum))."""
    lo, hi, olo, ohi = at
    a, b = max(start, lo), min(stop, hi)
    shape = list(x.shape)
    shape[dim] = ohi - olo
    out = torch.zeros(shape, dtype=x.dtype)
    if b > a:
        out.narrow(dim, a - start - olo, b - a).copy_(x.narrow(dim, a - lo, b - a))
    return out


def mean_to(x, to, count):
    """sbp's Mean on one device: the sum of its part down to to, divided
    by the logical count (every device's, not its part's). The divisor is
    a tensor of the result's shape: torch multiplies by the reciprocal of
    a scalar divisor, which can differ from the division in the last bit."""
    return reduce_to(x, "sum", to) / full(to, float(count))


def softmax(x, dim):
    """sbp's Softmax on one device: along dim (negative counts from the
    end) in float64, rounded to float32 once, as tensor.softmaxLine; each
    device holds whole lines (no signature splits dim)."""
    return torch.softmax(x.to(F64), dim=dim).to(F32)


def matmul(a, b):
    """sbp's matmul, batched: a[..., m, k, 1]·b[..., 1, k, n] in float32
    (the batch dims broadcast as torch.matmul's), summed over k in float64."""
    return (a.unsqueeze(-1) * b.unsqueeze(-3)).to(F64).sum(dim=-2).to(F32)


def pad_part(t, axis, sizes, ci, op):
    """Member ci's part of a group's split (sizes along axis), placed in
    the whole extent and padded with op's identity: S -> P (local-pad)."""
    lo, total = sum(sizes[:ci]), sum(sizes)
    parts = []
    for n in (lo, None, total - lo - sizes[ci]):
        if n is None:
            parts.append(t)
        elif n:
            s = list(t.shape)
            s[axis] = n
            parts.append(full(s, IDENTITY[op]))
    return torch.cat(parts, dim=axis).contiguous()
