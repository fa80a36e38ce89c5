"""Matrix and vector products: matmul/mm/bmm/mv/dot/inner/outer, the add-product family, einsum, tensordot.

torch's products do not promote dtypes (``float32 @ float64`` raises), unlike the
elementwise ops; ``outer`` and ``addr`` are elementwise at heart and do.
Integer products compute in int64 where the engine lacks the type (``int8``...),
which wraps around exactly as the narrow type would. The common ``a @ b`` path calls
the MatMul kernel's numpy function directly when nothing records (no input requires
grad, or grad mode is off, and no graph trace is open).
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import is_grad_enabled
from vfw.core.errors import VfwError
from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _einsum_checks, _inference
from vfw.frontends.torch._config import strided as _strided
from vfw.frontends.torch._dispatch import (
    as_torch,
    broadcast_mismatch,
    call,
    cast,
    finish,
    inplace,
    op,
    promoted,
    scalar_array,
    translate,
    type_name,
    wrap,
)
from vfw.frontends.torch._grad_fn_names import matmul_name, names_grad_fn
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm", "addmv", "addmv_", "addbmm",
           "baddbmm", "addr", "einsum", "tensordot"]

_ndarray = np.ndarray
_BOOL = np.dtype(np.bool_)
_INT64 = np.dtype(np.int64)
_FLOATS = frozenset(dt.FLOATS)
# dtypes numpy multiplies natively (the MatMul kernel is np.dot / np.matmul for them).
_NATIVE = frozenset(np.dtype(d) for d in (np.float32, np.float64, np.int32, np.int64))
# Integer types the engine's MatMul lacks: computed in int64 and wrapped back.
_WIDENED = frozenset(np.dtype(d) for d in (np.int8, np.int16, np.uint8))
_PRODUCT_TYPES = _NATIVE | _WIDENED | _FLOATS | dt.COMPLEX
_HALF = _FLOATS - _NATIVE
_NATIVE_FLOATS = _NATIVE & _FLOATS
_F32 = np.dtype(np.float32)
_MATMUL = op("MatMul")
_ONE = np.ones(1, np.int64)
_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool"}


def _recording(*inputs):
    """Whether an op on ``inputs`` must go through the executor (autograd or a graph trace records it)."""
    if _tracing:
        return True
    for x in inputs:
        if isinstance(x, CoreTensor) and x.requires_grad:
            return is_grad_enabled()
    return False


def run(bound, *inputs):
    """Run a bound engine op on tensors/arrays; the kernel is called directly when nothing records."""
    if _recording(*inputs):
        return call(bound, *inputs)
    try:
        result = bound(*[x.array if isinstance(x, CoreTensor) else x for x in inputs])
    except VfwError as e:  # (given the inputs, a broadcasting failure gets torch's message)
        raise translate(e, bound=bound, inputs=inputs) from None
    return tuple(None if r is None else wrap(r) for r in result) if type(result) is tuple else wrap(result)


def not_implemented(fn, np_dtype):
    """torch's error for a dtype its kernel lacks."""
    return NotImplementedError(f'"{fn}" not implemented for \'{type_name(np_dtype)}\'')


def _c_name(np_dtype):
    return _C_NAMES.get(np.dtype(np_dtype).name, np.dtype(np_dtype).name)


def _dims(shape):
    return "x".join(map(str, shape))


# -- matmul and friends --------------------------------------------------------------------
def _shape_error(a, b):
    """torch's message for operands ``matmul`` cannot multiply."""
    if a.ndim == 0 or b.ndim == 0:
        return RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        return RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have "
                            f"the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements respectively")
    if b.ndim == 1 and a.ndim == 2:
        return RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({_dims(a.shape)}), vec ({b.shape[0]})")
    if a.ndim <= 2 and b.ndim == 2:
        rows = a.shape if a.ndim == 2 else (1,) + a.shape
        return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_dims(rows)} and {_dims(b.shape)})")
    a2 = a.shape if a.ndim > 1 else (1,) + a.shape
    b2 = b.shape if b.ndim > 1 else b.shape + (1,)
    mismatch = broadcast_mismatch([a2[:-2], b2[:-2]])
    if mismatch:
        return RuntimeError(mismatch)
    batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    return RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{np.prod(batch, dtype=int)}, "
                        f"{a2[-1]}] but got: [{np.prod(batch, dtype=int)}, {b2[-2]}].")


