"""``python -m vfw run``: run an unmodified script or module as ``python`` would, with vfw serving the frameworks.

The script sees what ``python script.py [args]`` (or ``python -m module [args]``) gives it: ``sys.argv``,
``__name__ == "__main__"``, an absolute ``__file__``, ``sys.path[0]``, its module as ``sys.modules["__main__"]``
(so pickling its classes works), and the exit status and traceback of an uncaught exception (without
the runner's own frames).
"""

import atexit
import functools
import importlib.machinery
import importlib.util
import os
import runpy
import signal
import sys
import types

from vfw import _serving


def _is_runner_frame(frame):
    return frame.f_globals.get("__name__") in (__name__, "runpy")


def _report_uncaught(error):
    """Print ``error`` as the interpreter prints an uncaught exception, starting at the user's frames."""
    tb = error.__traceback__
    while tb is not None and _is_runner_frame(tb.tb_frame):
        tb = tb.tb_next
    # The interpreter's printer follows the exception's own __traceback__, so trim that too.
    sys.excepthook(type(error), error.with_traceback(tb), tb)


def _exit_by_sigint():
    # What CPython does after an uncaught KeyboardInterrupt, once threads and atexit handlers are done:
    # die of SIGINT so the parent (a shell) sees an interrupted program, not an ordinary failure.
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)


def _exec_as_main(code, **module_attrs):
    """Run ``code`` as the ``__main__`` module (it stays ``sys.modules["__main__"]``, as under python)."""
    main = types.ModuleType("__main__")
    main.__dict__.update(module_attrs, __builtins__=__builtins__)
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def _run_path(path):
    if not os.path.isfile(path):  # a directory or zip file with a __main__.py
        runpy.run_path(path, run_name="__main__")
        return
    file = os.path.join(os.getcwd(), path)  # python makes __file__ absolute without normalising it
    with open(file, "rb") as source:  # compile() honours a coding cookie or BOM in the bytes
        code = compile(source.read(), file, "exec", dont_inherit=True)
    loader = importlib.machinery.SourceFileLoader("__main__", file)
    _exec_as_main(code, __file__=file, __cached__=None, __loader__=loader)


def _run_module(spec):
    _exec_as_main(spec.loader.get_code(spec.name), __file__=spec.origin, __cached__=spec.cached,
                  __loader__=spec.loader, __spec__=spec, __package__=spec.parent)


def _module_spec(name):
    """The spec ``python -m name`` runs (``name.__main__`` for a package), or an error message."""
    try:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations is not None:
            name += ".__main__"
            spec = importlib.util.find_spec(name)
    except ImportError as error:
        return None, f"Error while finding module specification for {name!r} ({type(error).__name__}: {error})"
    if spec is None or spec.loader is None:
        return None, f"No module named {name}"
    return spec, None


def run(target, args, frameworks, as_module=False):
    """Run a script (or, with ``as_module``, a module) with ``frameworks`` served by vfw.

    Parameters
    ----------
    target : str
        Path of the script (a file, or a directory/zip with ``__main__.py``), or the module name.
    args : list of str
        The script's arguments (``sys.argv[1:]``).
    frameworks : sequence of str
        Framework names to serve: ``"torch"``, ``"tensorflow"``, ``"keras"``.
    as_module : bool
        Run ``target`` as ``python -m target`` does.

    Returns
    -------
    int
        The exit status (a ``SystemExit`` raised by the script propagates unchanged).
    """
    # Registered before the script runs, so it runs after every atexit handler the script registers.
    interrupted = []
    atexit.register(lambda: interrupted and _exit_by_sigint())
    _serving.serve(*frameworks)
    if as_module:
        spec, problem = _module_spec(target)
        if spec is None:
            print(f"{sys.executable}: {problem}", file=sys.stderr)
            return 1
        sys.argv = [spec.origin, *args]  # python -m already put the working directory first on sys.path
        start = functools.partial(_run_module, spec)
    else:
        if not os.path.exists(target):
            print(f"{sys.executable}: can't open file {os.path.abspath(target)!r}: [Errno 2] No such file or "
                  "directory", file=sys.stderr)
            return 2
        sys.argv = [target, *args]
        if not sys.flags.safe_path:  # python -P / -I leaves the script's folder off sys.path
            folder = os.path.dirname(os.path.realpath(target)) if os.path.isfile(target) else None
            sys.path[0:1] = [folder] if folder else []  # run_path adds a directory/zip itself
        start = functools.partial(_run_path, target)
    try:
        start()
    except SystemExit:
        raise
    except BaseException as error:  # noqa: B036 - the interpreter reports every uncaught exception
        _report_uncaught(error)
        if isinstance(error, KeyboardInterrupt) and os.name == "posix":
            interrupted.append(True)
        return 1
    return 0
