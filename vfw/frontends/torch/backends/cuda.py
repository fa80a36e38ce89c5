"""torch.backends.cuda: not built; the matmul flags scripts set are kept, and the attention kernel flags."""

import contextlib

from vfw.frontends._warnings import warn_for_user


class _MatmulFlags:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    return False


# -- scaled dot-product attention kernel flags (torch.nn.attention.sdpa_kernel sets them) -------------------------
sdp_flags = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True, "overrideable": True}


def _flag_functions(flag):
    def enabled():
        return sdp_flags[flag]

    def enable(enabled_now):
        sdp_flags[flag] = bool(enabled_now)

    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _flag_functions("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _flag_functions("mem_efficient")
math_sdp_enabled, enable_math_sdp = _flag_functions("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _flag_functions("cudnn")


def check_sdp_backend(query, key, value, dropout_p):
    """Raise torch's CPU errors when the enabled kernels cannot run this call: neither math nor flash enabled, or
    only flash, whose CPU kernel needs 4-d inputs of one last dimension and no dropout (warning why, as torch)."""
    if sdp_flags["math"]:
        return
    if not sdp_flags["flash"]:
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    dims = (query.dim(), key.dim(), value.dim())
    reason = None
    if dims != (4, 4, 4):
        reason = (f"All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: "
                  f"{dims[0]}, Key dim: {dims[1]}, Value dim: {dims[2]} instead.")
    elif not query.shape[-1] == key.shape[-1] == value.shape[-1]:
        reason = (f"Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): "
                  f"{query.shape[-1]}, Key.size(-1): {key.shape[-1]}, Value.size(-1): {value.shape[-1]} instead.")
    elif dropout_p > 0:
        reason = "Both fused kernels do not support non-zero dropout."
    if reason is not None:
        warn_for_user("Flash attention kernel not used because:", UserWarning)
        warn_for_user(reason, UserWarning)
        raise RuntimeError("No available kernel.  Aborting execution.")


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """Deprecated form of ``torch.nn.attention.sdpa_kernel`` (FutureWarning): set the four flags inside it."""
    warn_for_user("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning)
    saved = dict(sdp_flags)
    sdp_flags.update(flash=bool(enable_flash), math=bool(enable_math), mem_efficient=bool(enable_mem_efficient),
                     cudnn=bool(enable_cudnn))
    try:
        yield {}
    finally:
        sdp_flags.update(saved)
