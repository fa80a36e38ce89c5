"""tf.linalg products and matrix structure: matmul, matvec, tensordot, einsum, transposes, diagonals,
band parts, trace, cross (decompositions and solvers: ``_linalg_decomp``; norms: ``_linalg_norms``).

Diagonal ops (``diag``, ``diag_part``, ``set_diag`` with TF's ``k`` ranges and alignments) are
engine Gathers at index tables computed from the shapes alone, so their gradients are the
Gathers' and a Where picks padding values.
"""

import math

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, host, op, op_error, recording, wrap
from vfw.frontends.tensorflow._op_support import (
    BF16,
    BOOL,
    F32,
    I32,
    I64,
    WIDER_INTS,
    OpTypes,
    cast,
    int64s,
    reduce,
    reshape,
    same_dtype,
    static_int,
    transpose_last,
)
from vfw.frontends.tensorflow._tensor import Tensor
from vfw.frontends.tensorflow._traced_shapes import dim_of, merged_last, pinned, shape_of, shape_varies, value_shaped

# TF's dtypes of MatMul (no CPU kernel for unsigned types), BatchMatMulV2 (int16 too), Einsum...; the engine's
# MatMul lacks int16: it is computed wider and wrapped back (exact modulo 2**16).
_MATMUL_TYPES = OpTypes("MatMul", "F int32 int64 U C", "F int32 int64 C")
_BATCH_MATMUL_TYPES = OpTypes("BatchMatMulV2", "F int16 int32 int64 U C", "F int16 int32 int64 C")
_EINSUM_TYPES = OpTypes("Einsum", "F I U bool", "F int32 int64")
_SUM_TYPES = OpTypes("Sum", "F I U C")
_DIAG_TYPES = OpTypes("Diag", "F int32 int64", "float16 float32 float64 int32 int64")
_DIAG_PART_TYPES = OpTypes("DiagPart", "F int32 int64", "float16 float32 float64 int32 int64")
_CROSS_TYPES = OpTypes("Cross", "F I U")
_BYTE_INTS = frozenset({np.dtype(np.int8), np.dtype(np.uint8)})
_MATMUL = op("MatMul")


# -- matmul, matvec, tensordot, einsum -------------------------------------------------------------
def _check_flags(transpose, adjoint, which):
    if transpose and adjoint:
        raise ValueError(f"Only one of `transpose_{which}` and `adjoint_{which}` can be True. Received "
                         f"`transpose_{which}`=True, `adjoint_{which}`=True.")


