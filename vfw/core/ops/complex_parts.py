"""Elementwise complex helpers (engine ops, not ONNX): ``ComplexMake``, ``Real``, ``Imag``, ``Conj``,
``ComplexAbs`` and ``Angle``.

``ComplexMake(real, imag)`` builds complex64 from float32 parts and complex128 from float64 parts
(broadcasting them); ``Real``/``Imag``/``ComplexAbs``/``Angle`` map complex64 to float32 and complex128
to float64.

Gradients follow torch's convention for complex tensors: the gradient of a real loss ``L`` with
respect to ``z = x + i y`` is ``dL/dx + i dL/dy`` (twice the conjugate Wirtinger derivative), so a
holomorphic ``w = f(z)`` passes ``g * conj(f'(z))`` back (see ``arithmetic.py``).  Here: Real gives
``g + 0i``, Imag ``0 + i g``, Conj ``conj(g)``, ComplexMake ``(Re g, Im g)``, ComplexAbs
``g z / |z|`` and Angle ``g i z / |z|^2`` (both 0 at ``z = 0``, as torch).
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.ops._common import array_of, broadcast_shapes, execute, scalar, unbroadcast
from vfw.core.registry import TensorInfo, defop

_PARTS = frozenset({dt.float32, dt.float64})
_COMPLEX_OF = {dt.float32: dt.complex64, dt.float64: dt.complex128}
_REAL_OF = {dt.complex64: dt.float32, dt.complex128: dt.float64}


def complex_of(dtype):
    """The complex dtype whose parts are ``dtype`` (float32 -> complex64, float64 -> complex128)."""
    return _COMPLEX_OF[dtype]


def real_of(dtype):
    """The dtype of the parts of complex ``dtype`` (complex64 -> float32, complex128 -> float64)."""
    return _REAL_OF[dtype]


def _make_infer(attrs, infos):
    re, im = infos
    shape = None if re.shape is None or im.shape is None else broadcast_shapes(re.shape, im.shape)
    return [TensorInfo(shape, _COMPLEX_OF[re.dtype])]


def _part_infer(attrs, infos):
    return [TensorInfo(infos[0].shape, _REAL_OF[infos[0].dtype])]


@defop("ComplexMake", inputs="real:T imag:T", outputs="output:T2", types={"T": _PARTS, "T2": dt.COMPLEX},
       infer=_make_infer)
def complex_make():
    """Complex numbers ``real + i imag`` from broadcast real and imaginary parts."""

    def kernel(re, im, out=None):
        shape = np.broadcast_shapes(re.shape, im.shape)
        result = np.empty(shape, _COMPLEX_OF[re.dtype]) if out is None else out
        result.real = re
        result.imag = im
        return result

    return kernel


def _part_op(op_type, part, doc):
    def factory():
        def kernel(x, out=None):
            # .real/.imag are views of x: an op returns fresh memory
            if out is None:
                return np.array(part(x))
            np.copyto(out, part(x))
            return out

        return kernel

    factory.__doc__ = doc
    defop(op_type, inputs="X:T", outputs="Y:T2", types={"T": dt.COMPLEX, "T2": _PARTS}, infer=_part_infer)(factory)


_part_op("Real", np.real, "The real part of a complex tensor.")
_part_op("Imag", np.imag, "The imaginary part of a complex tensor.")


@defop("ComplexAbs", inputs="X:T", outputs="Y:T2", types={"T": dt.COMPLEX, "T2": _PARTS}, infer=_part_infer)
def complex_abs():
    """The modulus ``|z|`` of a complex tensor (a real tensor)."""

    def kernel(x, out=None):
        return np.absolute(x, out=out)

    return kernel


@defop("Angle", inputs="X:T", outputs="Y:T2", types={"T": dt.COMPLEX, "T2": _PARTS}, infer=_part_infer)
def angle():
    """The argument ``atan2(Im z, Re z)`` of a complex tensor, in ``[-pi, pi]``."""

    def kernel(x, out=None):
        return np.arctan2(x.imag, x.real, out=out)

    return kernel


@defop("Conj", inputs="X:T", outputs="Y:T", types={"T": dt.COMPLEX},
       infer=lambda attrs, infos: [TensorInfo(infos[0].shape, infos[0].dtype)])
def conj():
    """The complex conjugate ``Re z - i Im z``."""

    def kernel(x, out=None):
        return np.conjugate(x, out=out)

    return kernel


def as_complex(t):
    """Real tensor ``t`` as complex (``t + 0i``), differentiably."""
    return execute("Cast", t, to=_COMPLEX_OF[array_of(t).dtype])


def _safe_divisor(r):
    """``r`` with its zeros replaced by 1 (the numerators vanish there: the gradient is 0 at z = 0)."""
    zero = scalar(0, r.array.dtype)
    return execute("Where", execute("Equal", r, zero), scalar(1, r.array.dtype), r)


@register_gradient("ComplexMake")
def _complex_make_grad(node, g):
    re, im = node.inputs
    need_re, need_im = node.needs_input_grad
    return (unbroadcast(execute("Real", g), array_of(re).shape) if need_re else None,
            unbroadcast(execute("Imag", g), array_of(im).shape) if need_im else None)


@register_gradient("Real")
def _real_grad(node, g):
    return (as_complex(g),)


@register_gradient("Imag")
def _imag_grad(node, g):
    return (execute("ComplexMake", execute("Mul", g, scalar(0, g.array.dtype)), g),)


@register_gradient("Conj")
def _conj_grad(node, g):
    return (execute("Conj", g),)


@register_gradient("ComplexAbs")
def _abs_grad(node, g):
    z = node.inputs[0]
    r = _safe_divisor(node.output(0))
    return (execute("Mul", as_complex(execute("Div", g, r)), z),)


@register_gradient("Angle")
def _angle_grad(node, g):
    z = node.inputs[0]
    r = execute("ComplexAbs", z)
    r2 = _safe_divisor(execute("Mul", r, r))
    i = scalar(1j, array_of(z).dtype)
    return (execute("Mul", as_complex(execute("Div", g, r2)), execute("Mul", z, i)),)