def _same_dtype(a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c_name(a.dtype)} != "
                           f"{_c_name(b.dtype)}")


def _product(input, other, out, name, kernel_name="addmm_impl_cpu_"):
    """``input @ other`` (numpy matmul semantics) for operands whose ranks the caller checked."""
    a, b = input.array, other.array
    dtype = a.dtype
    if dtype in _NATIVE and dtype == b.dtype and out is None:
        try:
            if not _recording(input, other):
                r = np.dot(a, b) if a.ndim == 2 and b.ndim == 2 else np.matmul(a, b)
                return wrap(r if type(r) is _ndarray else np.asarray(r))
            if a.ndim and b.ndim:  # the usual recorded product: nothing to cast or check first
                return call(_MATMUL, input, other)
        except (ValueError, RuntimeError) as error:
            if _inference.is_refusal(error):
                raise
            raise _shape_error(a, b) from None
    _same_dtype(a, b)
    if dtype not in _PRODUCT_TYPES:
        raise not_implemented(kernel_name, dtype)
    if a.ndim == 0 or b.ndim == 0:
        raise _shape_error(a, b)
    if dtype in _WIDENED:
        input, other = cast(as_torch(input), _INT64), cast(as_torch(other), _INT64)
    try:
        result = call(_MATMUL, input, other)
    except RuntimeError:
        raise _shape_error(a, b) from None
    return finish(cast(result, dtype), out, name)


@names_grad_fn(matmul_name)
def matmul(input, other, *, out=None):
    """Matrix product with broadcasting: 1-D operands are vectors, leading dims are batch dims.

    Parameters
    ----------
    input, other : Tensor
        Of one dtype (torch does not promote here).
    out : Tensor, optional
    """
    if getattr(input, "layout", _strided) is not _strided:  # sparse: its own product (vfw.torch._sparse_ops)
        return input.matmul(other)
    tensor_arg(input, "matmul")
    tensor_arg(other, "matmul", "other", 2)
    return _product(input, other, out, "matmul", '"dot"' if input.array.ndim == other.array.ndim == 1 else
                    "addmm_impl_cpu_")


def mm(input, mat2, *, out=None):
    """Product of two matrices (2-D tensors, no broadcasting)."""
    if getattr(input, "layout", _strided) is not _strided:  # sparse: its own product (vfw.torch._sparse_ops)
        return input.mm(mat2)
    if not isinstance(input, CoreTensor) or not isinstance(mat2, CoreTensor):
        tensor_arg(input, "mm")
        tensor_arg(mat2, "mm", "mat2", 2)
    if input.array.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.array.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return _product(input, mat2, out, "mm")


@names_grad_fn("BmmBackward0")
def bmm(input, mat2, *, out=None):
    """Batched product of 3-D tensors ``(b, n, m) @ (b, m, p)`` (batch sizes must be equal)."""
    a, b = tensor_arg(input, "bmm").array, tensor_arg(mat2, "bmm", "mat2", 2).array
    for x, which in ((a, "batch1"), (b, "batch2")):
        if x.ndim != 3:
            raise RuntimeError(f"{which} must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
                           f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {type_name(a.dtype)} but found {type_name(b.dtype)}")
    return _product(input, mat2, out, "bmm", "bmm")


@names_grad_fn("MvBackward0")
def mv(input, vec, *, out=None):
    """Product of a matrix and a vector."""
    a, v = tensor_arg(input, "mv").array, tensor_arg(vec, "mv", "vec", 2).array
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.dtype != v.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {type_name(a.dtype)}, "
                           f"{type_name(a.dtype)}, and {type_name(v.dtype)}")
    return _product(input, vec, out, "mv", "addmv_impl_cpu")


def _dot(name, input, other, out):
    a, b = tensor_arg(input, name).array, tensor_arg(other, name, "other", 2).array
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name} : expected both vectors to have same dtype, but found {type_name(a.dtype)} and "
                           f"{type_name(b.dtype)}")
    return _product(input, other, out, name, "dot")


@names_grad_fn("DotBackward0")
def dot(input, tensor, *, out=None):
    """Inner product of two 1-D tensors of one dtype."""
    try:
        a, b = input.array, tensor.array
    except AttributeError:
        return _dot("dot", input, tensor, out)
    if a.ndim == 1 == b.ndim and a.shape == b.shape and a.dtype == b.dtype and a.dtype in _NATIVE and out is None \
            and not _recording(input, tensor):
        return wrap(np.asarray(np.matmul(a, b)))  # the MatMul kernel for vectors
    return _dot("dot", input, tensor, out)


