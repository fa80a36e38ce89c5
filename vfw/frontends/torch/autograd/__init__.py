"""torch.autograd: backward, grad, custom Functions, gradient-mode switches, functional, gradcheck, anomaly mode,
``graph`` (saved-tensor hook contexts)."""

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch.autograd import anomaly_mode, function, functional, graph  # noqa: F401
from vfw.frontends.torch.autograd._engine import backward, grad  # noqa: F401
from vfw.frontends.torch.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from vfw.frontends.torch.autograd.function import Function, FunctionCtx, once_differentiable  # noqa: F401
from vfw.frontends.torch.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from vfw.frontends.torch.autograd.gradcheck import gradcheck, gradgradcheck  # noqa: F401  (the function, not the module)


class Variable:
    """Deprecated torch.autograd.Variable: ``Variable(t)`` returns ``t``."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if volatile:
            warn_for_user("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning)
        if requires_grad:
            data.requires_grad_(True)
        return data


from vfw.frontends.torch.autograd import forward_ad, profiler, profiler_util  # noqa: E402,F401
