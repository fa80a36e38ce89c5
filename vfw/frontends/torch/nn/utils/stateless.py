"""torch.nn.utils.stateless: the deprecated spelling of ``torch.func.functional_call``."""

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch.func import functional_call as _functional_call

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``torch.func.functional_call``, with torch's FutureWarning."""
    warn_for_user("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in "
                  "a future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
                  "replacement.", FutureWarning)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