def vdot(input, other, *, out=None):
    """Inner product of two 1-D tensors (the first conjugated: the same as ``dot`` for real tensors)."""
    if isinstance(input, CoreTensor) and input.array.dtype.kind == "c":
        input = run(op("Conj"), input)
    return _dot("vdot", input, other, out)


def _mul(a, b):
    """Elementwise product with torch's promotion (logical and for bool)."""
    (a, b), dtype = promoted(a, b)
    return run(op("And" if dtype == _BOOL else "Mul"), a, b)


def inner(input, other, *, out=None):
    """Sum of products over the last dims: shape ``input.shape[:-1] + other.shape[:-1]`` (0-d operands scale)."""
    a, b = tensor_arg(input, "inner").array, tensor_arg(other, "inner", "other", 2).array
    if a.ndim == 0 or b.ndim == 0:
        return finish(_mul(input, other), out, "inner")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(a.shape)} and {list(b.shape)}")
    return finish(_contract(input, other, [a.ndim - 1], [b.ndim - 1]), out, "inner")


def outer(input, vec2, *, out=None):
    """Outer product of two vectors (dtypes promote): ``result[i, j] = input[i] * vec2[j]``."""
    for x, arg in ((input, "self"), (vec2, "vec2")):
        tensor_arg(x, "outer", "input" if arg == "self" else arg)
        if x.array.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {arg}, but got {x.array.ndim}-D")
    a, b = input.array, vec2.array
    if a.dtype == b.dtype and out is None and not _recording(input, vec2):
        # The kernels of the engine path below (Unsqueeze, then Mul or And), called directly.
        return wrap((np.logical_and if a.dtype == _BOOL else np.multiply)(a[:, None], b))
    column = run(op("Unsqueeze"), input, _ONE)
    return finish(_mul(column, vec2), out, "outer")


def ger(input, vec2, *, out=None):
    """Alias of ``outer``."""
    return outer(input, vec2, out=out)


# -- beta * input + alpha * product --------------------------------------------------------
def _scalars(name, np_dtype, beta, alpha):
    """``(beta, alpha)`` as torch applies them: truncated to ints for integer results (``addr`` refuses floats)."""
    if np_dtype.kind not in "iu":
        return beta, alpha
    if name == "addr":
        for arg, value in (("beta", beta), ("alpha", alpha)):
            if isinstance(value, (float, np.floating)):
                raise RuntimeError(f"For integral input tensors, argument {arg} must not be a floating point number.")
            if isinstance(value, (bool, np.bool_)):
                raise RuntimeError(f"Boolean {arg} only supported for Boolean results.")
    return int(beta), int(alpha)


def _scale(x, factor):
    if factor is True or factor == 1:
        return x
    dtype = x.array.dtype
    if dtype == _BOOL:
        return x if factor else run(op("And"), x, np.zeros((), bool))
    return run(op("Mul"), x, scalar_array(factor, dtype))


def _blend_arrays(x, p, beta, alpha):
    """``_blend`` of arrays that nothing records: the kernels of its engine path (Mul, Add), called directly."""
    if alpha is not True and alpha != 1:
        p = np.multiply(p, scalar_array(alpha, p.dtype))
    if beta == 0:
        return wrap(p)
    return wrap(np.add(x if beta is True or beta == 1 else np.multiply(x, scalar_array(beta, p.dtype)), p))


def _plain_floats(out, *tensors):
    """Whether ``tensors`` share a native float dtype, nothing records and no ``out=`` is given: the fast paths."""
    dtype = tensors[0].array.dtype
    for t in tensors:
        if t.array.dtype != dtype:
            return False
    return out is None and dtype in _NATIVE_FLOATS and not _recording(*tensors)


def _blend(name, input, product, beta, alpha):
    """``beta * input + alpha * product``; with ``beta == 0`` the input is not read (NaN in it is ignored)."""
    shape = product.array.shape
    fits = input.array.shape == shape
    if not fits:
        try:
            fits = np.broadcast_shapes(input.array.shape, shape) == shape
        except ValueError:
            pass
    if not fits:
        raise RuntimeError(f"{name}: the expanded size of the tensor does not match: target sizes {list(shape)}, "
                           f"tensor sizes {list(input.array.shape)}")
    if product.array.dtype != _BOOL and not _recording(input, product):
        return _blend_arrays(input.array, product.array, beta, alpha)
    product = _scale(product, alpha)
    if beta == 0:
        if _recording(input) and input.requires_grad:  # input gets a zero gradient, as in torch
            return call(op("Where"), np.zeros((), bool), input, product)
        return product
    scaled = _scale(input, beta)
    return run(op("Or" if product.array.dtype == _BOOL else "Add"), scaled, product)


