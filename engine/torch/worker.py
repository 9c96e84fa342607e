"""stridelab's torch engine: the worker that runs one device of a plan.

stridelab (package engine/torch) writes a job folder and starts one
process per device of the placement:

    MASTER_ADDR=127.0.0.1 MASTER_PORT=P RANK=r WORLD_SIZE=n python3 worker.py JOB

RANK is the device's position in the placement (row-major over the mesh).
The worker reads JOB/job.json, joins torch.distributed (gloo), makes one
process group per group of devices along each mesh dim of an n-D mesh
(every rank makes every group, in the job's order), and runs the steps:

    input   its shard as stridelab laid it out: INDEX.npy in JOB/in/RANK.npz
    op      runs the op on its shards as torch ops, with the per-device
            arguments stridelab computed (sbp.PlanOp): the same arithmetic
            as sbp's Local (float32 products, float64 sums)
    boxing  runs each collective of the boxing plan (sbp.PlanBoxing) along
            its mesh dim, on real tensors, each after a barrier of every
            rank and timed alone from the barrier to its return; then
            job["time_runs"] more times on the same input, timed the same
            way, their outputs dropped (time_again): a collective's time
            is their median, as calibrate.py measures, and the first
            call's is first_seconds

and writes the shards of the steps in job["save"] to JOB/out/RANK.npz
(INDEX.npy each) and its report to JOB/report.RANK.json, each to a
temporary name, then renamed. Before each step it prints a line
"stridelab-status: step INDEX: …" to stderr, so that stridelab can say
where a rank was when a run is stopped. A failure writes JOB/error.RANK
(where it was, a tab, the exception's last line) and exits with status 1.

With --serve after JOB (stridelab's Pool), the worker stays for more jobs
once JOB is done: it prints "stridelab-idle: 1" to stderr and reads the
next job from its stdin, one JSON line {"job": DIR, "fault": SPEC, "seq":
SEQ}, runs it in the same world (its groups made the first time a job
names them, then kept), prints "stridelab-idle: SEQ", and so on; at the
end of its stdin it leaves torch.distributed and exits 0. A failure ends
it as above, writing DIR/error.RANK of the job it was running.
"""

import datetime
import json
import os
import sys
import time
import traceback

