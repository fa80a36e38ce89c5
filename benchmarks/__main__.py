"""Run benchmark entries and print their ratio tables: ``python -m benchmarks [NAME ...]``.

After the entries' own tables comes one combined table (vfw time, reference time, ratio, and the
target of ``benchmarks/targets.py`` with whether it is met); ``--json``/``--png`` save it.
"""

import argparse
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

# Candidates share one process: OpenMP threads that spin after each torch op would steal the
# cores from the next candidate's BLAS threads (measured: the MLP step's engine/torch ratio goes
# from 0.8x to 1.3x).  Passive waiting must be chosen before torch is imported.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from benchmarks import (
    autograd_step,
    distributed,
    eager_overhead,
    graph_mode,
    keras_fit,
    onnx_runtime,
    tf_conv,
    tf_data,
    tf_frontend,
    tf_function,
    torch_frontend,
    torch_training,
)
from benchmarks.machine import describe
from benchmarks.report import COMBINED_HEADER, combined_rows, print_combined, write_png
from benchmarks.timing import print_table

ENTRIES = {
    "eager_overhead": ("Eager per-op overhead (engine vs numpy vs torch eager)", eager_overhead.run_benchmark),
    "autograd_step": ("Forward+backward steps (engine autograd vs torch eager)", autograd_step.run_benchmark),
    "graph_mode": ("Graph mode (vfw.core.graph.function traced vs eager vs torch eager)", graph_mode.run_benchmark),
    "torch_frontend": ("vfw.torch per-call overhead vs real torch", torch_frontend.run_benchmark),
    "torch_training": ("vfw.torch training steps (nn + optim) vs real torch", torch_training.run_benchmark),
    "tf_conv": ("vfw.tensorflow tf.nn convolution and pooling steps vs real TF", tf_conv.run_benchmark),
    "tf_function": ("vfw.tensorflow tf.function (traced training step, control flow) vs real TF",
                    tf_function.run_benchmark),
    "tf_frontend": ("vfw.tensorflow per-op overhead vs real TF eager", tf_frontend.run_benchmark),
    "tf_data": ("vfw.tensorflow tf.data pipelines vs real TF (one pass)", tf_data.run_benchmark),
    "keras_fit": ("keras Model.fit epoch time, vfw.tensorflow vs real Keras/TF", keras_fit.run_benchmark),
    "onnx_runtime": ("ONNX inference: vfw.onnx_io (imported graph) vs onnxruntime", onnx_runtime.run_benchmark),
    "distributed": ("Data parallelism over MPI: MLP step scaling, all-reduce vs raw mpi4py", distributed.run_benchmark),
}


# Environment variables that fix the thread count of numpy's BLAS, torch and TF: read when they load.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "TF_NUM_INTRAOP_THREADS",
                    "TF_NUM_INTEROP_THREADS")
QUICK_ROUNDS = 2


def _rerun_with_threads(threads, argv):
    """Run this command again in a child process whose environment sets ``threads`` threads everywhere.

    The libraries are already loaded here (their thread pools sized), so only a fresh process can
    change them.  Returns the child's exit status.
    """
    env = _child_environment(**{name: str(threads) for name in THREAD_VARIABLES})
    return subprocess.run([sys.executable, "-m", "benchmarks", *argv], env=env).returncode


def _child_environment(**settings):
    """This process's environment with ``settings``, finding this package from any directory."""
    env = dict(os.environ, **settings)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    return env


def _run_entry_isolated(name, rounds, quick):
    """:func:`_run_entry` in a fresh Python process: one entry's allocations, caches and thread pools (real
    torch's after a 1000x1000 add, say) must not slow the next entry's candidates (measured: vfw.torch's
    fwd+bwd step 62 us alone, 100-240 us after the eager-overhead entry in the same process)."""
    title = ENTRIES[name][0]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "entry.json")
        argv = [name, "--rounds", str(rounds), "--entry-json", path] + (["--quick"] if quick else [])
        done = subprocess.run([sys.executable, "-m", "benchmarks", *argv], env=_child_environment(),
                              capture_output=True, text=True)
        print(done.stdout, end="")
        print(done.stderr, end="", file=sys.stderr)
        code = done.returncode
        if not os.path.exists(path):
            print(f"\n{title}\nFAILED: the entry's process exited with status {code}")
            return {"title": title, "error": f"the entry's process exited with status {code}"}
        with open(path) as f:
            return json.load(f)


