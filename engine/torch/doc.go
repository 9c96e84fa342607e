// Package torch is the torch engine: a program's plan run by PyTorch's
// torch.distributed, one operating-system process per device, so that
// the bytes a plan counts are moved by a real collective library.
//
// # Overview
//
// [Engine.Run] writes a job to a temporary folder and starts one worker
// per device of the placement (or, with a [Pool], hands the job to the
// workers of an earlier run: see Pools): the interpreter ([FindPython], or
// Options.Python) running the embedded worker.py (beside ops.py, its
// local arithmetic) with
//
//	MASTER_ADDR=127.0.0.1  MASTER_PORT=<a free port>  RANK=<position>  WORLD_SIZE=<devices>
//
// (torchrun is not used: Debian's fails under Python 3.11). Each worker
// joins torch.distributed with gloo, makes one process group per group
// of devices along each mesh dim of an n-D mesh (torch.distributed.
// new_group, every rank making every group in the same order), calls
// each collective once on a tiny tensor in each of its groups (the
// first call's own costs go to the setup, not to a boxing), and runs
// the plan's steps on its own shards:
//
//	input   its shard, as stridelab cut it: balanced uneven splits
//	        (sbp.Shards); a P input as partial values that combine to the
//	        logical one (P(sum): -1, 0 or 1 on the other devices and the
//	        rest on the first; P(max), P(min): the value on the first, the
//	        others below or above it)
//	op      torch ops on its shards, with the per-device arguments of
//	        sbp.PlanOp for the step's input SBPs (expand size, repeat
//	        counts, reduce target), in sbp's arithmetic: float32
//	        elementwise, sums accumulated in float64, matmul as a float32
//	        broadcast product summed in float64
//	boxing  each collective of sbp.PlanBoxing along its mesh dim, within
//	        the group of devices that differ only there: every worker
//	        waits at a barrier of all of them, then runs the collective
//	        and times it alone, to its return; then it runs the same
//	        collective on the same input Options.TimeRuns more times
//	        (DefaultTimeRuns), each after a barrier, timed the same way,
//	        their outputs dropped: the warm time calibrate measures
//
// The collectives map to torch.distributed (Debian's torch 1.13 gloo has
// all_gather, all_reduce, all_to_all_single and broadcast, but no
// reduce_scatter and no list all_to_all):
//
//	all-gather      all_gather; uneven shards padded to the largest, trimmed after
//	all-reduce      all_reduce with SUM, MAX or MIN
//	reduce-scatter  all_reduce, then the device's slice (said in the notes)
//	all-to-all      all_to_all_single with input and output split sizes
//	local-slice, local-zero, local-pad: on the device, no call
//
// A group of one device calls nothing. Each worker measures the tensors
// it hands each collective (package engine's doc says what is counted),
// times each step and each collective (CollectiveReport.FirstTime: from
// the barrier to the collective's return, gloo's calls on CPU tensors
// being synchronous; CollectiveReport.Time, the median of the timed runs
// after it; engine.Times takes the collective's time of the workers' and
// sets it beside the plan's prediction; a step's own time leaves the
// timed runs out), writes the shards of the steps whose values come back
// (every program name and gradient) as .npy files and its report as
// JSON, each to a temporary name renamed when whole. Go reads them,
// assembles the logical values with sbp's shard ranges (partial values
// combined, replicas checked against each other), and removes the job
// folder.
//
// # The job
//
// JOB/job.json holds the placement (mesh, ranks, the groups per mesh
// dim) and the steps in order: for an input its name, shape and SBP;
// for an op the sbp op's name, its own arguments (sbp.Params) and per
// device sbp.PlanOp's shapes and arguments; for a boxing each
// collective with its mesh dim, the SBPs it goes between along it, and
// every device's shard shape before and after. JOB/in/POS.npz holds the
// input shards of the device at position POS (INDEX.npy for the input
// step INDEX), written by npyfile.EncodeNpz; JOB/worker.py, JOB/ops.py
// and JOB/calibrate.py are the embedded scripts (every job folder gets
// all three; calibrate.py imports worker.py's helpers). Every file is
// written whole
// (internal/atomicfile) before a worker starts.
//
// Each worker prints a line "stridelab-status: WHERE" to its stderr
// before it imports torch, joins torch.distributed, runs each step and
// writes its shards: the engine keeps the last one to say where a rank
// was when the run stopped. It writes JOB/out/POS.npz (INDEX.npy for
// each saved step, read back by npyfile.ReadNpz), JOB/report.POS.json,
// and on failure JOB/error.POS (where it was, a tab, the exception's
// last line), each to a temporary name renamed when whole.
//
// # Faults
//
// A run is refused before any process starts when it would pass the
// result budget (planner.Plan.CheckBudget, and per rank every shard and
// receive buffer its worker holds) or when no interpreter imports torch
// ([ErrNoTorch], one line saying what to install), and no worker starts
// once ctx has ended (the error wraps [ErrCancelled], or [ErrTimeout]
// for a deadline, and ctx's error). The search for the interpreter
// ([FindPython]) ends with ctx too, and only an interpreter that passed
// is remembered. Once started, every
// worker runs in a process group of its own (and, on Linux, dies with
// the process that started it). The first worker to fail — a Python
// exception, a signal, torch.distributed failing to start (a port
// taken) — ends the run: the others are killed at once and the *[Error]
// names the rank, its pid, the step it was in and its last error line,
// in one line. Past Options.Timeout (DefaultTimeout, 120 s) every
// worker is killed and the error says which step each rank was in; the
// caller's ctx ending does the same (the CLI ends it on Ctrl-C and on
// SIGTERM). No worker and no job folder outlives Run; with a [Pool], no
// job folder outlives Run and no worker outlives the pool's Close (and
// the runs going on when it is called).
//
// # Pools
//
// A run with Options.Pool hands its workers to the pool once they are
// done, instead of letting them exit: each worker (worker.py with
// --serve) prints "stridelab-idle: SEQ" once every rank has written its
// job's files, and waits on its stdin, torch imported and
// torch.distributed joined. The next run on as many devices, with the
// same interpreter and port and a timeout no longer than the first
// run's (gloo's own timeout, set when the workers joined), writes its
// job folder as any run does and hands each worker one line of JSON,
// {"job": JOB, "fault": …, "seq": SEQ}: the worker reads the job, makes
// the process groups of its mesh that no earlier job made (new_group,
// every rank in the same order, kept for later jobs) and warms up their
// collectives, then runs the steps and writes its files as above. The
// bytes counted and the collectives' times mean what they mean without
// a pool, but the costs a gang's start pays fall on its first run: a
// later run's RankReport.Setup is only its own (its new groups and
// their warm-up, no import and no init_process_group), a note says the
// workers were kept, and a collective's first call (FirstTime) may find
// gloo already warmed at that size by an earlier run. Every fault is a
// run's as above, and ends its gang: the workers are killed, and the
// next run starts new ones; so does a worker that died while it waited.
// The CLI runs one plan a process and uses no pool; the tests share one.
//
// # Calibrating
//
// [Calibrate] starts the same workers (the embedded calibrate.py in
// place of worker.py) to measure this machine's gloo: along each mesh
// dim of the placement, each of all-gather, reduce-scatter (all_reduce +
// slice, as a run does it), all-reduce and all-to-all at sizes of 64 B to
// 64 MiB ([DefaultSizes]), [DefaultRuns] runs each after a warm-up, every
// run the engine's own boxing step (worker.py's make_collective, the
// function a run calls) timed alone after a barrier of all the workers,
// as a run times its collectives again (Options.TimeRuns); a run's time
// is its slowest rank's and a size's the median run. Each worker also
// times a float32 torch.mm and a 64 MiB copy for its device.
// [Calibration.Fit] fits α and β per mesh dim by cluster.Fit, over every
// collective and over each alone, and returns the cluster file's
// cluster: the link over every collective, carrying each collective's own
// fit as its own α and β (cluster.Link.Collectives). Rank 0's status lines ("measure K/TOTAL: …") drive
// CalibrateOptions.Progress.
//
// # Emitting a program for torchrun
//
// Package engine/script writes the same plan as a standalone Python file
// that a user runs with torchrun --nproc_per_node N (gloo on CPUs; NCCL
// and one GPU per process with --device cuda), every step spelled out
// with each rank's arguments and collectives as literals. It holds this
// engine's local arithmetic inline ([OpsPython]), so the file computes
// as the workers do.
//
// # Platform support
//
// Unix, with a Python that has torch.distributed (gloo) and numpy. The
// workers run on this machine's CPUs; the same steps with NCCL run on
// GPUs in the file package engine/script writes, but this engine starts
// only gloo workers.
package torch
