"""stridelab's torch engine: the worker of `stridelab calibrate`.

stridelab (engine/torch, Calibrate) writes a job folder and starts one
process per device of the placement, as for a run:

    MASTER_ADDR=127.0.0.1 MASTER_PORT=P RANK=r WORLD_SIZE=n python3 calibrate.py JOB

The worker reads JOB/job.json ({"mesh", "groups", "sizes", "runs",
"collectives", "timeout_s"}), joins torch.distributed (gloo), makes the
mesh's groups as worker.py does, and along each mesh dim, for each
collective and each size S (the bytes of the group's whole tensor, a
float32 [n·r, c] whose shards are [r, c], r·c = S/4/n), runs the
collective runs + 1 times (the first a warm-up, not kept), each timed
alone after a barrier of the whole world. It runs each through the torch
engine's own code for a boxing step (worker.py's make_collective: the
same torch.distributed call, and the same padding, slicing and joining of
shards around it, into tensors made for each run), so a point is what a
run measures of that collective:

    all-gather      S(0) -> B: all_gather of the [r, c] shards, joined
    reduce-scatter  P -> S(0): all_reduce of a copy of the [n·r, c]
                    tensor, then this rank's rows: gloo in torch 1.13 has
                    no reduce_scatter, and this is how the engine runs one
    all-reduce      P -> B: all_reduce of a copy of the [n·r, c] tensor
    all-to-all      S(0) -> S(1): all_to_all_single of the [r, c] shard's
                    n column blocks, joined into [n·r, c/n]

Then it measures its device: a float32 matmul (torch.mm of two 512x512
matrices, one thread) for FLOP/s, a copy of 64 MiB for memory bytes/s
(each byte read and written: twice the size), and the machine's memory
divided by the processes for its capacity. It writes
JOB/report.RANK.json, through a temporary name, and prints a status line
"stridelab-status: measure K/TOTAL: …" to stderr before each measurement
so stridelab can draw its progress. A failure writes JOB/error.RANK and
exits with status 1.
"""

import json
import os
import time

# worker.py, written beside this file: the job folder, the rank, status
# lines, whole-file writes, joining the mesh's groups, a boxing step's
# collective, timed runs and the exit.
from worker import JOB, RANK, WORLD, atomic_write, join, make_collective, run, status, timed


def size_name(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return "%g %s" % (n, unit)
        n /= 1024.0


def main():
    status("importing torch")
    import torch
    import torch.distributed as dist

    with open(os.path.join(JOB, "job.json")) as f:
        job = json.load(f)
    torch.set_num_threads(1)
    mine = join(dist, job)

    collective = make_collective(torch, dist, mine)
    # The boxing step each collective is, as sbp plans it along one mesh
    # dim (x: the SBP before, y: after; worker.py's job form).
    steps = {
        "all-gather": ({"kind": "S", "axis": 0, "op": ""}, {"kind": "B", "axis": 0, "op": ""}),
        "reduce-scatter": ({"kind": "P", "axis": 0, "op": "sum"}, {"kind": "S", "axis": 0, "op": ""}),
        "all-reduce": ({"kind": "P", "axis": 0, "op": "sum"}, {"kind": "B", "axis": 0, "op": ""}),
        "all-to-all": ({"kind": "S", "axis": 0, "op": ""}, {"kind": "S", "axis": 1, "op": ""}),
    }

    def split(n, k, i):
        """Part i of n cut in k, balanced (ops.part_range's length)."""
        q, rem = divmod(n, k)
        return q + (1 if i < rem else 0)

    def shapes(sbp, n, r, c, i):
        """The [n·r, c] tensor's shard on the member i of a group of n."""
        if sbp["kind"] != "S":
            return [n * r, c]
        if sbp["axis"] == 0:
            return [split(n * r, n, i), c]
        return [n * r, split(c, n, i)]

    total = len(job["mesh"]) * len(job["collectives"]) * len(job["sizes"]) + 1
    done = 0
    samples = []
    # index[m][q]: position q's place in its group along mesh dim m.
    index = [{q: i for grp in groups for i, q in enumerate(grp)} for groups in job["groups"]]
    for m in range(len(job["mesh"])):
        n = len(mine[m][0])
        for kind in job["collectives"]:
            for size in job["sizes"]:
                done += 1
                status("measure %d/%d: %s of %s along mesh dim %d" % (done, total, kind, size_name(size), m))
                shard = max(1, size // 4 // n)  # float32 elements of one device's shard
                c = 1  # its columns: the largest power of 2 up to its square root
                while 4 * c * c <= shard:
                    c *= 2
                r = shard // c
                x, y = steps[kind]
                step = {"collective": kind, "mesh_dim": m, "x": x, "y": y,
                        "before": [shapes(x, n, r, c, index[m][q]) for q in range(WORLD)],
                        "after": [shapes(y, n, r, c, index[m][q]) for q in range(WORLD)]}
                t = torch.zeros(step["before"][RANK])
                runs = timed(dist, lambda: collective(step, t)[1], job["runs"] + 1)[1:]  # the first is a warm-up
                samples.append({"mesh_dim": m, "collective": kind, "devices": n, "bytes": n * r * c * 4, "seconds": [s for s, _ in runs]})
                del t

    done += 1
    status("measure %d/%d: this device's matmul and copy" % (done, total))
    dist.barrier()
    a, b = torch.rand(512, 512), torch.rand(512, 512)
    torch.mm(a, b)
    reps, t0 = 0, time.perf_counter()
    while reps < 3 or time.perf_counter() - t0 < 0.5:
        torch.mm(a, b)
        reps += 1
    flops = 2 * 512 ** 3 * reps / (time.perf_counter() - t0)
    x = torch.ones(16 << 20)  # 64 MiB of float32
    y = torch.empty_like(x)
    y.copy_(x)
    reps, t0 = 0, time.perf_counter()
    while reps < 3 or time.perf_counter() - t0 < 0.5:
        y.copy_(x)
        reps += 1
    mem = 2 * x.numel() * 4 * reps / (time.perf_counter() - t0)
    capacity = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / WORLD
    dist.barrier()
    report = {"position": RANK, "pid": os.getpid(), "samples": samples,
              "device": {"flops_per_s": flops, "mem_bytes_per_s": mem, "mem_capacity_bytes": capacity}}
    atomic_write(os.path.join(JOB, "report.%d.json" % RANK), json.dumps(report))
    status("done")
    dist.barrier()  # every rank leaves together (worker.py says why)
    dist.destroy_process_group()


if __name__ == "__main__":
    run(main)