def _product(a, b, tf_op):
    """The engine MatMul of tensors ``a`` and ``b`` (same dtype, rank >= 2) with TF's dtype rules."""
    dtype = a.array.dtype
    if dtype in _MATMUL_TYPES.kernels:
        return call(_MATMUL, a, b, tf_op=tf_op)
    (_BATCH_MATMUL_TYPES if tf_op == "BatchMatMulV2" else _MATMUL_TYPES).check(dtype)
    wide = WIDER_INTS[dtype]
    return cast(call(_MATMUL, cast(a, wide), cast(b, wide), tf_op=tf_op), dtype)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None):
    """Matrix product of the last two dims of ``a`` and ``b``; leading (batch) dims broadcast.

    Parameters
    ----------
    a, b : Tensor or convertible, rank >= 2
        ``b`` is converted with ``a``'s dtype as a hint; the dtypes must then agree (no promotion).
    transpose_a, transpose_b, adjoint_a, adjoint_b : bool
        Use the (conjugate) transpose of the last two dims (adjoint is transpose for real types).
    a_is_sparse, b_is_sparse, grad_a, grad_b : bool
        Accepted hints without effect.
    output_type : DType, optional
        int32 for int8/uint8 inputs (TF's only mixed-type kernel); the inputs' dtype otherwise.

    Returns
    -------
    Tensor
        Shape ``batch + (M, N)``.
    """
    if a.__class__ is Tensor and b.__class__ is Tensor and not (transpose_a or transpose_b or adjoint_a or adjoint_b
                                                                 or output_type is not None):
        x, y = a.array, b.array  # the hot case: two matrices of one supported dtype
        if x.ndim == 2 and y.ndim == 2 and x.dtype == y.dtype and x.dtype in _MATMUL_TYPES.kernels:
            if x.shape[1] == y.shape[0] and not recording(a, b):
                result = _MATMUL.kernel(x, y)  # checked here: the engine's checks would repeat these
                if _dispatch.numerics_hook is not None:
                    _dispatch.numerics_hook("MatMul", (a, b), result, False)
                return wrap(result)
            return call(_MATMUL, a, b, tf_op="MatMul")
    _check_flags(transpose_a, adjoint_a, "a")
    _check_flags(transpose_b, adjoint_b, "b")
    if a.__class__ is not Tensor:
        a = convert_to_tensor(a)
    if b.__class__ is not Tensor:
        b = convert_to_tensor(b, dtype_hint=a.array.dtype)
    tf_op = "MatMul" if a.array.ndim == 2 and b.array.ndim == 2 else "BatchMatMulV2"
    if (a_is_sparse or b_is_sparse) and tf_op != "MatMul" and {a.array.dtype, b.array.dtype} <= {F32, BF16}:
        raise op_error(f"{'a' if a.array.ndim != 2 else 'b'} is not a matrix", "SparseMatMul")  # TF's sparse kernel
    for i, x in enumerate((a, b)):
        if x.array.ndim < 2:
            raise op_error(f"In[{i}] ndims must be >= 2", tf_op)
    if output_type is not None and _dtypes.as_dtype(output_type).np != a.array.dtype:
        a, b = _mixed_inputs(a, b, output_type)
    else:
        same_dtype(tf_op, a, b)
    if transpose_a or adjoint_a:
        a = transpose_last(a)
    if transpose_b or adjoint_b:
        b = transpose_last(b)
    if adjoint_a and a.array.dtype.kind == "c":  # the adjoint of a complex matrix is its conjugate transpose
        a = call("Conj", a, tf_op="Conj")
    if adjoint_b and b.array.dtype.kind == "c":
        b = call("Conj", b, tf_op="Conj")
    return _product(a, b, tf_op)


def _mixed_inputs(a, b, output_type):
    """int8/uint8 operands cast to the int32 ``output_type`` (TF's BatchMatMulV3 kernel)."""
    out = _dtypes.as_dtype(output_type)
    if a.array.dtype not in _BYTE_INTS or b.array.dtype not in _BYTE_INTS or out.np != I32:
        raise op_error(f"Could not find device for node: {{{{node BatchMatMulV3}}}} = BatchMatMulV3[Ta={a.dtype.name}, "
                       f"Tb={b.dtype.name}, Tout={out.name}]", "BatchMatMulV3", errors.NotFoundError)
    return cast(a, I32), cast(b, I32)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix-vector product ``a @ b[..., None]`` without the last unit dim; batch dims broadcast."""
    _check_flags(transpose_a, adjoint_a, "a")
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype_hint=a.array.dtype)
    column = call("Unsqueeze", b, int64s([-1]), tf_op="ExpandDims")
    product = matmul(a, column, transpose_a=transpose_a, adjoint_a=adjoint_a)
    return call("Squeeze", product, int64s([-1]), tf_op="Squeeze")


def _tensordot_axes(axes, a_rank, b_rank, a):
    """``(a_axes, b_axes)`` as lists of non-negative ints, with TF's checks of ``axes``."""
    if hasattr(axes, "array"):
        given, axes = axes, axes.array.tolist()
        pinned(given, given.array, "axes", "Tensordot")
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        for rank in (a_rank, b_rank):
            if axes > rank:
                raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {a}.  Received "
                                 f"{axes}, vs tensor dimensions {rank}.")
        return list(range(a_rank - axes, a_rank)), list(range(axes))
    if isinstance(axes, float):
        raise TypeError(f"Cannot convert {axes} to EagerTensor of dtype int32")
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
    a_axes, b_axes = axes
    if isinstance(a_axes, int) and isinstance(b_axes, int):
        a_axes, b_axes = [a_axes], [b_axes]
    if len(a_axes) != len(b_axes):
        raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
    return [int(i) % a_rank if a_rank else int(i) for i in a_axes], [int(i) % b_rank if b_rank else int(i)
                                                                       for i in b_axes]


