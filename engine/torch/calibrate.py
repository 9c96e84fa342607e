"""stridelab's torch engine: the worker of `stridelab calibrate`.

stridelab (engine/torch, Calibrate) writes a job folder and starts one
process per device of the placement, as for a run:

    MASTER_ADDR=127.0.0.1 MASTER_PORT=P RANK=r WORLD_SIZE=n python3 calibrate.py JOB

The worker reads JOB/job.json ({"mesh", "groups", "sizes", "runs",
"collectives", "timeout_s"}), joins torch.distributed (gloo), makes the
mesh's groups as worker.py does, and along each mesh dim, for each
collective and each size S (the bytes of the group's whole tensor), runs
the collective runs + 1 times (the first a warm-up, not kept), each timed
alone between two barriers of the whole world:

    all-gather      all_gather of a float32 shard of S/n bytes
    reduce-scatter  all_reduce of S bytes, then this rank's slice: gloo
                    in torch 1.13 has no reduce_scatter, and this is how
                    the engine runs one (worker.py)
    all-reduce      all_reduce of S bytes
    all-to-all      all_to_all_single of a shard of S/n bytes, in n equal
                    pieces

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
# lines, whole-file writes, joining the mesh's groups and the exit.
from worker import JOB, RANK, WORLD, atomic_write, join, run, status


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

    def collective(kind, buf, pg, n, ci):
        if kind == "all-gather":
            out = [torch.empty_like(buf["shard"]) for _ in range(n)]
            dist.all_gather(out, buf["shard"], group=pg)
        elif kind == "reduce-scatter":
            dist.all_reduce(buf["whole"], group=pg)
            s = buf["whole"].numel() // n
            buf["whole"].narrow(0, ci * s, s).contiguous()
        elif kind == "all-reduce":
            dist.all_reduce(buf["whole"], group=pg)
        elif kind == "all-to-all":
            dist.all_to_all_single(buf["out"], buf["shard"], group=pg)
        else:
            raise ValueError("no collective %r" % kind)

    total = len(job["mesh"]) * len(job["collectives"]) * len(job["sizes"]) + 1
    done = 0
    samples = []
    for m in range(len(job["mesh"])):
        g, pg = mine[m]
        n, ci = len(g), g.index(RANK)
        for kind in job["collectives"]:
            for size in job["sizes"]:
                done += 1
                status("measure %d/%d: %s of %s along mesh dim %d" % (done, total, kind, size_name(size), m))
                shard = max(1, size // 4 // n)  # float32 elements of one device's shard
                whole = shard * n
                buf = {"shard": torch.zeros(shard), "whole": torch.zeros(whole), "out": torch.zeros(shard)}
                times = []
                for r in range(job["runs"] + 1):
                    dist.barrier()
                    t0 = time.perf_counter()
                    collective(kind, buf, pg, n, ci)
                    t = time.perf_counter() - t0
                    dist.barrier()
                    if r > 0:
                        times.append(t)
                samples.append({"mesh_dim": m, "collective": kind, "devices": n, "bytes": whole * 4, "seconds": times})
                del buf

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
