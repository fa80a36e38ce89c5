"""``python -m vfw.onnx_io check|run|info model.onnx``.

* ``info``: IR version, opsets, inputs, outputs, initializers and the op histogram;
* ``run``: run the model (vfw by default, ``--runtime onnxruntime``) and print each output;
* ``check``: run it in vfw and in onnxruntime and print per-output max abs/rel differences
  (exit status 1 when they differ beyond ``--rtol``/``--atol``).

Inputs are generated (``--seed``, ``--dim-size`` for symbolic dims) unless given as
``--input NAME=FILE.npy`` (repeatable).
"""

import argparse
import sys

import numpy as np

from vfw.onnx_io.check import as_model, check, describe, resolve_inputs, run_onnxruntime, run_vfw


def _parse_inputs(pairs):
    feeds = {}
    for pair in pairs or ():
        name, sep, path = pair.partition("=")
        if not sep or not name or not path:
            raise SystemExit(f"--input expects NAME=FILE.npy, got {pair!r}")
        feeds[name] = np.load(path, allow_pickle=False)
    return feeds


def main(argv=None):
    """Entry point; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m vfw.onnx_io", description="Inspect, run and cross-check ONNX "
                                     "models with vfw and onnxruntime.")
    sub = parser.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="inputs, outputs, opsets and op histogram")
    info.add_argument("model")
    for name, text in (("run", "run the model and print its outputs"),
                       ("check", "compare vfw with onnxruntime on the same inputs")):
        p = sub.add_parser(name, help=text)
        p.add_argument("model")
        p.add_argument("--input", action="append", metavar="NAME=FILE.npy", help="an input value (repeatable)")
        p.add_argument("--seed", type=int, default=0, help="seed of generated inputs")
        p.add_argument("--dim-size", type=int, default=2, help="size of symbolic dims of generated inputs")
        if name == "check":
            p.add_argument("--rtol", type=float, default=1e-4)
            p.add_argument("--atol", type=float, default=1e-5)
        else:
            p.add_argument("--runtime", choices=("vfw", "onnxruntime"), default="vfw")
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except Exception as e:  # noqa: BLE001  (a command line reports what went wrong in one line, not a traceback)
        message = str(e).strip().splitlines()[0] if str(e).strip() else ""
        parser.exit(1, f"{parser.prog} {args.command}: {type(e).__name__}: {message}\n")


def _run(args):
    if args.command == "info":
        print(describe(args.model))
        return 0
    model = as_model(args.model)
    given = _parse_inputs(args.input)
    feeds = resolve_inputs(model, given or None, args.seed, args.dim_size)
    if args.command == "check":
        report = check(model, feeds, rtol=args.rtol, atol=args.atol, verbose=True)
        return 0 if report.ok else 1
    runner = run_vfw if args.runtime == "vfw" else run_onnxruntime
    with np.printoptions(threshold=200, edgeitems=3):
        for output, value in zip(model.graph.output, runner(model, feeds)):
            print(f"{output.name}: {value.dtype} {list(value.shape)}")
            print(value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