def _as_matrix(x, contract, contract_first):
    """``x`` transposed and reshaped to a matrix whose rows (or columns) run over the ``contract`` dims."""
    shape = x.array.shape
    free = [i for i in range(len(shape)) if i not in contract]
    perm = contract + free if contract_first else free + contract
    if perm != sorted(perm):
        x = call("Transpose", x, perm=perm, tf_op="Transpose")
    inner = math.prod(shape[i] for i in contract)
    outer = math.prod(shape[i] for i in free)
    return reshape(x, (inner, outer) if contract_first else (outer, inner)), [shape[i] for i in free]


def _tensordot_equation(a_rank, b_rank, a_axes, b_axes):
    """The Einsum equation of a tensordot: contracted dims share a letter, free dims of ``a`` then ``b`` remain."""
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    a_terms = [next(letters) for _ in range(a_rank)]
    b_terms = [next(letters) for _ in range(b_rank)]
    for i, j in zip(a_axes, b_axes):
        b_terms[j] = a_terms[i]
    free = [t for k, t in enumerate(a_terms) if k not in a_axes] + [t for k, t in enumerate(b_terms) if k not in b_axes]
    return f"{''.join(a_terms)},{''.join(b_terms)}->{''.join(free)}"


def tensordot(a, b, axes, name=None):
    """Sum of products of ``a`` and ``b`` over the given axes (``axes`` an int N: last N of ``a`` with first N of
    ``b``; or a pair of axis lists).

    Returns
    -------
    Tensor
        Shape: ``a``'s free dims then ``b``'s free dims.
    """
    a = convert_to_tensor(a)
    b = convert_to_tensor(b)
    a_axes, b_axes = _tensordot_axes(axes, a.array.ndim, b.array.ndim, a)
    if shape_varies(a, b):  # the dims follow each call's values: one Einsum computes with them
        same_dtype("MatMul", a, b)
        equation = _tensordot_equation(a.array.ndim, b.array.ndim, a_axes, b_axes)
        return call("Einsum", a, b, equation=equation, tf_op="Tensordot")
    left, a_free = _as_matrix(a, a_axes, False)
    right, b_free = _as_matrix(b, b_axes, True)
    same_dtype("MatMul", left, right)
    return reshape(_product(left, right, "MatMul"), a_free + b_free)


def einsum(equation, *inputs, **kwargs):
    """Einstein summation (``'ij,jk->ik'``, ``'...ij,...jk'``, implicit outputs); ``optimize`` is accepted.

    Returns
    -------
    Tensor
    """
    for x in inputs:
        if not hasattr(x, "shape"):
            raise AttributeError(f"'{type(x).__name__}' object has no attribute 'shape'")
    unknown = set(kwargs) - {"name", "optimize"}
    if unknown:
        raise TypeError(f"Invalid keyword arguments for this function: {', '.join(sorted(unknown))}. Expected: "
                        "name, optimize")
    tensors = [convert_to_tensor(x) for x in inputs]
    spec = equation.replace(" ", "")
    terms, arrow, output = spec.partition("->")
    if len(terms.split(",")) != len(tensors):
        raise ValueError(f'Got {len(tensors)} inputs for equation "{equation}", expecting {len(terms.split(","))}')
    if arrow:
        missing = set(output) - set(terms) - {"."}
        if missing:
            raise ValueError(f"Output subscripts contain the label {sorted(missing)[0]} not present in the input "
                             "subscripts.")
    same_dtype("Einsum", *tensors)
    _EINSUM_TYPES.check(tensors[0].array.dtype)
    return call("Einsum", *tensors, equation=spec, tf_op="Einsum")


