"""Data parallelism over MPI: scaling of the MLP training step and all-reduce bandwidth against raw mpi4py.

Issue 11's cases, each process with one BLAS thread:

* the MLP 784-512-512-10 training step (SGD, batch 128 per process): one process (plain model) against
  two processes (DistributedDataParallel, so each step also averages 2.7 MB of gradients); the ratio
  2-process/1-process step time is 1 / scaling efficiency (target efficiency >= 85%: ratio <= 1.18).
  Both are timed in one 2-process job, in interleaved rounds, so a slow spell of the machine lands on
  both: a round of rank 0 stepping alone while rank 1 sleeps, a round of both stepping under DDP, and a
  round of both stepping their plain models at once (no communication: the note's "without
  communication" figure, what running two processes costs by itself on the machine);
* the same 2-process DDP step in real torch (``DistributedDataParallel`` over gloo), for scale;
* all-reduce (sum, float32) of 1, 16 and 64 MB buffers between two processes: vfw's engine process
  group (``ProcessGroup.all_reduce``, in place) against mpi4py's ``Allreduce`` on the same buffers
  (target overhead <= 10%: ratio <= 1.10).

A step's time is the slowest process's; medians throughout.  The processes are started with
``python -m vfw.distributed.run``.  Skipped, with a message, when mpi4py or an MPI launcher is missing
(the torch row when torch is).  ``python -m benchmarks.distributed``.
"""

import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

from benchmarks.timing import print_table

HEADER = ["case", "vfw ms", "baseline ms", "vfw/baseline", "note"]
BATCH = 128
SIZES_MB = (1, 16, 64)
STEPS_PER_ROUND = 5


