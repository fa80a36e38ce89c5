"""Data parallelism over MPI: scaling of the MLP training step and all-reduce bandwidth against raw mpi4py.

Issue 11's cases, each process with one BLAS thread:

* the MLP 784-512-512-10 training step (SGD, batch 128 per process): one process (plain model) against
  two processes (DistributedDataParallel, so each step also averages 2.7 MB of gradients); the ratio
  2-process/1-process step time is 1 / scaling efficiency (target efficiency >= 85%: ratio <= 1.18);
* all-reduce (sum, float32) of 1, 16 and 64 MB buffers between two processes: vfw's engine process
  group (``ProcessGroup.all_reduce``, in place) against mpi4py's ``Allreduce`` on the same buffers
  (target overhead <= 10%: ratio <= 1.10).

The processes are started with ``python -m vfw.distributed.run``; each case is timed in interleaved
rounds (median), and a step's time is the slowest process's; the 1- and 2-process jobs are launched
alternately, three of each, and each side reports its median.  Skipped, with a message, when mpi4py or
an MPI launcher is missing.  ``python -m benchmarks.distributed``.
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

from benchmarks.timing import print_table

HEADER = ["case", "vfw ms", "baseline ms", "vfw/baseline", "note"]
BATCH = 128
SIZES_MB = (1, 16, 64)
LAUNCHES = 3


# -- the worker (runs in every MPI process) -------------------------------------------------------------------
def _slowest(group, seconds):
    import numpy as np

    return float(group.all_reduce(np.array([seconds]), "max")[0])


def _median(values):
    values = sorted(values)
    return values[len(values) // 2]


def _mlp_step(distributed, steps):
    """Seconds per MLP training step (the slowest process's), DDP-wrapped when ``distributed``."""
    import numpy as np
    import vfw.torch as torch
    from vfw.torch.nn.parallel import DistributedDataParallel

    from vfw.core.distributed import world

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                torch.nn.ReLU(), torch.nn.Linear(512, 10))
    if distributed:
        model = DistributedDataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(world().rank)
    x = torch.from_numpy(rng.random((BATCH, 784), dtype=np.float32))
    y = torch.from_numpy(rng.integers(0, 10, BATCH))

    def step():
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()

    for _ in range(3):
        step()
    times = []
    for _ in range(steps):
        world().barrier()
        start = time.perf_counter()
        step()
        times.append(_slowest(world(), time.perf_counter() - start))
    return _median(times)


def _all_reduce_times(rounds):
    """``{megabytes: (vfw seconds, mpi4py seconds)}``: medians of interleaved rounds."""
    import numpy as np

    from vfw.core.distributed import world

    group = world()
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
                samples[name].append(_slowest(group, time.perf_counter() - start))
        results[megabytes] = tuple(_median(samples[name][1:]) for name in candidates)
    return results


def worker(out_path, mode, rounds):
    import vfw.torch.distributed as dist

    from vfw.core.distributed import world

    dist.init_process_group("mpi")
    group = world()
    result = {"step": _mlp_step(group.size > 1, rounds)}
    if mode == "collectives":
        result["all_reduce"] = _all_reduce_times(rounds)
    if group.rank == 0:
        with open(out_path, "w") as f:
            json.dump(result, f)


# -- the driver -------------------------------------------------------------------------------------------------
def _launch(nproc, mode, rounds):
    environment = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                       VFW_DISTRIBUTED_TIMEOUT="120")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    environment["PYTHONPATH"] = root + os.pathsep + environment.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "result.json")
        done = subprocess.run([sys.executable, "-m", "vfw.distributed.run", "--nproc", str(nproc), "-m",
                               "benchmarks.distributed", "--worker", out, mode, str(rounds)],
                              env=environment, cwd=root, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"{nproc}-process run failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
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
    steps = max(5, rounds) if not quick else 5
    # The 1- and 2-process jobs alternate (LAUNCHES pairs, median of each), so a slow spell of the machine
    # lands on both sides rather than on one.
    singles, pairs = [], []
    for launch in range(1 if quick else LAUNCHES):
        singles.append(_launch(1, "step", steps)["step"])
        pair = _launch(2, "collectives" if launch == 0 else "step", steps)
        pairs.append(pair["step"])
        if launch == 0:
            all_reduce = pair["all_reduce"]
    t1, t2 = _median(singles), _median(pairs)
    rows = [[f"MLP 784-512-512-10 step, batch {BATCH} per process: 2 processes (DDP) vs 1", round(t2 * 1e3, 2),
             round(t1 * 1e3, 2), round(t2 / t1, 3), f"scaling efficiency {t1 / t2:.0%} (target >= 85%)"]]
    for megabytes, (vfw_s, raw_s) in sorted(all_reduce.items(), key=lambda kv: int(kv[0])):
        rows.append([f"all_reduce {megabytes} MB float32, 2 processes: vfw vs mpi4py", round(vfw_s * 1e3, 3),
                     round(raw_s * 1e3, 3), round(vfw_s / raw_s, 3),
                     f"{int(megabytes) / 1024 / vfw_s:.2f} vs {int(megabytes) / 1024 / raw_s:.2f} GB/s "
                     f"(target overhead <= 10%)"])
    return HEADER, rows


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        print_table("Data parallelism over MPI: MLP step scaling, all-reduce vs raw mpi4py", *run_benchmark())
