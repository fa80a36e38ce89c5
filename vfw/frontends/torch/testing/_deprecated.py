"""``torch.testing.assert_allclose``: the pre-1.12 comparison, kept by torch as a deprecated alias of
``assert_close`` with its old defaults (dtypes not compared, NaNs equal, ``expected`` converted to
``actual``'s dtype)."""

import warnings

from vfw.frontends.torch.testing._comparison import assert_close

__all__ = ["assert_allclose"]

# The old function's own defaults (rtol, atol): other dtypes compare exactly.
_PRECISIONS = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated: ``assert_close`` with ``check_dtype=False`` and NaNs compared equal by default.

    Parameters
    ----------
    actual, expected : Tensor or array-like
    rtol, atol : float, optional
        Both or neither; by default the larger of the two dtypes' old defaults (float16 1e-3/1e-3, float32
        1e-4/1e-5, float64 1e-5/1e-8; others exact).
    equal_nan : bool
    msg : str
        Replaces the mismatch message when not empty.
    """
    from vfw.frontends.torch import _creation
    from vfw.frontends.torch._tensor import Tensor

    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = _creation.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = _creation.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_PRECISIONS.get(str(t.array.dtype), (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)
