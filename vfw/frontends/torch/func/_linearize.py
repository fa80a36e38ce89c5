"""torch.func.linearize: a function's value and its jacobian-vector product at fixed primals."""

from vfw.frontends.torch.func._grad import jvp


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the derivative of ``func`` at ``primals`` applied to
    ``tangents`` (vfw evaluates it anew on each call, with the same values as torch's)."""
    output, _ = jvp(func, primals, primals)

    def jvp_fn(*tangents):
        return jvp(func, primals, tangents)[1]
    return output, jvp_fn
