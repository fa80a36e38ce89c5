"""torch.compiler: the compile-time switches user code reads (``is_compiling``, ``disable``, ``set_stance``...).

vfw runs compiled code eagerly (``torch.compile`` wraps a function without tracing it), so "compiling" means:
inside a call of a function ``torch.compile`` returned, and not inside a ``disable``-d function called from there.
That is where torch's ``is_compiling()`` answers True while dynamo traces (and the compiled graph keeps that answer).
"""

import contextlib
import functools
import threading

__all__ = ["compile", "assume_constant_result", "reset", "allow_in_graph", "list_backends", "disable",
           "set_stance", "is_compiling", "is_dynamo_compiling", "is_exporting", "cudagraph_mark_step_begin",
           "get_default_backend", "set_default_backend"]

_BACKENDS = ["cudagraphs", "inductor", "openxla", "tvm"]
_STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile", "eager_then_compile",
            "aot_eager_then_compile")


class _CompileState(threading.local):
    compiling = False  # inside a compiled function's call (and not inside a disabled one)
    stance = "default"
    default_backend = "inductor"


_state = _CompileState()


@contextlib.contextmanager
def _compiling(flag):
    saved, _state.compiling = _state.compiling, flag
    try:
        yield
    finally:
        _state.compiling = saved


def compiled_function(fn):
    """Wrap ``fn`` as ``torch.compile`` does for vfw: calls run eagerly with ``is_compiling()`` True,
    except under ``set_stance("force_eager")``."""
    @functools.wraps(fn)
    def compiled(*args, **kwargs):
        if _state.stance not in _STANCES:  # torch accepts any stance name and refuses it when a call runs
            raise RuntimeError(f"invalid torch.compile stance 'DynamoStance(stance='{_state.stance}', "
                               f"skip_guard_eval_unsafe=False, backend=None)'")
        with _compiling(_state.stance != "force_eager"):
            return fn(*args, **kwargs)
    compiled._torchdynamo_orig_callable = fn
    return compiled


def compile(*args, **kwargs):  # noqa: A001  (torch's name)
    """``torch.compile`` (the same function)."""
    from vfw.frontends.torch._config import compile as torch_compile
    return torch_compile(*args, **kwargs)


def is_compiling():
    """bool: True inside a call of a compiled function (vfw: ``torch.compile``'s wrapper), False elsewhere."""
    return _state.compiling


def is_dynamo_compiling():
    """bool: as ``is_compiling()`` (vfw has no tracer other than its compile wrapper)."""
    return _state.compiling


def is_exporting():
    """bool: always False (``torch.export`` in vfw does not run user code under an export flag)."""
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Run ``fn`` outside compilation: ``is_compiling()`` is False inside it. Without ``fn``, a decorator.

    As in torch it is not a context manager (``with disable():`` raises RuntimeError).
    """
    if fn is None:
        return _DisableDecorator(recursive, reason)
    if not callable(fn):
        raise TypeError(f"torch.compiler.disable: expected a callable, got {type(fn).__name__}")

    @functools.wraps(fn)
    def eager(*args, **kwargs):
        with _compiling(False):
            return fn(*args, **kwargs)
    eager._torchdynamo_disable = True
    return eager


class _DisableDecorator:
    """What ``disable()`` without a function returns: a decorator that refuses ``with`` as torch's does."""

    def __init__(self, recursive, reason):
        self.recursive, self.reason = recursive, reason

    def __call__(self, fn):
        return disable(fn, self.recursive, reason=self.reason)

    def __enter__(self):
        raise RuntimeError("torch._dynamo.optimize(...) is used with a context manager. Please refer to "
                           "https://pytorch.org/tutorials/intermediate/torch_compile_tutorial.html to use "
                           "torch._dynamo.optimize(...) as an annotation/decorator. ")

    def __exit__(self, *exc):
        return False


def reset():
    """Clear compilation caches (vfw keeps none); returns None."""


def allow_in_graph(fn):
    """Mark ``fn`` to be put in graphs as is; returns ``fn``."""
    return fn


def assume_constant_result(fn):
    """Mark ``fn``'s result as a constant to compilers (sets ``fn._dynamo_marked_constant``); returns ``fn``."""
    fn._dynamo_marked_constant = True
    return fn


def list_backends(exclude_tags=("debug", "experimental")):
    """list of str: the backend names torch's CPU build lists."""
    return list(_BACKENDS)


def get_default_backend():
    return _state.default_backend


def set_default_backend(backend):
    _state.default_backend = backend


def cudagraph_mark_step_begin():
    """No CUDA graphs on CPU: nothing to mark."""


class set_stance:  # noqa: N801  (torch's name)
    """Set how compiled functions run: a call, a context manager or a decorator (the earlier stance returns on
    exit). ``"force_eager"`` runs compiled functions as plain eager code (``is_compiling()`` False)."""

    def __init__(self, stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
        self.stance = stance
        self.previous = _state.stance
        _state.stance = stance

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.stance = self.previous
        return False

    def __call__(self, fn):
        _state.stance = self.previous  # as a decorator the stance applies only during fn's calls

        @functools.wraps(fn)
        def with_stance(*args, **kwargs):
            saved, _state.stance = _state.stance, self.stance
            try:
                return fn(*args, **kwargs)
            finally:
                _state.stance = saved
        return with_stance

