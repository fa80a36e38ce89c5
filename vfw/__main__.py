"""Command line: ``python -m vfw run ...`` (unmodified scripts on vfw) and ``python -m vfw coverage ...``."""

import sys

USAGE = """\
usage: python -m vfw run [--as FRAMEWORK]... (script.py | -m module) [args ...]
       python -m vfw coverage [--framework torch|tensorflow] [--format md|json]

run       run a script written for PyTorch, TensorFlow or Keras with its
          `import torch` / `import tensorflow` / `import keras` served by vfw;
          FRAMEWORK is torch, tensorflow or keras (repeat --as or separate
          names by commas; default: all of them)
coverage  list which public callables of the real frameworks vfw provides
"""


def _usage_error(message):
    print(USAGE, file=sys.stderr, end="")
    print(f"python -m vfw: error: {message}", file=sys.stderr)
    return 2


def _run_command(argv):
    """Parse ``run`` arguments by hand: everything after the script (or ``-m module``) belongs to it."""
    from vfw import _runner, _serving

    frameworks = []
    position = 0
    while position < len(argv) and argv[position].startswith("-"):
        option = argv[position]
        if option in ("-h", "--help"):
            print(USAGE, end="")
            return 0
        if option == "-m":
            if position + 1 == len(argv):
                return _usage_error("-m needs a module name")
            target, args, as_module = argv[position + 1], argv[position + 2:], True
            break
        if option == "--as" or option.startswith("--as="):
            value = option[len("--as="):] if option.startswith("--as=") else None
            if value is None:
                if position + 1 == len(argv):
                    return _usage_error("--as needs a framework name")
                position += 1
                value = argv[position]
            frameworks += [name.strip() for name in value.split(",") if name.strip()]
            position += 1
            continue
        if option == "--":
            position += 1
            if position == len(argv):
                return _usage_error("run needs a script or -m module")
            target, args, as_module = argv[position], argv[position + 1:], False
            break
        return _usage_error(f"unknown option {option!r} for run")
    else:
        if position == len(argv):
            return _usage_error("run needs a script or -m module")
        target, args, as_module = argv[position], argv[position + 1:], False
    unknown = [name for name in frameworks if name not in _serving.FRAMEWORKS]
    if unknown:
        return _usage_error(f"--as {unknown[0]!r}: expected one of {', '.join(sorted(_serving.FRAMEWORKS))}")
    return _runner.run(target, args, frameworks or sorted(_serving.FRAMEWORKS), as_module=as_module)


def main(argv=None):
    """Entry point of ``python -m vfw``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "run":
        return _run_command(rest)
    if command == "coverage":
        from vfw._coverage.report import main as coverage_main
        return coverage_main(rest)
    return _usage_error(f"unknown command {command!r}")


if __name__ == "__main__":
    sys.exit(main())
