import argparse
import datetime
import os

import torch.distributed as dist

REDUCE_OP = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN}
RANK = int(os.environ.get("RANK", "0"))
MINE = {}  # mesh dim -> (the positions of this rank's group along it, its process group)


def arange(shape):
    return torch.arange(numel(shape), dtype=F32, device=DEV).reshape(tuple(shape))


def load(path, shape):
    x = torch.from_numpy(np.load(path)).to(F32).to(DEV)
    if list(x.shape) != list(shape):
        raise ValueError("%s holds %s, but the program's input is %s" % (path, list(x.shape), list(shape)))
    return x


def shard(x, lo, shape, keep, op):
    """This rank's shard of the logical value x: the block at lo of shape;
    a partial value that is not kept holds the reduction's identity."""
    idx = tuple(slice(a, a + n) for a, n in zip(lo, shape))
    if not keep:
        return full(shape, IDENTITY[op])
    return x[idx].contiguous()


def all_gather(t, dim, axis, sizes, after, skip):
    """Gather the group's shards along axis (sizes: each member's); uneven
    shards travel padded to the largest and are trimmed."""
    g, pg = MINE[dim]
    if len(g) == 1:
        return t.clone()
    if skip:  # every shard of the group is empty
        return torch.empty(tuple(after), dtype=F32, device=DEV)
    big = max(sizes)
    pad = list(t.shape)
    pad[axis] = big - t.shape[axis]
    padded = torch.cat([t, full(pad, 0.0)], dim=axis) if pad[axis] else t.contiguous()
    got = [torch.empty_like(padded) for _ in g]
    dist.all_gather(got, padded, group=pg)
    return torch.cat([p.narrow(axis, 0, n) for p, n in zip(got, sizes)], dim=axis).contiguous()


def all_reduce(t, dim, op):
    g, pg = MINE[dim]
    out = t.clone()
    if len(g) > 1 and out.numel() > 0:
        dist.all_reduce(out, op=REDUCE_OP[op], group=pg)
    return out


def reduce_scatter(t, dim, op, axis):
    """Reduce over the group and keep this rank's part along axis: an
    all_reduce and a slice (gloo has no reduce_scatter; uneven parts)."""
    g, _ = MINE[dim]
    out = all_reduce(t, dim, op)
    lo, hi = part_range(out.shape[axis], len(g), g.index(RANK))
    return out.narrow(axis, lo, hi - lo).contiguous()


def all_to_all(t, dim, axis_in, axis_out, out_shapes, skip):
    """Cut t along axis_out into the group's parts, send part q to member
    q, and concatenate what arrives along axis_in (out_shapes: the piece
    from each member)."""
    g, pg = MINE[dim]
    k = len(g)
    pieces = [t.narrow(axis_out, lo, hi - lo).reshape(-1) for lo, hi in (part_range(t.shape[axis_out], k, q) for q in range(k))]
    out_splits = [numel(s) for s in out_shapes]
    if k == 1:
        got = torch.cat(pieces)
    else:
        inp = torch.cat(pieces)
        got = torch.empty(sum(out_splits), dtype=F32, device=DEV)
        if not skip:
            dist.all_to_all_single(got, inp, out_splits, [p.numel() for p in pieces], group=pg)
    parts = [p.reshape(tuple(s)) for p, s in zip(got.split(out_splits), out_shapes)]
    return torch.cat(parts, dim=axis_in).contiguous()


def local_slice(t, dim, axis):
    g, _ = MINE[dim]
    lo, hi = part_range(t.shape[axis], len(g), g.index(RANK))
    return t.narrow(axis, lo, hi - lo).contiguous()


def local_zero(t, dim, op):
    g, _ = MINE[dim]
    return t.clone() if g.index(RANK) == 0 else full(t.shape, IDENTITY[op])


def local_pad(t, dim, axis, sizes, op):
    g, _ = MINE[dim]
    return pad_part(t, axis, sizes, g.index(RANK), op)


def setup(groups, mesh):
    """Join torch.distributed (NCCL on GPUs, gloo on CPUs) and make one
    process group per group of devices along each mesh dim."""
    global DEV
    ap = argparse.ArgumentParser(description="a stridelab plan on torch.distributed, one process per device")
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="cuda: NCCL and one GPU per process (LOCAL_RANK); cpu: gloo")
    ap.add_argument("--out", default=OUT_DIR, help="save every named tensor and gradient as OUT/NAME.npy (rank 0); default: print them")
    args = ap.parse_args()
    if args.device == "cuda":
        DEV = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(DEV)
    dist.init_process_group("nccl" if args.device == "cuda" else "gloo", timeout=datetime.timedelta(seconds=300))
    if dist.get_world_size() != WORLD:
        raise SystemExit("this plan runs on %d processes (torchrun --nproc_per_node %d), not %d" % (WORLD, WORLD, dist.get_world_size()))
    for m, gs in enumerate(groups):
        for g in gs:
            pg = dist.new_group(g) if len(mesh) > 1 and len(g) > 1 else None
            if RANK in g:
                MINE[m] = (g, pg)
    return args


def save(args, name, x):
    if RANK != 0:
        return
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        np.save(os.path.join(args.out, name + ".npy"), x.cpu().numpy())
    else:
        print("%s %s\n%s" % (name, list(x.shape), x.cpu().numpy()))