def _same_dtypes(name, *tensors):
    dtypes = {t.array.dtype for t in tensors}
    if len(dtypes) > 1:
        names = ", ".join(type_name(t.array.dtype) for t in tensors)
        raise RuntimeError(f"{name}: expected tensors of one dtype, but got {names}")


_GEMMS = {}


def _gemm(alpha, beta):
    key = (alpha, beta)
    bound = _GEMMS.get(key)
    if bound is None:
        bound = _GEMMS[key] = op("Gemm", alpha=float(alpha), beta=float(beta))
    return bound


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the product's shape."""
    if getattr(mat1, "layout", _strided) is not _strided:  # sparse: vfw.torch.sparse.addmm
        from vfw.frontends.torch import sparse
        return sparse.addmm(input, mat1.to_sparse(), mat2, beta=beta, alpha=alpha)
    try:
        a, m1, m2 = input.array, mat1.array, mat2.array
    except AttributeError:
        for x, arg in ((input, "input"), (mat1, "mat1"), (mat2, "mat2")):
            tensor_arg(x, "addmm", arg)
    dtype = a.dtype
    if not (m1.ndim == 2 == m2.ndim and m1.shape[1] == m2.shape[0] and dtype == m1.dtype == m2.dtype):
        mm(mat1, mat2)  # torch's error for the product
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {type_name(dtype)} and "
                           f"{type_name(m1.dtype)}")
    m, n = m1.shape[0], m2.shape[1]
    if a.ndim > 2 or (a.ndim and a.shape[-1] not in (1, n)) or (a.ndim == 2 and a.shape[0] not in (1, m)):
        raise RuntimeError(f"The expanded size of the tensor must match the existing size: target sizes [{m}, {n}], "
                           f"tensor sizes {list(a.shape)}")
    if dtype in _NATIVE_FLOATS and out is None and not _recording(input, mat1, mat2):
        # The Gemm kernel's float arithmetic, without its checks (done above).
        y = np.dot(m1, m2)
        if alpha != 1:
            y *= alpha
        if beta != 0:
            y += a if beta == 1 else np.multiply(a, beta, dtype=dtype)
        return wrap(y)
    if dtype.kind in "iu":
        beta, alpha = _scalars("addmm", dtype, beta, alpha)
    elif dtype == _BOOL:
        raise not_implemented("addmm_impl_cpu_", dtype)
    if dtype in _WIDENED:
        result = run(_gemm(alpha, beta), *(cast(as_torch(t), _INT64) for t in (mat1, mat2, input)))
        return finish(cast(result, dtype), out, "addmm")
    return finish(run(_gemm(alpha, beta), mat1, mat2, input), out, "addmm")


