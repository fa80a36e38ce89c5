"""Gradient-mode switches: no_grad, enable_grad, set_grad_enabled, inference_mode.

Each works as a context manager and as a decorator (with or without parentheses
for ``no_grad``/``enable_grad``/``inference_mode``), as in torch.
"""

import functools
import inspect

from vfw.core import autograd
from vfw.frontends.torch import _inference


class _Mode:
    """A context manager that sets the grad mode on entry and restores it on exit."""

    enabled = False

    def __new__(cls, orig_func=None, **kwargs):
        if orig_func is not None and callable(orig_func) and not kwargs and cls is not set_grad_enabled:
            return cls()(orig_func)  # used as a bare decorator: @torch.no_grad
        return super().__new__(cls)

    def __enter__(self):
        self._prev = autograd.is_grad_enabled()
        autograd.set_grad_enabled(self.enabled)
        return None

    def __exit__(self, *exc):
        autograd.set_grad_enabled(self._prev)
        return False

    def clone(self):
        return type(self)()

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen(*args, **kwargs):
                with self.clone():
                    yield from fn(*args, **kwargs)
            return gen

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_Mode):  # noqa: N801  (torch's names)
    """Disable gradient recording inside the block (or the decorated function)."""

    enabled = False

    def __init__(self, orig_func=None):
        pass


class enable_grad(_Mode):  # noqa: N801
    """Enable gradient recording inside the block (or the decorated function)."""

    enabled = True

    def __init__(self, orig_func=None):
        pass


class inference_mode(_Mode):  # noqa: N801
    """Disable gradient recording and make every tensor allocated inside an inference tensor (see
    ``Tensor.is_inference``); ``inference_mode(False)`` leaves grad mode alone and makes normal tensors."""

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self._prev = autograd.is_grad_enabled()
        self._prev_inference = _inference.enter(self.mode)
        if self.mode:
            autograd.set_grad_enabled(False)

    def __exit__(self, *exc):
        _inference.leave(self._prev_inference)
        return super().__exit__(*exc)

    def clone(self):
        return inference_mode(self.mode)


class set_grad_enabled(_Mode):  # noqa: N801
    """Set the grad mode now (plain call) or for a block (context manager / decorator)."""

    def __init__(self, mode):
        self._prev = autograd.is_grad_enabled()
        self.enabled = bool(mode)
        autograd.set_grad_enabled(self.enabled)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        autograd.set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        autograd.set_grad_enabled(self._prev)  # as a decorator it only applies inside the function
        return super().__call__(fn)

    def clone(self):
        return _Scoped(self.enabled)


class _Scoped(_Mode):
    def __init__(self, enabled):
        self.enabled = enabled


def is_grad_enabled():
    """bool: whether ops on tensors that require grad are recorded (this thread)."""
    return autograd.is_grad_enabled()


def is_inference_mode_enabled():
    """bool: whether an ``inference_mode()`` block is active (this thread)."""
    return _inference.state.enabled
