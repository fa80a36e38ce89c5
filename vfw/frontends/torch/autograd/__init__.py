"""torch.autograd: backward, grad, custom Functions and the gradient-mode switches."""

from vfw.frontends.torch.autograd import function  # noqa: F401
from vfw.frontends.torch.autograd._engine import backward, grad  # noqa: F401
from vfw.frontends.torch.autograd.function import Function, FunctionCtx, once_differentiable  # noqa: F401
from vfw.frontends.torch.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)


class Variable:
    """Deprecated torch.autograd.Variable: ``Variable(t)`` returns ``t``."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if requires_grad:
            data.requires_grad_(True)
        return data