def _add_product(name, input, a, b, beta, alpha, product):
    """``beta * input + alpha * product(a, b)``; half floats are computed in float32 and rounded once."""
    dtype = input.array.dtype
    if dtype in _HALF:
        input, a, b = (cast(as_torch(t), _F32) for t in (input, a, b))
    return cast(_blend(name, input, product(a, b), beta, alpha), dtype)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``."""
    tensor_arg(input, "addmv")
    if _plain_floats(out, input, mat, vec):
        m, v = mat.array, vec.array
        if m.ndim == 2 and v.ndim == 1 and m.shape[1] == v.shape[0] and input.array.shape in ((m.shape[0],), (1,), ()):
            return _blend_arrays(input.array, np.matmul(m, v), beta, alpha)  # mv's MatMul kernel
    _same_dtypes("addmv", input, mat, vec)
    beta, alpha = _scalars("addmv", input.array.dtype, beta, alpha)
    return finish(_add_product("addmv", input, mat, vec, beta, alpha, mv), out, "addmv")


def _batch_pair(name, batch1, batch2):
    a, b = tensor_arg(batch1, name, "batch1", 2).array, tensor_arg(batch2, name, "batch2", 3).array
    if name == "addbmm" and min(a.ndim, b.ndim) < 3:  # torch reads batch1.size(2) first
        n = max(min(a.ndim, b.ndim), 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got 2)")
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {a.shape[0]} and {b.shape[0]}")
    if a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({_dims(a.shape[1:])} and {_dims(b.shape[1:])})")


def _batch_sum(batch1, batch2):
    return _einsum_call("bij,bjk->ik", [batch1, batch2])


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    tensor_arg(input, "addbmm")
    _batch_pair("addbmm", batch1, batch2)
    _same_dtypes("addbmm", input, batch1, batch2)
    beta, alpha = _scalars("addbmm", input.array.dtype, beta, alpha)
    return finish(_add_product("addbmm", input, batch1, batch2, beta, alpha, _batch_sum), out, "addbmm")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * bmm(batch1, batch2)``."""
    tensor_arg(input, "baddbmm")
    _batch_pair("baddbmm", batch1, batch2)
    if _plain_floats(out, input, batch1, batch2):
        p = np.matmul(batch1.array, batch2.array)  # bmm's MatMul kernel
        if input.array.shape == p.shape:
            return _blend_arrays(input.array, p, beta, alpha)
    _same_dtypes("baddbmm", input, batch1, batch2)
    beta, alpha = _scalars("baddbmm", input.array.dtype, beta, alpha)
    return finish(_add_product("baddbmm", input, batch1, batch2, beta, alpha, bmm), out, "baddbmm")


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * outer(vec1, vec2)`` (dtypes promote; bool gives ``input | (vec1 & vec2)``)."""
    tensor_arg(input, "addr")
    for v, arg in ((vec1, "vec1"), (vec2, "vec2")):
        if tensor_arg(v, "addr", arg).array.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {arg}, but got {v.array.ndim}-D")
    if _plain_floats(out, input, vec1, vec2):
        x, p = input.array, np.multiply(vec1.array[:, None], vec2.array)  # outer's kernels
        if x.shape == p.shape:
            return _blend_arrays(x, p, beta, alpha)
    (input, vec1, vec2), dtype = promoted(input, vec1, vec2)
    beta, alpha = _scalars("addr", dtype, beta, alpha)
    return finish(_add_product("addr", input, vec1, vec2, beta, alpha, outer), out, "addr")


def _inplace_of(fn, name):
    def method(self, *args, **kwargs):
        return inplace(fn, self, *args, name=name, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{fn.__name__}``."
    return method


addmv_ = _inplace_of(addmv, "addmv_")


# -- einsum, tensordot ---------------------------------------------------------------------
_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _sublist_equation(args):
    """Operands and equation of the sublist form ``einsum(op1, [0, 1], op2, [1, 2], [0, 2])``."""
    def term(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, (int, np.integer)) and 0 <= s < len(_LABELS):
                out.append(_LABELS[s])
            else:
                raise RuntimeError(f"einsum(): expected subscript to be in [0, 52) but got {s}")
        return "".join(out)

    pairs = args[:len(args) - len(args) % 2]
    operands, terms = list(pairs[0::2]), ",".join(term(s) for s in pairs[1::2])
    if len(args) % 2:  # an output sublist closes the arguments
        terms += "->" + term(args[-1])
    return operands, terms


def _einsum_call(equation, operands):
    dtype = operands[0].array.dtype
    wide = dtype in _WIDENED or (dtype == _BOOL and len(operands) == 1)
    if wide:
        operands = [cast(as_torch(t), _INT64) for t in operands]
    try:
        bound = op("Einsum", equation=equation)
    except VfwError as e:
        raise translate(e) from None
    result = run(bound, *operands)
    return cast(result, dtype) if wide else result


def einsum(*args):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)``, operands as a list, or the sublist form."""
    if not args:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                        "operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        operands, equation = _sublist_equation(args)
    for i, t in enumerate(operands):
        tensor_arg(t, "einsum", "operands", i + 2)
    dtype = operands[0].array.dtype
    for t in operands[1:]:
        if t.array.dtype != dtype:
            raise RuntimeError(f"expected scalar type {type_name(dtype)} but found {type_name(t.array.dtype)}")
    if dtype == _BOOL and len(operands) > 1:
        raise not_implemented("bmm", dtype)
    targets = _einsum_checks.check(equation, operands)
    operands = [t if shape is None else run(op("Expand"), t, np.asarray(shape, np.int64))  # (size-1 labels)
                for t, shape in zip(operands, targets)]
    return _einsum_call(equation, operands)


