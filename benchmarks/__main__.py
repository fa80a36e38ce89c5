"""Run benchmark entries and print their ratio tables: ``python -m benchmarks [NAME ...]``."""

import argparse
import json
import os

# Candidates share one process: OpenMP threads that spin after each torch op would steal the
# cores from the next candidate's BLAS threads (measured: the MLP step's engine/torch ratio goes
# from 0.8x to 1.3x).  Passive waiting must be chosen before torch is imported.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from benchmarks import (
    autograd_step,
    eager_overhead,
    graph_mode,
    keras_fit,
    tf_conv,
    tf_data,
    tf_frontend,
    tf_function,
    torch_frontend,
    torch_training,
)
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
}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("names", nargs="*", help=f"entries to run (default: all of {', '.join(ENTRIES)})")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved timing rounds per case")
    parser.add_argument("--json", metavar="PATH", help="also write the tables as JSON")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(ENTRIES))
    if unknown:
        parser.error(f"unknown entries {unknown}; choose from {sorted(ENTRIES)}")
    threads = os.environ.get("OMP_NUM_THREADS") or os.environ.get("OPENBLAS_NUM_THREADS") or "default"
    print(f"BLAS threads: {threads} (run with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 for 1-thread figures); "
          f"OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}")
    results = {}
    for name in args.names or ENTRIES:
        title, fn = ENTRIES[name]
        header, rows = fn(rounds=args.rounds)
        print_table(title, header, rows)
        results[name] = {"header": header, "rows": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