def _run_entry(name, rounds, quick):
    """An entry's ``{"title", "header", "rows"}``, or ``{"title", "error"}`` when it raised."""
    title, fn = ENTRIES[name]
    kwargs = {"quick": True} if quick and "quick" in inspect.signature(fn).parameters else {}
    try:
        header, rows = fn(rounds=rounds, **kwargs)
    except Exception as error:  # one broken entry must not hide the others' figures
        traceback.print_exc()
        print(f"\n{title}\nFAILED: {type(error).__name__}: {error}")
        return {"title": title, "error": f"{type(error).__name__}: {error}"}
    print_table(title, header, rows)
    return {"title": title, "header": header, "rows": rows}


def main(argv=None):
    """Run the entries; return the exit status (1 when an entry failed)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("names", nargs="*", help=f"entries to run (default: all of {', '.join(ENTRIES)})")
    parser.add_argument("--rounds", type=int, help="interleaved timing rounds per case (default 15, --quick 2)")
    parser.add_argument("--quick", action="store_true", help="a fast pass: few rounds, small cases")
    parser.add_argument("--threads", type=int, metavar="N",
                        help="run numpy's BLAS, torch and TF on N threads (re-runs the command with " +
                        "/".join(THREAD_VARIABLES) + " set)")
    parser.add_argument("--json", metavar="PATH", help="also write the tables, the combined table and the machine "
                        "description as JSON")
    parser.add_argument("--png", metavar="PATH", help="also write a bar chart of the ratios (needs matplotlib)")
    parser.add_argument("--entry-json", metavar="PATH", help=argparse.SUPPRESS)  # a child running one entry
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(ENTRIES))
    if unknown:
        parser.error(f"unknown entries {unknown}; choose from {sorted(ENTRIES)}")
    if args.threads is not None and any(os.environ.get(name) != str(args.threads) for name in THREAD_VARIABLES):
        return _rerun_with_threads(args.threads, argv)
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else 15)
    if args.entry_json:
        (name,) = args.names
        result = _run_entry(name, rounds, args.quick)
        with open(args.entry_json, "w") as f:
            json.dump(result, f)
        return 1 if "error" in result else 0
    threads = os.environ.get("OMP_NUM_THREADS") or os.environ.get("OPENBLAS_NUM_THREADS") or "default"
    print(f"BLAS threads: {threads} (--threads 1 for 1-thread figures); "
          f"OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}; rounds: {rounds}{' (quick)' if args.quick else ''}")
    settings = {"threads": threads, "rounds": rounds, "quick": args.quick, "date": time.strftime("%Y-%m-%d %H:%M %Z"),
                "load_average_at_start": os.getloadavg() if hasattr(os, "getloadavg") else None}
    names = args.names or list(ENTRIES)
    run = _run_entry if len(names) == 1 or args.quick else _run_entry_isolated  # --quick: only checks it runs
    results = {name: run(name, rounds, args.quick) for name in names}
    combined, notes = combined_rows(results)
    print_combined(combined, notes)
    failed = [name for name, result in results.items() if "error" in result]
    if failed:
        print(f"FAILED entries: {', '.join(failed)}")
    machine = describe()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"settings": settings, "machine": machine, "entries": results,
                       "combined": {"header": COMBINED_HEADER, "rows": combined, "notes": notes}}, f, indent=2)
    if args.png:
        title = (f"vfw / reference time, {settings['date']}, {machine['cpu']} ({machine['cores']} cores), "
                 f"threads: {threads}{', quick' if args.quick else ''}")
        if write_png(combined, args.png, title):
            print(f"wrote {args.png}")
        else:
            print(f"--png {args.png}: matplotlib is not installed (pip install matplotlib); no chart written")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
