"""torch.nn.attention: ``SDPBackend`` and ``sdpa_kernel``, which restricts the kernels
``F.scaled_dot_product_attention`` may use.

vfw has one attention computation (the math one). On CPU torch runs the math kernel or its CPU flash kernel, so
a selection holding ``MATH`` or ``FLASH_ATTENTION`` runs and any other selection makes the call raise torch's
"No viable backend" RuntimeError. The flags are those of ``torch.backends.cuda`` (``flash_sdp_enabled()``...).
"""

import contextlib
import enum

from vfw.frontends.torch._enum_types import CEnumType
from vfw.frontends.torch.backends import cuda as _cuda

__all__ = ["SDPBackend", "WARN_FOR_UNFUSED_KERNELS", "sdpa_kernel"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum, metaclass=CEnumType):
    """The kernels of scaled dot-product attention (torch's values)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# torch binds the C++ enum as torch.nn.attention._SDPBackend and exports it as SDPBackend (set here, not by
# _type_names, which would rename the members' class too)
SDPBackend.__module__, SDPBackend.__qualname__ = "torch.nn.attention", "_SDPBackend"
_SDPBackend = SDPBackend

_FLAG_OF = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
            SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.CUDNN_ATTENTION: "cudnn",
            SDPBackend.OVERRIDEABLE: "overrideable"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Context manager allowing only ``backends`` (one ``SDPBackend`` or a list) inside it.

    Parameters
    ----------
    backends : SDPBackend or list[SDPBackend]
    set_priority : bool
        Accepted (torch orders its fused kernels by it; vfw has one kernel).
    """
    chosen = [backends] if isinstance(backends, SDPBackend) else list(backends)
    enabled = {_FLAG_OF[b] for b in chosen if b in _FLAG_OF}
    saved = dict(_cuda.sdp_flags)
    _cuda.sdp_flags.update({flag: flag in enabled for flag in saved})
    try:
        yield {}
    finally:
        _cuda.sdp_flags.update(saved)


from vfw.frontends.torch.nn.attention import bias  # noqa: E402,F401  (torch.nn.attention.bias without an import)