JOB = sys.argv[1] if len(sys.argv) > 1 else "."  # the job running now: a later job of --serve replaces it
SERVE = "--serve" in sys.argv[2:]
RANK = int(os.environ.get("RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))
STATUS = {"where": "start"}
# The fault the tests inject into the job running now: the first job's
# from STRIDELAB_TORCH_TEST_FAULT, a later one's from its line.
FAULT = {"spec": os.environ.get("STRIDELAB_TORCH_TEST_FAULT", "")}


def atomic_write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def status(where):
    STATUS["where"] = where
    sys.stderr.write("stridelab-status: %s\n" % where)
    sys.stderr.flush()


def fault_at(index):
    """A fault the tests inject: KIND:RANK:STEP, KIND raise, kill or hang
    (STRIDELAB_TORCH_TEST_FAULT, or a --serve job line's "fault").
    stridelab passes it only from its tests."""
    spec = FAULT["spec"]
    if not spec:
        return
    kind, rank, step = spec.split(":")
    if int(rank) != RANK or int(step) != index:
        return
    if kind == "raise":
        raise RuntimeError("injected fault at step %d" % index)
    if kind == "kill":
        import signal
        os.kill(os.getpid(), signal.SIGKILL)
    if kind == "hang":
        while True:
            time.sleep(1)


# The process groups this worker has made, by (positions, whether the
# group is the world): a --serve worker keeps them for its later jobs.
# Every rank runs the same jobs in the same order, so every rank makes
# the same new groups in the same order, as new_group needs.
GROUPS = {}
# The groups whose collectives warm_up has called: those a later job
# finds here have paid their first calls already.
WARM = set()


def join(dist, job):
    """Joins torch.distributed (gloo); returns groups(dist, job).
    calibrate.py joins the same way."""
    status("init: joining torch.distributed (gloo) at %s:%s" % (os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")))
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=job["timeout_s"]))
    return groups(dist, job)


def groups(dist, job):
    """Makes one process group per group of devices along each mesh dim of
    an n-D mesh (a 1-D mesh uses the world), every rank every group in the
    job's order, each the first time a job names it (GROUPS). Returns, per
    mesh dim, this rank's group (its positions), its process group (None:
    the world) and its key in GROUPS."""
    mine = {}
    for m, gs in enumerate(job["groups"]):
        for g in gs:
            world = not (len(job["mesh"]) > 1 and len(g) > 1)
            key = (tuple(sorted(g)), world)
            if key not in GROUPS:
                GROUPS[key] = None if world else dist.new_group(g)
            if RANK in g:
                mine[m] = (g, GROUPS[key], key)
    return mine


def make_collective(torch, dist, mine):
    """Returns collective(c, t): one boxing step c along its mesh dim
    c["mesh_dim"], as sbp's simulated collective does it, on this rank's
    tensor t, in this rank's group of mine (join's). calibrate.py times
    its points through the same function, so a calibration measures what
    a run does."""
    from ops import IDENTITY as identity, full, numel, pad_part, part_range  # beside this file
    f32 = torch.float32
    reduce_op = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN}

    def collective(c, t):
        """One boxing step along mesh dim c["mesh_dim"], as sbp's simulated
        collective does it, on this rank's tensor t. Returns the new
        tensor and what was measured."""
        kind, x, y = c["collective"], c["x"], c["y"]
        g, pg, _ = mine[c["mesh_dim"]]
        k, ci = len(g), g.index(RANK)
        before = [c["before"][q] for q in g]
        rec = {"ran": "local", "handed": 0, "send": 0, "recv": 0, "note": "", "call_seconds": 0.0}
        e = t.element_size()
        if kind == "all-gather":
            a = x["axis"]
            sizes = [s[a] for s in before]
            big = max(sizes)
            rec["ran"] = "all_gather" if k > 1 else "none"
            if k == 1:
                out = t.clone()
            elif sum(numel(s) for s in before) == 0:  # the same on every rank of the group: nothing to move
                out = torch.empty(tuple(c["after"][RANK]), dtype=f32)
            else:
                pad = list(t.shape)
                pad[a] = big - sizes[ci]
                padded = torch.cat([t, full(pad, 0.0)], dim=a) if pad[a] else t.contiguous()
                got = [torch.empty_like(padded) for _ in g]
                c0 = time.perf_counter()
                dist.all_gather(got, padded, group=pg)
                rec["call_seconds"] = time.perf_counter() - c0
                pieces = [p.narrow(a, 0, n) for p, n in zip(got, sizes)]
                out = torch.cat(pieces, dim=a).contiguous()
                rec["handed"] = padded.numel() * e
                rec["send"] = t.numel() * e * (k - 1)
                rec["recv"] = sum(p.numel() for i, p in enumerate(pieces) if i != ci) * e
                if len(set(sizes)) > 1:
                    rec["note"] = "all_gather takes equal tensors: the shards (%s along axis %d) went padded to %d and were trimmed; the bytes counted are the shards'" % (
                        ",".join(map(str, sizes)), a, big)
        elif kind in ("all-reduce", "reduce-scatter"):
            out = t.clone()
            s = out.numel()
            if k > 1 and s > 0:
                c0 = time.perf_counter()
                dist.all_reduce(out, op=reduce_op[x["op"]], group=pg)
                rec["call_seconds"] = time.perf_counter() - c0
                # The plan counts an all-reduce as a ring: a reduce-scatter
                # of BalancedSplit(s, k) parts, then an all-gather of them.
                p = part_range(s, k, ci)
                part = p[1] - p[0]
                rec["handed"] = s * e
                rec["send"] = rec["recv"] = (s - part + (k - 1) * part) * e
            rec["ran"] = "all_reduce" if k > 1 else "none"
            if kind == "reduce-scatter":
                b = y["axis"]
                lo, hi = part_range(out.shape[b], k, ci)
                out = out.narrow(b, lo, hi - lo).contiguous()
                if k > 1:
                    rec["ran"] = "all_reduce+slice"
                    rec["note"] = "reduce-scatter done as all_reduce + slice: gloo has no reduce_scatter"
        elif kind == "all-to-all":
            a, b = x["axis"], y["axis"]
            ranges = [part_range(t.shape[b], k, q) for q in range(k)]
            pieces = [t.narrow(b, lo, hi - lo).reshape(-1) for lo, hi in ranges]
            lo, hi = ranges[ci]
            shapes = []
            for s in before:
                s = list(s)
                s[b] = hi - lo
                shapes.append(s)
            out_splits = [numel(s) for s in shapes]
            in_splits = [p.numel() for p in pieces]
            rec["ran"] = "all_to_all_single" if k > 1 else "none"
            if k == 1:
                got = torch.cat(pieces)
            else:
                inp = torch.cat(pieces)
                got = torch.empty(sum(out_splits), dtype=f32)
                if sum(numel(s) for s in before) > 0:  # the same on every rank of the group
                    c0 = time.perf_counter()
                    dist.all_to_all_single(got, inp, out_splits, in_splits, group=pg)
                    rec["call_seconds"] = time.perf_counter() - c0
                rec["handed"] = inp.numel() * e
                rec["send"] = sum(n for q, n in enumerate(in_splits) if q != ci) * e
                rec["recv"] = sum(n for q, n in enumerate(out_splits) if q != ci) * e
            parts = [p.reshape(tuple(s)) for p, s in zip(got.split(out_splits), shapes)]
            out = torch.cat(parts, dim=a).contiguous()
        elif kind == "local-slice":
            b = y["axis"]
            lo, hi = part_range(t.shape[b], k, ci)
            out = t.narrow(b, lo, hi - lo).contiguous()
        elif kind == "local-zero":
            out = t.clone() if ci == 0 else full(t.shape, identity[y["op"]])
        elif kind == "local-pad":
            a = x["axis"]
            out = pad_part(t, a, [s[a] for s in before], ci, y["op"])
        else:
            raise ValueError("unknown collective %r" % kind)
        want = c["after"][RANK]
        if list(out.shape) != want:
            raise RuntimeError("%s ended with shape %s but the plan's shard is %s" % (kind, list(out.shape), want))
        return out, rec

    return collective


def timed(dist, run, times):
    """Calls run() times times, each after a barrier of the whole world,
    timed alone from the barrier to its return, and returns each call's
    seconds and what it returned. The worker times a boxing's collective
    again this way, calibrate.py its points."""
    out = []
    for _ in range(times):
        dist.barrier()
        c0 = time.perf_counter()
        got = run()
        out.append((time.perf_counter() - c0, got))
    return out


def median(v):
    """The middle of v (the mean of the two middles for an even count), as
    stridelab's calibration takes a point."""
    s = sorted(v)
    h = len(s) // 2
    return s[h] if len(s) % 2 else (s[h - 1] + s[h]) / 2


def warm_up(torch, dist, mine):
    """Runs each collective a boxing may call once on a tiny tensor, in
    this rank's group along every mesh dim, then a barrier: the first
    call of each pays costs of its own (calibrate.py discards its first
    run for the same reason), and they belong to the setup, not to the
    plan's first boxing of that kind. A group warmed for an earlier job
    (WARM) is not warmed again; every rank of a group agrees on that."""
    status("init: warming up the collectives")
    for m in sorted(mine):
        g, pg, key = mine[m]
        k = len(g)
        if k < 2 or key in WARM:
            continue
        WARM.add(key)
        one = torch.zeros(1)
        dist.all_gather([torch.empty_like(one) for _ in g], one, group=pg)
        dist.all_reduce(one, group=pg)
        dist.all_to_all_single(torch.empty(k), torch.zeros(k), group=pg)
    dist.barrier()


def main():
    """Imports torch, joins the world and runs JOB; with --serve, then
    each job its stdin names, in the same world, until its stdin ends."""
    global JOB
    t_start = time.perf_counter()
    status("importing torch")
    import numpy as np
    import torch
    import torch.distributed as dist
    import ops  # beside this file: imported now, so a --serve worker's later jobs need nothing of its first job's folder

    torch.set_num_threads(1)
    job = read_job()
    t0 = time.perf_counter()
    mine = join(dist, job)
    warm_up(torch, dist, mine)
    setup = {"import_seconds": t0 - t_start, "init_seconds": time.perf_counter() - t0}
    seq = 1
    while True:
        run_job(np, torch, dist, job, mine, setup)
        if not SERVE:
            break
        sys.stderr.write("stridelab-idle: %d\n" % seq)
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            break
        # A later job: its setup is reading it and making (and warming
        # up) the groups no earlier job made; the import and the world's
        # start were the first job's.
        t0 = time.perf_counter()
        msg = json.loads(line)
        JOB, FAULT["spec"], seq = msg["job"], msg.get("fault", ""), msg["seq"]
        os.chdir(JOB)
        status("init: job %d's groups" % seq)
        job = read_job()
        mine = groups(dist, job)
        warm_up(torch, dist, mine)
        setup = {"import_seconds": 0.0, "init_seconds": time.perf_counter() - t0}
    dist.destroy_process_group()


def read_job():
    """JOB/job.json, whose plans must be float32."""
    with open(os.path.join(JOB, "job.json")) as f:
        job = json.load(f)
    if job["dtype"] != "float32":
        raise ValueError("this worker runs float32 plans, not %s" % job["dtype"])
    return job


def run_job(np, torch, dist, job, mine, setup):
    """Runs job's steps in the world joined, this rank's groups mine
    (groups'), and writes its saved shards and its report, setup's
    seconds in it; returns once every rank has."""
    import ops  # beside this file: what the ops' expressions call (reduce_to, mean_to, softmax, matmul, UNARY, F32, DEV)
    f32 = torch.float32
    report = {"position": RANK, "pid": os.getpid(), "steps": []}
    report.update(setup)
    helpers = {k: getattr(ops, k) for k in dir(ops) if not k.startswith("_")}
    helpers["torch"] = torch
    compiled = {}

    def run_op(step, ins, a):
        """The op on this rank's shards ins: the expression the plan spelled
        for this rank (the Local spelling of sbp's table of ops, as a file
        --emit torch writes spells it), evaluated with x the inputs."""
        code = compiled.get(a["expr"])
        if code is None:
            code = compiled[a["expr"]] = compile(a["expr"], "<%s %s>" % (step["op"], step["name"]), "eval")
        return eval(code, helpers, {"x": ins})

    collective = make_collective(torch, dist, mine)

    def time_again(c, t):
        """Times collective c on t job["time_runs"] more times, as
        calibrate.py times its points (timed). collective never writes t,
        and these runs' outputs are dropped at once, so the step's value
        and bytes are the first call's. Returns each run's time and its
        time in the library's call."""
        runs = timed(dist, lambda: collective(c, t)[1], job.get("time_runs", 0))
        return [s for s, _ in runs], [rec["call_seconds"] for _, rec in runs]

    inputs = np.load(os.path.join(JOB, "in", "%d.npz" % RANK))
    vals = {}
    for step in job["steps"]:
        i, name, kind = step["index"], step["name"], step["kind"]
        what = "%s %s" % (kind, name)
        collectives = step.get("collectives") or []
        if kind == "boxing":
            what += " (%s)" % (" + ".join(c["collective"] for c in collectives) or "none")
        elif kind == "op":
            op = step["op"] + (" " + step["reduce"] if step["op"] == "reduce" else "")
            what += " = %s %s" % (op, " ".join(step["reads"]))
        status("step %d: %s" % (i, what))
        fault_at(i)
        t0, waited = time.perf_counter(), 0.0
        rec = {"index": i, "collectives": []}
        if kind == "input":
            a = inputs["%d" % i]
            # ids (int32 in the file) index as int64, torch's index dtype
            out = torch.from_numpy(a).to(f32 if a.dtype.kind == "f" else torch.int64)
        elif kind == "op":
            a = step["args"][RANK]
            ins = [vals[r] for r in step["reads"]]
            for n, (x, s) in enumerate(zip(ins, a["in_shapes"])):
                if list(x.shape) != s:
                    raise RuntimeError("input %d of %s holds %s, but the plan's shard is %s" % (n, name, list(x.shape), s))
            out = run_op(step, ins, a)
            if list(out.shape) != a["out_shape"]:
                raise RuntimeError("%s produced %s, but the plan's shard is %s" % (step["op"], list(out.shape), a["out_shape"]))
        elif kind == "boxing":
            out = vals[step["reads"][0]]
            for c in collectives:
                # Every rank enters the collective together: a barrier of
                # the whole world, then the collective alone, timed to its
                # return (gloo's calls on CPU tensors are synchronous: the
                # tensor is whole when the call returns). The barrier's
                # own wait is no part of the step's time.
                b0 = time.perf_counter()
                dist.barrier()
                c0 = time.perf_counter()
                waited += c0 - b0
                t = out
                out, crec = collective(c, t)
                crec["seconds"] = crec["first_seconds"] = time.perf_counter() - c0
                crec["first_call_seconds"] = crec["call_seconds"]
                r0 = time.perf_counter()
                crec["runs"], crec["call_runs"] = time_again(c, t)
                waited += time.perf_counter() - r0
                if crec["runs"]:
                    crec["seconds"] = median(crec["runs"])
                    crec["call_seconds"] = median(crec["call_runs"])
                rec["collectives"].append(crec)
        else:
            raise ValueError("unknown step kind %r" % kind)
        vals[name] = out
        rec["seconds"] = time.perf_counter() - t0 - waited
        report["steps"].append(rec)

    status("writing the shards")
    t0 = time.perf_counter()
    saved, wanted = {}, set(job["save"])
    for step in job["steps"]:
        if step["index"] in wanted:
            saved["%d" % step["index"]] = vals[step["name"]].contiguous().numpy()
    path = os.path.join(JOB, "out", "%d.npz" % RANK)
    with open(path + ".tmp", "wb") as f:
        np.savez(f, **saved)
    os.replace(path + ".tmp", path)
    report["write_seconds"] = time.perf_counter() - t0
    atomic_write(os.path.join(JOB, "report.%d.json" % RANK), json.dumps(report))
    status("done")
    # Every rank leaves together: a rank that left early could break a
    # peer's last collective.
    dist.barrier()


def run(main):
    """Runs main and exits: 0 when it returns, else 1 after writing
    JOB/error.RANK (where the worker was, a tab, the exception's last
    line) and the traceback to stderr. calibrate.py exits the same way."""
    try:
        main()
    except BaseException as exc:  # one line for stridelab, the traceback for stderr
        traceback.print_exc()
        text = str(exc).strip()
        line = type(exc).__name__ + (": " + text.splitlines()[-1] if text else "")
        try:
            atomic_write(os.path.join(JOB, "error.%d" % RANK), "%s\t%s\n" % (STATUS["where"], line))
        except OSError:
            pass
        sys.stderr.flush()
        os._exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    run(main)
