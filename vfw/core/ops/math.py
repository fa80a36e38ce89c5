"""Elementwise unary math: Exp, Log, trigonometric and hyperbolic functions, Erf, IsNaN, IsInf.

Every op computes IEEE results: out-of-domain inputs give NaN, poles give
+-inf, and NaN propagates (numpy's warnings for these are silenced engine-wide).
Gradients follow the same IEEE rules (inf at poles, as torch's); IsNaN and
IsInf are not differentiable.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.ops._common import conj, copy_out, execute, same_as_first, scalar, ufunc_kernel
from vfw.core.ops._special import erf as _erf
from vfw.core.registry import Attr, TensorInfo, defop

_UNARY = (
    ("Exp", np.exp), ("Log", np.log), ("Sqrt", np.sqrt),
    ("Sin", np.sin), ("Cos", np.cos), ("Tan", np.tan),
    ("Asin", np.arcsin), ("Acos", np.arccos), ("Atan", np.arctan),
    ("Sinh", np.sinh), ("Cosh", np.cosh), ("Tanh", np.tanh),
    ("Asinh", np.arcsinh), ("Acosh", np.arccosh), ("Atanh", np.arctanh),
)

# All of them also take complex input (not ONNX): numpy's complex ufuncs follow C99's branch cuts, as torch's.

# ONNX names the single input of these ops "input" (Sqrt's is "X").
for _name, _ufunc in _UNARY:
    _slot = "X" if _name == "Sqrt" else "input"
    defop(_name, inputs=f"{_slot}:T", outputs=f"{'Y' if _name == 'Sqrt' else 'output'}:T",
          types={"T": dt.FLOATS | dt.COMPLEX},
          infer=same_as_first)(ufunc_kernel(_ufunc))


# -- gradients (engine ops only, so they differentiate again; ``y`` is the op's output) --
# A complex input's gradient is ``g * conj(f'(z))`` (torch's conjugate-Wirtinger convention): ``conj``
# is the identity on real tensors.
def _one(g):
    return scalar(1, g.array.dtype)


def _one_minus_sq(g, x):
    """``1 - x**2`` as ``(1 - x)(1 + x)``: accurate near ``|x| = 1``, where it vanishes."""
    return execute("Mul", execute("Sub", _one(g), x), execute("Add", _one(g), x))


@register_gradient("Exp")
def _exp_grad(node, g):
    return (execute("Mul", g, conj(node.output(0))),)


@register_gradient("Log")
def _log_grad(node, g):
    return (execute("Div", g, conj(node.inputs[0])),)


@register_gradient("Sqrt")
def _sqrt_grad(node, g):
    y = node.output(0)
    return (execute("Div", g, conj(execute("Add", y, y))),)  # 1 / (2 sqrt(x)); inf at 0 as in torch


@register_gradient("Sin")
def _sin_grad(node, g):
    return (execute("Mul", g, conj(execute("Cos", node.inputs[0]))),)


@register_gradient("Cos")
def _cos_grad(node, g):
    return (execute("Neg", execute("Mul", g, conj(execute("Sin", node.inputs[0])))),)


@register_gradient("Tan")
def _tan_grad(node, g):
    y = node.output(0)
    return (execute("Mul", g, conj(execute("Add", _one(g), execute("Mul", y, y)))),)


@register_gradient("Asin")
def _asin_grad(node, g):
    return (execute("Div", g, conj(execute("Sqrt", _one_minus_sq(g, node.inputs[0])))),)


@register_gradient("Acos")
def _acos_grad(node, g):
    return (execute("Neg", execute("Div", g, conj(execute("Sqrt", _one_minus_sq(g, node.inputs[0]))))),)


@register_gradient("Atan")
def _atan_grad(node, g):
    x = node.inputs[0]
    return (execute("Div", g, conj(execute("Add", _one(g), execute("Mul", x, x)))),)


@register_gradient("Sinh")
def _sinh_grad(node, g):
    return (execute("Mul", g, conj(execute("Cosh", node.inputs[0]))),)


@register_gradient("Cosh")
def _cosh_grad(node, g):
    return (execute("Mul", g, conj(execute("Sinh", node.inputs[0]))),)


@register_gradient("Tanh")
def _tanh_grad(node, g):
    y = node.output(0)
    return (execute("Mul", g, conj(execute("Sub", _one(g), execute("Mul", y, y)))),)


@register_gradient("Asinh")
def _asinh_grad(node, g):
    x = node.inputs[0]
    return (execute("Div", g, conj(execute("Sqrt", execute("Add", execute("Mul", x, x), _one(g))))),)


@register_gradient("Acosh")
def _acosh_grad(node, g):
    x = node.inputs[0]
    below, above = execute("Sub", x, _one(g)), execute("Add", x, _one(g))
    if x.array.dtype.kind == "c":
        # sqrt(z - 1) sqrt(z + 1) is the derivative of the principal acosh (torch's); sqrt(z**2 - 1) takes
        # the other sign left of the imaginary axis.
        root = execute("Mul", execute("Sqrt", below), execute("Sqrt", above))
    else:
        root = execute("Sqrt", execute("Mul", below, above))  # (x - 1)(x + 1): accurate near x = 1
    return (execute("Div", g, conj(root)),)


@register_gradient("Atanh")
def _atanh_grad(node, g):
    return (execute("Div", g, conj(_one_minus_sq(g, node.inputs[0]))),)


@defop("Erf", inputs="input:T", outputs="output:T", types={"T": dt.FLOATS}, infer=same_as_first)
def erf():
    """Gauss error function, elementwise (computed in float64: to float64 round-off for float64 input,
    to float32's precision for float32 and narrower input; see ``_special``)."""

    def kernel(x, out=None):
        return copy_out(_erf(x), out)

    return kernel


@register_gradient("Erf")
def _erf_grad(node, g):
    x = node.inputs[0]
    density = execute("Exp", execute("Neg", execute("Mul", x, x)))
    return (execute("Mul", g, execute("Mul", density, scalar(2 / math.sqrt(math.pi), g.array.dtype))),)


def _bool_like_first(attrs, infos):
    """Shape inference: one bool output shaped like the first input."""
    return [TensorInfo(infos[0].shape, dt.bool_)]


@defop("IsNaN", inputs="X:T1", outputs="Y:T2", types={"T1": dt.FLOATS, "T2": dt.BOOL}, infer=_bool_like_first)
def isnan():
    """True where the input is NaN."""
    return np.isnan


@defop("IsInf", inputs="X:T1", outputs="Y:T2", types={"T1": dt.FLOATS, "T2": dt.BOOL},
       attrs={"detect_negative": Attr("int", 1, choices=(0, 1)),
              "detect_positive": Attr("int", 1, choices=(0, 1))},
       infer=_bool_like_first)
def isinf(detect_negative, detect_positive):
    """True where the input is infinite (of the signs selected by the attributes)."""
    if detect_negative and detect_positive:
        return np.isinf
    if detect_positive or detect_negative:
        target = np.inf if detect_positive else -np.inf

        def kernel(x, out=None):
            return np.equal(x, target, out=out)

        return kernel

    def none(x, out=None):
        if out is None:
            return np.zeros(x.shape, dt.bool_)
        out[...] = False
        return out

    return none


not_differentiable("IsNaN", "IsInf")