def _contract(a, b, dims_a, dims_b):
    """Sum over the paired dims ``dims_a`` of ``a`` and ``dims_b`` of ``b``: transposes, reshapes and one MatMul."""
    x, y = a.array, b.array
    dtype = x.dtype
    if dtype not in _PRODUCT_TYPES:
        raise not_implemented("addmm_impl_cpu_", dtype)
    free_a = [d for d in range(x.ndim) if d not in dims_a]
    free_b = [d for d in range(y.ndim) if d not in dims_b]
    perm_a, perm_b = free_a + list(dims_a), list(dims_b) + free_b
    size = math.prod(x.shape[d] for d in dims_a)
    rows = (math.prod(x.shape[d] for d in free_a), size)
    cols = (size, math.prod(y.shape[d] for d in free_b))
    shape = [x.shape[d] for d in free_a] + [y.shape[d] for d in free_b]
    if dtype in _NATIVE and not _recording(a, b):  # the kernels of the engine path below, in numpy
        product = np.dot(x.transpose(perm_a).reshape(rows), y.transpose(perm_b).reshape(cols))
        return wrap(product.reshape(shape))
    left, right = _matrix(a, perm_a, rows), _matrix(b, perm_b, cols)
    if dtype in _WIDENED:
        left, right = cast(left, _INT64), cast(right, _INT64)
    product = run(_MATMUL, left, right)
    return cast(run(op("Reshape"), product, np.asarray(shape, np.int64)), dtype)


def _matrix(t, perm, shape):
    """``t`` with its dims permuted to ``perm`` and reshaped to the 2-D ``shape``."""
    if perm != list(range(len(perm))):
        t = run(op("Transpose", perm=perm), t)
    return run(op("Reshape"), t, np.asarray(shape, np.int64))


def _dim_list(dims, ndim):
    out = []
    for d in dims:
        if isinstance(d, CoreTensor):
            d = d.array.item()
        if not -ndim <= d < max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        out.append(int(d) % ndim)
    return out


def tensordot(a, b, dims=2, out=None):
    """Contract ``a`` and ``b`` over ``dims``: the last/first ``dims`` dims, or two lists of dims."""
    tensor_arg(a, "tensordot", "a")
    tensor_arg(b, "tensordot", "b", 2)
    na, nb = a.array.ndim, b.array.ndim
    if isinstance(dims, CoreTensor):
        dims = dims.array.item() if dims.array.ndim == 0 else dims.array.tolist()
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(na, nb):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(na - dims, na)), list(range(dims))
    else:
        if not isinstance(dims, (list, tuple)) or len(dims) != 2 or not all(isinstance(d, (list, tuple, int))
                                                                             for d in dims):
            raise TypeError("tensordot(): argument 'dims' must be an int or a pair of lists of ints")
        if isinstance(dims[0], int) or isinstance(dims[1], int):
            raise TypeError(f"tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not "
                            f"{type(dims[0]).__name__}")
        if len(dims[0]) != len(dims[1]):
            raise RuntimeError("both dimension lists should have same length")
        dims_a, dims_b = _dim_list(dims[0], na), _dim_list(dims[1], nb)
    if a.array.dtype != b.array.dtype:
        raise RuntimeError("both inputs should have same dtype")
    for da, db in zip(dims_a, dims_b):
        if a.array.shape[da] != b.array.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.array.shape[da]} in dim "
                               f"{da} and second has size {b.array.shape[db]} in dim {db}")
    return finish(_contract(a, b, dims_a, dims_b), out, "tensordot")


# -- Tensor methods --------------------------------------------------------------------------
def _rmatmul(self, other):
    if not isinstance(other, CoreTensor):
        return NotImplemented
    return matmul(other, self)


def _matmul_operator(self, other):
    if not isinstance(other, CoreTensor):
        return NotImplemented
    return matmul(self, other)


TENSOR_METHODS = {
    "matmul": matmul, "mm": mm, "bmm": bmm, "mv": mv, "dot": dot, "vdot": vdot, "inner": inner, "outer": outer,
    "ger": ger, "addmm": addmm, "addmv": addmv, "addbmm": addbmm, "baddbmm": baddbmm, "addr": addr,
    "__matmul__": _matmul_operator, "__rmatmul__": _rmatmul,
    "addmm_": _inplace_of(addmm, "addmm_"), "addmv_": addmv_, "addbmm_": _inplace_of(addbmm, "addbmm_"),
    "baddbmm_": _inplace_of(baddbmm, "baddbmm_"), "addr_": _inplace_of(addr, "addr_"),
}