# -- the worker (runs in every MPI process) -------------------------------------------------------------------
def _median(values):
    values = sorted(values)
    return values[len(values) // 2]


def _mlp(nn):
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def _time_steps(framework, rank, rounds, barrier, idle_barrier, slowest, wrap):
    """``(alone, ddp, both)``: median seconds of an MLP step of rank 0 alone, of both processes under DDP, and
    of both processes stepping their own plain models at once (see the module docstring)."""
    import numpy as np

    framework.manual_seed(0)
    plain, ddp = _mlp(framework.nn), wrap(_mlp(framework.nn))
    rng = np.random.default_rng(rank)
    x = framework.from_numpy(rng.random((BATCH, 784), dtype=np.float32))
    y = framework.from_numpy(rng.integers(0, 10, BATCH))
    optimizers = {model: framework.optim.SGD(model.parameters(), lr=0.01) for model in (plain, ddp)}

    def step(model):
        optimizers[model].zero_grad()
        framework.nn.functional.cross_entropy(model(x), y).backward()
        optimizers[model].step()

    for _ in range(3):
        step(plain)
        step(ddp)
    alone, together = [], {plain: [], ddp: []}
    for _ in range(rounds):
        if rank == 0:
            for _ in range(STEPS_PER_ROUND):
                start = time.perf_counter()
                step(plain)
                alone.append(time.perf_counter() - start)
        idle_barrier()  # rank 1 sleeps meanwhile, leaving rank 0 the machine
        for model in (ddp, plain):
            for _ in range(STEPS_PER_ROUND):
                barrier()
                start = time.perf_counter()
                step(model)
                together[model].append(slowest(time.perf_counter() - start))
    return (_median(alone) if alone else None), _median(together[ddp]), _median(together[plain])


def _vfw_worker(rounds, collectives):
    import numpy as np
    import vfw.torch as torch
    import vfw.torch.distributed as dist
    from vfw.torch.nn.parallel import DistributedDataParallel

    from vfw.core.distributed import world

    dist.init_process_group("mpi")
    group = world()

    def slowest(seconds):
        return float(group.all_reduce(np.array([seconds]), "max")[0])

    def idle_barrier():
        while not group.barrier_within(3600):
            pass

    result = {"steps": _time_steps(torch, group.rank, rounds, group.barrier, idle_barrier, slowest,
                                   DistributedDataParallel)}
    if collectives:
        result["all_reduce"] = _all_reduce_times(group, slowest, rounds)
    return group.rank, result


def _torch_worker(rounds, port):
    import torch
    import torch.distributed as dist

    from vfw.core.distributed.mpi import launcher_environment

    rank, size = launcher_environment()[:2]
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=size)

    def slowest(seconds):
        t = torch.tensor([seconds], dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return float(t)

    def idle_barrier():
        work = dist.barrier(async_op=True)
        while not work.is_completed():
            time.sleep(0.001)

    steps = _time_steps(torch, rank, rounds, dist.barrier, idle_barrier, slowest,
                        torch.nn.parallel.DistributedDataParallel)
    dist.destroy_process_group()
    return rank, {"steps": steps}


def _all_reduce_times(group, slowest, rounds):
    """``{megabytes: (vfw seconds, mpi4py seconds)}``: medians of interleaved rounds."""
    import numpy as np

    comm, mpi = group.comm, group.MPI
    results = {}
    for megabytes in SIZES_MB:
        buffer = np.ones(megabytes * 2 ** 20 // 4, np.float32)
        candidates = {"vfw": lambda b=buffer: group.all_reduce(b, "sum", out=b),
                      "mpi4py": lambda b=buffer: comm.Allreduce(mpi.IN_PLACE, b, mpi.SUM)}
        samples = {name: [] for name in candidates}
        for _ in range(rounds + 1):  # the first round warms up
            for name, run in candidates.items():
                group.barrier()
                start = time.perf_counter()
                run()
                samples[name].append(slowest(time.perf_counter() - start))
        results[megabytes] = tuple(_median(samples[name][1:]) for name in candidates)
    return results


def worker(out_path, mode, rounds, port):
    rank, result = _torch_worker(rounds, port) if mode == "torch" else _vfw_worker(rounds, mode == "collectives")
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump(result, f)
    if mode == "torch":
        # torch 2.13's gloo sometimes aborts in its teardown at interpreter exit ("terminate called without an
        # active exception", about one run in five) after the results are written: leave without it.
        sys.stdout.flush()
        os._exit(0)


# -- the driver -------------------------------------------------------------------------------------------------
def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _launch(mode, rounds):
    environment = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                       VFW_DISTRIBUTED_TIMEOUT="120")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    environment["PYTHONPATH"] = root + os.pathsep + environment.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "result.json")
        done = subprocess.run([sys.executable, "-m", "vfw.distributed.run", "--nproc", "2", "-m",
                               "benchmarks.distributed", "--worker", out, mode, str(rounds), str(_free_port())],
                              env=environment, cwd=root, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"2-process {mode} run failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
        with open(out) as f:
            return json.load(f)


def _missing():
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed (pip install 'vfw[distributed]')"
    from vfw.distributed.run import find_launcher

    try:
        find_launcher()
    except SystemExit as e:
        return str(e)
    return None


def run_benchmark(rounds=15, quick=False):
    """Rows ``[case, vfw ms, baseline ms, vfw/baseline, note]`` (see the module docstring)."""
    missing = _missing()
    if missing:
        return HEADER, [["skipped", "", "", "", missing]]
    rounds = 2 if quick else max(5, rounds)
    vfw = _launch("collectives", rounds)
    alone, ddp, both = vfw["steps"]
    rows = [[f"MLP 784-512-512-10 step, batch {BATCH} per process: 2 processes (DDP) vs 1", round(ddp * 1e3, 2),
             round(alone * 1e3, 2), round(ddp / alone, 3),
             f"scaling efficiency {alone / ddp:.0%} (target >= 85%); without communication {alone / both:.0%}"]]
    if importlib.util.find_spec("torch") is not None and not quick:
        t_alone, t_ddp, t_both = _launch("torch", rounds)["steps"]
        rows.append(["MLP step, 2 processes (DDP): vfw vs torch (gloo)", round(ddp * 1e3, 2), round(t_ddp * 1e3, 2),
                     round(ddp / t_ddp, 3), f"torch's scaling efficiency {t_alone / t_ddp:.0%}, without "
                     f"communication {t_alone / t_both:.0%}"])
    for megabytes, (vfw_s, raw_s) in sorted(vfw["all_reduce"].items(), key=lambda kv: int(kv[0])):
        rows.append([f"all_reduce {megabytes} MB float32, 2 processes: vfw vs mpi4py", round(vfw_s * 1e3, 3),
                     round(raw_s * 1e3, 3), round(vfw_s / raw_s, 3),
                     f"{int(megabytes) / 1024 / vfw_s:.2f} vs {int(megabytes) / 1024 / raw_s:.2f} GB/s "
                     f"(target overhead <= 10%)"])
    return HEADER, rows


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        print_table("Data parallelism over MPI: MLP step scaling, all-reduce vs raw mpi4py", *run_benchmark())