# -- transposes, diagonals, band parts, trace ---------------------------------------------------
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """``a`` with its last two dims swapped (``conjugate`` conjugates complex values: no-op for real ones)."""
    a = convert_to_tensor(a)
    if a.array.ndim < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a.array} with "
                         f"shape: {a.array.shape}")
    transposed = transpose_last(a)
    return call("Conj", transposed, tf_op="Conj") if conjugate and a.array.dtype.kind == "c" else transposed


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two dims (the transpose for real types)."""
    return matrix_transpose(matrix, conjugate=True)


_ALIGNMENTS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _diag_range(k, tf_op):
    """``(lower, upper, single)`` from ``k`` (an int or a pair; a tensor of either)."""
    values = np.asarray(k.array if hasattr(k, "array") else k).reshape(-1)
    if hasattr(k, "array"):
        pinned(k, values, "k", tf_op)
    if values.size not in (1, 2):
        raise op_error(f"diag_index must have only one or two elements, received {values.size} elements.", tf_op)
    lower, upper = int(values[0]), int(values[-1])
    if lower > upper:
        raise op_error(f"lower_diag_index must not be larger than upper_diag_index: {lower} > {upper}", tf_op)
    return lower, upper, lower == upper


def _check_align(align, tf_op):
    if align not in _ALIGNMENTS:
        raise op_error(f"Value for attr 'align' of \"{align}\" is not in the list of allowed values: "
                       + ", ".join(f'"{a}"' for a in _ALIGNMENTS), tf_op)


def _diagonal_table(rows, cols, lower, upper, align):
    """Where each stored diagonal element lives in a (rows, cols) matrix.

    Returns ``(flat, valid)``, both of shape ``(upper - lower + 1, width)`` (width the longest
    diagonal's length): ``flat`` the row-major index of the element (0 where padding) and
    ``valid`` whether the slot holds an element. Row ``j`` is diagonal ``upper - j``; shorter
    diagonals are padded on the left or right as ``align`` says (superdiagonals first).
    """
    diags = np.arange(upper, lower - 1, -1)
    lengths = np.minimum(rows + np.minimum(diags, 0), cols - np.maximum(diags, 0)).clip(0)
    width = int(lengths.max(initial=0))
    super_right, sub_right = (part == "RIGHT" for part in align.split("_"))
    right = np.where(diags >= 0, super_right, sub_right)
    offset = np.where(right, width - lengths, 0)[:, None]
    t = np.arange(width)[None, :] - offset  # position along the diagonal
    valid = (t >= 0) & (t < lengths[:, None])
    row = t + np.maximum(-diags, 0)[:, None]
    col = t + np.maximum(diags, 0)[:, None]
    return np.where(valid, row * cols + col, 0).astype(I64), valid


def _padding(value, x):
    """``padding_value`` in ``x``'s dtype: converted as TF converts op inputs (any number is truthy for bool)."""
    if x.array.dtype == BOOL:
        return np.asarray(bool(np.asarray(value.array if hasattr(value, "array") else value)))
    return convert_to_tensor(value, dtype=x.dtype).array.reshape(())


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002  (TF's name)
    """Diagonal ``k`` (or diagonals ``k[0]..k[1]``, stacked from ``k[1]`` down) of each matrix in the last two dims.

    Returns
    -------
    Tensor
        Shape ``batch + (len,)`` for one diagonal; ``batch + (num_diags, max_len)`` for a range,
        shorter diagonals padded with ``padding_value`` as ``align`` says.
    """
    tf_op = "MatrixDiagPartV3"
    x = convert_to_tensor(input)
    _check_align(align, tf_op)
    if x.array.ndim < 2:
        raise op_error(f"input must be at least 2-dim, received shape: {list(x.array.shape)}", tf_op)
    lower, upper, single = _diag_range(k, tf_op)
    rows, cols = x.array.shape[-2:]
    for end, which in ((lower, "lower"), (upper, "upper")):
        if not -rows < end < cols and rows and cols:
            raise op_error(f"{which}_diag_index is out of bound: {end}. It must be between {-rows} and {cols}", tf_op)
    flat, valid = _diagonal_table(rows, cols, lower, upper, align)
    if single:
        flat, valid = flat[0], valid[0]
    batch = x.array.shape[:-2]
    picked = call("Gather", reshape(x, batch + (rows * cols,)), flat, axis=-1, tf_op=tf_op)
    if valid.all():
        return picked
    return call("Where", valid, picked, _padding(padding_value, x), tf_op=tf_op)


def _diagonal_places(rows, cols, lower, upper, align):
    """For each entry of a (rows, cols) matrix: the index of its element among the stacked diagonals
    (flattened), and whether it lies on one of them."""
    flat, valid = _diagonal_table(rows, cols, lower, upper, align)
    source = np.zeros(rows * cols, I64)
    inside = np.zeros(rows * cols, bool)
    source[flat[valid]] = np.flatnonzero(valid)
    inside[flat[valid]] = True
    return source.reshape(rows, cols), inside.reshape(rows, cols)


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices with the given diagonal(s) and ``padding_value`` elsewhere (tf.linalg.diag, TF's MatrixDiagV3).

    Parameters
    ----------
    diagonal : Tensor, shape ``batch + (len,)`` or, for a range ``k``, ``batch + (num_diags, max_len)``
    k : int or pair of ints
    num_rows, num_cols : int
        Output matrix size; -1 infers the smallest (square when both are -1).

    Returns
    -------
    Tensor
        Shape ``batch + (num_rows, num_cols)``.
    """
    tf_op = "MatrixDiagV3"
    d = convert_to_tensor(diagonal)
    _check_align(align, tf_op)
    if d.array.ndim < 1:
        raise op_error(f"diagonal must be at least 1-dim, received shape: {list(d.array.shape)}", tf_op)
    lower, upper, single = _diag_range(k, tf_op)
    num_rows, num_cols = static_int(num_rows, "num_rows"), static_int(num_cols, "num_cols")

    def places(dims):
        """The source of each output element among the flattened diagonals, and which ones lie on them."""
        rows, cols = _diag_matrix_size(dims, single, lower, upper, num_rows, num_cols, tf_op)
        return _diagonal_places(rows, cols, lower, upper, align)

    merged = 1 if single else 2
    padding = _padding(padding_value, d)
    if shape_varies(d):  # the matrices' size follows each call's values: the graph computes the places
        source, inside = (value_shaped(t) for t in host(lambda dims: places(tuple(int(n) for n in dims)), shape_of(d)))
        flat = merged_last(d, merged)
        # One padding element after the diagonals: Gather reads the places off the diagonals (masked) from a
        # non-empty axis when the diagonals are empty.
        column = call("Where", np.arange(d.array.ndim - merged + 1) == d.array.ndim - merged, np.ones((), I64),
                      call("Shape", flat, tf_op="Shape"), tf_op="Shape")
        # (Expand may return a view of its input: a copy keeps the padding apart from that value's memory.)
        flat = call("Concat", flat, call("Expand", np.array(padding), column, tf_op=tf_op), axis=-1, tf_op=tf_op)
        spread = call("Gather", flat, source, axis=-1, tf_op=tf_op)
        return value_shaped(call("Where", inside, spread, padding, tf_op=tf_op))
    source, inside = places(d.array.shape)
    batch = d.array.shape[:-merged]
    if not d.array.size:  # no diagonal elements: padding everywhere
        return call("Expand", padding, int64s(batch + inside.shape), tf_op=tf_op)
    spread = call("Gather", reshape(d, batch + (math.prod(d.array.shape[-merged:]),)), source, axis=-1, tf_op=tf_op)
    return call("Where", inside, spread, padding, tf_op=tf_op)


def _diag_matrix_size(dims, single, lower, upper, num_rows, num_cols, tf_op):
    """``(rows, cols)`` of the matrices ``diag`` makes from diagonals of shape ``dims`` (TF's errors)."""
    width = dims[-1]
    count = 1 if single else dims[-2]
    if not single and count != upper - lower + 1:
        raise op_error("The number of diagonals provided in the input does not match the lower_diag_index and "
                       "upper_diag_index range.", tf_op)
    min_rows, min_cols = width - min(upper, 0), width + max(lower, 0)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(min_rows, min_cols)
    num_rows = min_rows if num_rows == -1 else num_rows
    num_cols = min_cols if num_cols == -1 else num_cols
    if num_rows < min_rows:
        raise op_error("The number of rows is too small.", tf_op)
    if num_cols < min_cols:
        raise op_error("The number of columns is too small.", tf_op)
    if num_rows != min_rows and num_cols != min_cols:
        raise op_error("The number of rows or columns is not consistent with the specified d_lower, d_upper, and "
                       "diagonal.", tf_op)
    return num_rows, num_cols


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002  (TF's name)
    """``input`` with diagonal(s) ``k`` replaced by ``diagonal`` (shaped as ``diag_part`` returns them)."""
    tf_op = "MatrixSetDiagV3"
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, dtype_hint=x.array.dtype)
    _check_align(align, tf_op)
    same_dtype(tf_op, x, d)
    if x.array.ndim < 2:
        raise op_error(f"input must be at least 2-dim, received shape: {list(x.array.shape)}", tf_op)
    lower, upper, single = _diag_range(k, tf_op)
    rows, cols = x.array.shape[-2:]
    flat, _ = _diagonal_table(rows, cols, lower, upper, align)
    expected = x.array.shape[:-2] + (flat.shape[1:] if single else flat.shape)
    if d.array.shape != expected:
        raise op_error("Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is "
                       f"not equal to the diagonals' count; expected diagonal shape {list(expected)}, got "
                       f"{list(d.array.shape)}", tf_op)
    source, inside = _diagonal_places(rows, cols, lower, upper, align)
    count_width = math.prod(flat.shape)
    spread = call("Gather", reshape(d, x.array.shape[:-2] + (count_width,)), source, axis=-1, tf_op=tf_op)
    return call("Where", inside, spread, x, tf_op=tf_op)


def _band_limit(value, what, limit):
    if hasattr(value, "array") and value.array.dtype != I64:
        raise op_error(f"cannot compute MatrixBandPart as input #{1 if what == 'lower' else 2}(zero-based) was "
                       f"expected to be a int64 tensor but is a {value.array.dtype.name} tensor", "MatrixBandPart")
    given = convert_to_tensor(value, dtype="int64")
    count = given.array.item()
    pinned(given, (count,), f"num_{what}", "MatrixBandPart")
    if count > limit:
        raise op_error(f"num_{what} must be negative or less or equal to number of "
                       f"{'rows' if what == 'lower' else 'columns'} ({limit}) got: {count}", "MatrixBandPart")
    return count


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002  (TF's name)
    """Keep the band of ``num_lower`` subdiagonals and ``num_upper`` superdiagonals (negative: all); zero the rest."""
    x = convert_to_tensor(input)
    if x.array.ndim < 2:
        raise op_error(f"input must be at least 2-dim, received shape: {list(x.array.shape)}", "MatrixBandPart")
    rows, cols = x.array.shape[-2:]
    lower = _band_limit(num_lower, "lower", rows)
    upper = _band_limit(num_upper, "upper", cols)
    offset = band_offsets(x)
    if isinstance(offset, np.ndarray):
        keep = ((lower < 0) | (-offset <= lower)) & ((upper < 0) | (offset <= upper))
    else:  # the traced offsets: engine ops
        limits = ([call("LessOrEqual", call("Neg", offset), np.array(lower, I64))] if lower >= 0 else []) + \
                 ([call("LessOrEqual", offset, np.array(upper, I64))] if upper >= 0 else [])
        keep = np.ones((), np.bool_) if not limits else limits[0] if len(limits) == 1 else call("And", *limits)
        if x.array.dtype == np.bool_:  # (onnxruntime has no bool Where)
            return call("And", keep, x, tf_op="MatrixBandPart")
    return call("Where", keep, x, np.zeros((), x.array.dtype), tf_op="MatrixBandPart")


def band_offsets(x):
    """Column minus row index over the last two dims of ``x`` (``[rows, cols]``, int64), to mask bands with.

    While a graph is traced these are engine ops over the sizes of each run, so that no mask of the traced
    size is kept (a tf.function whose shapes vary, a model exported with dynamic axes); else numpy.
    """
    rows, cols = x.array.shape[-2:]
    if not _tracing:
        return np.arange(cols, dtype=I64)[None, :] - np.arange(rows, dtype=I64)[:, None]
    zero, one, scalar = np.array(0, I64), np.array(1, I64), np.zeros(0, I64)

    def steps(axis):
        return call("Range", zero, call("Reshape", dim_of(x, axis), scalar, tf_op="Reshape"), one, tf_op="Range")

    return call("Sub", call("Unsqueeze", steps(-1), int64s([0])), call("Unsqueeze", steps(-2), int64s([1])))


def trace(x, name=None):
    """Sum of the main diagonal of each matrix in the last two dims."""
    x = convert_to_tensor(x)
    part = diag_part(x)
    _SUM_TYPES.check(x.array.dtype)
    return reduce("ReduceSum", part, [-1], False, "Sum")


def tensor_diag(diagonal, name=None):
    """The tensor of rank 2r with ``diagonal`` (rank r) on its diagonal: ``out[i.., i..] = diagonal[i..]``."""
    d = convert_to_tensor(diagonal)
    _DIAG_TYPES.check(d.array.dtype)
    size = d.array.size
    flat = diag(reshape(d, (size,)))
    return reshape(flat, d.array.shape * 2)


def tensor_diag_part(input, name=None):  # noqa: A002  (TF's name)
    """The diagonal of a rank-2r tensor whose first r dims equal its last r: ``out[i..] = input[i.., i..]``."""
    x = convert_to_tensor(input)
    shape = x.array.shape
    half = len(shape) // 2
    if not shape or len(shape) % 2:
        raise op_error(f"The rank of the tensor should be even and positive, got shape {list(shape)}", "DiagPart")
    for i in range(half):
        if shape[i] != shape[i + half]:
            raise op_error(f"Invalid shape {list(shape)}: dimensions {i} and {i + half} do not match.", "DiagPart")
    _DIAG_PART_TYPES.check(x.array.dtype)
    size = math.prod(shape[:half])
    return reshape(diag_part(reshape(x, (size, size))), shape[:half])


_CROSS_NEXT = np.array([1, 2, 0], I64)
_CROSS_PREV = np.array([2, 0, 1], I64)


def cross(a, b, name=None):
    """Cross product of 3-vectors along the last dim (``a`` and ``b`` of one shape)."""
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype_hint=a.array.dtype)
    same_dtype("Cross", a, b)
    if a.array.shape != b.array.shape:
        raise op_error(f"Both inputs must be of same shape: {list(a.array.shape)} vs. {list(b.array.shape)}", "Cross")
    if not a.array.ndim or a.array.shape[-1] != 3:
        raise op_error("Cross-products are only defined for 3-element vectors.", "Cross",
                       errors.FailedPreconditionError)
    _CROSS_TYPES.check(a.array.dtype)
    take = op("Gather", axis=-1)
    first = call("Mul", call(take, a, _CROSS_NEXT), call(take, b, _CROSS_PREV), tf_op="Cross")
    second = call("Mul", call(take, a, _CROSS_PREV), call(take, b, _CROSS_NEXT), tf_op="Cross")
    return call("Sub", first, second, tf_op="Cross")


NAMESPACES = {
    "tf": ["matmul", "tensordot", "einsum"],
    "linalg": ["matmul", "matvec", "tensordot", "einsum", "matrix_transpose", "adjoint", "diag", "diag_part",
               "set_diag", "band_part", "trace", "tensor_diag", "tensor_diag_part", "cross"],
}
TENSOR_METHODS = {}
