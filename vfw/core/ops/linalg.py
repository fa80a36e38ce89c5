"""Linear algebra: MatMul (numpy semantics), Gemm and Einsum.

float16 and bfloat16 products are computed in float32 (BLAS, and one rounding
at the end) rather than in numpy's slow, half-precision-accumulating loops.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import NoGradientError, register_gradient
from vfw.core.errors import OpAttributeError, OpInputError, ShapeError
from vfw.core.ops._common import (
    array_of,
    bound_op,
    broadcast_shapes,
    conj,
    execute,
    int64s,
    require,
    reshape_to,
    unbroadcast,
)
from vfw.core.registry import Attr, TensorInfo, defop, describe

_HALF = frozenset({dt.float16, dt.bfloat16})
_F32 = dt.float32
_MATMUL_TYPES = frozenset({dt.uint32, dt.uint64, dt.int32, dt.int64}) | dt.FLOATS | dt.COMPLEX


def _finish(result, dtype, out):
    """``result`` as an ndarray of ``dtype``, written into ``out`` when given."""
    if out is not None:
        if result is not out:
            np.copyto(out, result, casting="unsafe")
        return out
    if type(result) is np.ndarray and result.dtype == dtype:
        return result
    return np.asarray(result, dtype)


# -- MatMul ------------------------------------------------------------------------------
def _matmul_shape(a, b, da=None, db=None):
    """Output shape of numpy ``matmul`` for shapes ``a`` and ``b`` (dims may be None).

    ``da`` and ``db`` describe the inputs in error messages (default: their shapes).
    """
    da = da or f"shape {tuple(a)}"
    db = db or f"shape {tuple(b)}"
    if not a or not b:
        raise ShapeError(f"MatMul: inputs must have rank >= 1, got A {da} and B {db}")
    a2 = a if len(a) > 1 else (1,) + tuple(a)
    b2 = b if len(b) > 1 else tuple(b) + (1,)
    if a2[-1] is not None and b2[-2] is not None and a2[-1] != b2[-2]:
        raise ShapeError(f"MatMul: inner dimensions differ: A {da} @ B {db} ({a2[-1]} != {b2[-2]})")
    try:
        batch = broadcast_shapes(a2[:-2], b2[:-2])
    except ShapeError:
        raise ShapeError(f"MatMul: batch dimensions of A {da} and B {db} cannot be broadcast together") from None
    return batch + tuple(a2[-2:-1] if len(a) > 1 else ()) + tuple(b2[-1:] if len(b) > 1 else ())


def _matmul_infer(attrs, infos):
    a, b = infos
    if a.shape is None or b.shape is None:
        return [TensorInfo(None, a.dtype)]
    return [TensorInfo(_matmul_shape(a.shape, b.shape), a.dtype)]


@defop("MatMul", inputs="A:T B:T", outputs="Y:T", types={"T": _MATMUL_TYPES}, infer=_matmul_infer)
def matmul():
    """Matrix product with numpy ``matmul`` semantics (1-D operands, broadcast batch dimensions)."""

    def kernel(a, b, out=None):
        # numpy reports every shape mismatch (incl. 0-d operands) as a ValueError;
        # only then is the descriptive check worth its cost.
        try:
            if a.dtype in _HALF:
                return _finish(np.matmul(a.astype(_F32), b.astype(_F32)), a.dtype, out)
            if a.ndim == 2 and b.ndim == 2 and (out is None or out.flags.c_contiguous):
                return np.dot(a, b, out=out)  # BLAS straight on transposed views; matmul may copy them
            return np.matmul(a, b, out=out)
        except ValueError:
            _matmul_shape(a.shape, b.shape, describe(a), describe(b))
            raise

    return kernel


# -- Gemm --------------------------------------------------------------------------------
def _gemm_shape(attrs, a, b, c, da="A", db="B", dc="C"):
    """``(M, N)`` of Gemm after checking ranks, the inner dimension and C's broadcast."""
    require("Gemm", len(a) == 2 and len(b) == 2, f"A and B must be 2-D, got {da} and {db}")
    m, ka = a[::-1] if attrs["transA"] else a
    kb, n = b[::-1] if attrs["transB"] else b
    require("Gemm", ka is None or kb is None or ka == kb,
            f"inner dimensions differ: {da} (transA={attrs['transA']}) and {db} (transB={attrs['transB']}) "
            f"give K={ka} and K={kb}")
    if c is not None:
        ok = len(c) <= 2 and all(d is None or t is None or d in (1, t) for d, t in zip(c[::-1], (n, m)))
        require("Gemm", ok, f"C {dc} cannot be broadcast to the output shape ({m}, {n})")
    return m, n


def _broadcasts(c, m, n):
    """Whether a C of shape ``c`` broadcasts unidirectionally to ``(m, n)``."""
    return len(c) <= 2 and (not c or c[-1] in (1, n)) and (len(c) < 2 or c[0] in (1, m))


def _gemm_infer(attrs, infos):
    a, b = infos[0], infos[1]
    c = infos[2] if len(infos) > 2 else None
    if a.shape is None or b.shape is None:
        return [TensorInfo(None, a.dtype)]
    c_shape = None if c is None or c.shape is None else c.shape
    return [TensorInfo(_gemm_shape(attrs, a.shape, b.shape, c_shape), a.dtype)]


@defop("Gemm", inputs="A:T B:T C?:T", outputs="Y:T", types={"T": _MATMUL_TYPES},
       attrs={"alpha": Attr("float", 1.0), "beta": Attr("float", 1.0),
              "transA": Attr("int", 0, choices=(0, 1)), "transB": Attr("int", 0, choices=(0, 1))},
       infer=_gemm_infer)
def gemm(alpha, beta, transA, transB):
    """``Y = alpha * A' @ B' + beta * C`` for 2-D A and B (optionally transposed) and broadcast C.

    When ``beta`` is 0, C is not read (NaN or inf in it does not propagate), as in BLAS.
    """
    attrs = {"transA": transA, "transB": transB}
    whole = float(alpha).is_integer() and float(beta).is_integer()

    def check(a, b, c):
        if a.ndim != 2 or b.ndim != 2 or a.shape[1 - transA] != b.shape[transB] or (
                c is not None and not _broadcasts(c.shape, a.shape[transA], b.shape[1 - transB])):
            _gemm_shape(attrs, a.shape, b.shape, None if c is None else c.shape,
                        f"A {describe(a)}", f"B {describe(b)}", describe(c))

    def kernel(a, b, c=None, out=None):
        check(a, b, c)
        a_t = a.T if transA else a  # transposed views: BLAS reads them without a copy
        b_t = b.T if transB else b
        if beta == 0:
            c = None
        dtype = a.dtype
        if dtype in _HALF or (dtype.kind in "iu" and not (whole and (dtype.kind == "i" or min(alpha, beta) >= 0))):
            # Half floats in float32; integers with fractional (or, unsigned, negative) scales in
            # float64, truncated toward zero at the end like ONNX.
            work = _F32 if dtype in _HALF else np.float64
            y = np.matmul(a_t.astype(work), b_t.astype(work))
            if alpha != 1:
                y *= alpha
            if c is not None:
                y += c * beta if beta != 1 else c
            return _finish(np.trunc(y, out=y) if dtype.kind in "iu" else y, dtype, out)
        # np.dot hands transposed views to BLAS as they are (np.matmul copies some: ~30% slower on x @ W.T).
        y = np.dot(a_t, b_t, out=out) if out is None or out.flags.c_contiguous else np.matmul(a_t, b_t, out=out)
        scale_a, scale_b = (int(alpha), int(beta)) if dtype.kind in "iu" else (alpha, beta)
        if alpha != 1:
            y *= scale_a
        if c is not None:
            y += c if beta == 1 else np.multiply(c, scale_b, dtype=dtype)
        return y

    return kernel


# -- Einsum ------------------------------------------------------------------------------
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _parse_term(equation, term):
    """A term as a string of labels, with ``.`` standing for its ellipsis."""
    short = term.replace("...", ".")
    if term.count(".") != 3 * short.count(".") or short.count(".") > 1 or not set(short) <= _LETTERS | {"."}:
        raise OpAttributeError(f"Einsum: bad term {term!r} in equation {equation!r} "
                                "(terms are letters with at most one '...')")
    return short


def _parse_equation(equation):
    """``(input terms, output term, numpy equation)``; implicit output made explicit per ONNX."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    if "->" in rhs:
        raise OpAttributeError(f"Einsum: equation {equation!r} has more than one '->'")
    terms = [_parse_term(equation, t) for t in lhs.split(",")]
    labels = "".join(terms).replace(".", "")
    if arrow:
        output = _parse_term(equation, rhs)
        unknown = set(output) - set(labels) - {"."}
        if unknown or len(set(output)) != len(output):
            raise OpAttributeError(f"Einsum: output term {rhs!r} of {equation!r} repeats a label or uses one "
                                    f"no input has ({''.join(sorted(unknown))})")
    else:
        # Labels that occur once, in ASCII order (upper case first), after the ellipsis dims.
        output = ("." if any("." in t for t in terms) else "") + "".join(
            sorted(c for c in set(labels) if labels.count(c) == 1))
    return terms, output, ",".join(terms).replace(".", "...") + "->" + output.replace(".", "...")


def _einsum_shapes(equation, terms, output, shapes, name):
    """Output shape, after checking ranks and label sizes (dims may be None).

    ``name(i)`` describes input ``i`` in error messages.
    """
    sizes, where = {}, {}
    ellipses = []
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        named = len(term) - ("." in term)
        if "." in term:
            require("Einsum", len(shape) >= named,
                    f"input {i} {name(i)} has rank {len(shape)} < {named} labels of term "
                    f"'{term.replace('.', '...')}' "
                    f"in {equation!r}")
            cut = term.index(".")
            tail = len(shape) - (named - cut)
            ellipses.append(tuple(shape[cut:tail]))
            dims = shape[:cut] + shape[tail:]
            term = term.replace(".", "")
        else:
            require("Einsum", len(shape) == named,
                    f"input {i} {name(i)} has rank {len(shape)} but term '{term}' of {equation!r} "
                    f"names {named} dimensions")
            dims = shape
        for label, d in zip(term, dims):
            known = sizes.get(label)
            if known is None:
                sizes[label], where[label] = d, i
            elif d is not None and known != d:
                raise ShapeError(f"Einsum: label '{label}' of {equation!r} has size {known} in input {where[label]} "
                                 f"{name(where[label])} but {d} in input {i} {name(i)}")
    broadcast = ()
    if ellipses:
        try:
            broadcast = broadcast_shapes(*ellipses)
        except ShapeError:
            raise ShapeError(f"Einsum: the '...' dimensions of {equation!r} cannot be broadcast together: "
                             f"{', '.join(name(i) for i in range(len(shapes)))}") from None
        require("Einsum", "." in output or not broadcast,
                f"the output of {equation!r} must contain '...' to keep the {len(broadcast)} ellipsis dimensions")
    return tuple(d for label in output for d in (broadcast if label == "." else (sizes[label],)))


def _einsum_infer(attrs, infos):
    terms, output, _ = _parse_equation(attrs["equation"])
    dtype = infos[0].dtype
    if len(infos) != len(terms) or any(i.shape is None for i in infos):
        return [TensorInfo(None, dtype)]
    shapes = [i.shape for i in infos]
    shape = _einsum_shapes(attrs["equation"], terms, output, shapes, lambda i: f"shape {shapes[i]}")
    return [TensorInfo(shape, dtype)]


@defop("Einsum", inputs="Inputs*:T", outputs="Output:T", types={"T": dt.NUMERIC | dt.COMPLEX},
       attrs={"equation": Attr("string")}, infer=_einsum_infer)
def einsum(equation):
    """Einstein summation over the inputs as the ``equation`` says (numpy ``einsum``, BLAS for large products;
    complex inputs too, not ONNX)."""
    terms, output, numpy_eq = _parse_equation(equation)
    count = len(terms)
    checked = set()  # input shape signatures already validated

    def kernel(*inputs, out=None):
        if len(inputs) != count:
            raise OpInputError(f"Einsum: equation {equation!r} has {count} input terms, got {len(inputs)} inputs")
        shapes = tuple([x.shape for x in inputs])
        if shapes not in checked:
            _einsum_shapes(equation, terms, output, shapes, lambda i: describe(inputs[i]))
            if len(checked) < 256:
                checked.add(shapes)
        dtype = inputs[0].dtype
        ops = [x.astype(_F32) for x in inputs] if dtype in _HALF else inputs
        # Contraction paths (tensordot/BLAS) pay off on large operands; small ones favour the C loop.
        optimize = count > 2 or (count == 2 and ops[0].size * ops[1].size >= 1 << 16)
        result = np.einsum(numpy_eq, *ops, optimize=optimize)
        if count == 1 and type(result) is np.ndarray and np.may_share_memory(result, ops[0]):
            result = result.copy()  # transposes and diagonals come back as views of the input
        return _finish(result, dtype, out)

    return kernel


# -- gradients ----------------------------------------------------------------------------
def _swap_last(x):
    """``x`` with its last two dims swapped."""
    perm = list(range(array_of(x).ndim))
    perm[-2:] = perm[-1], perm[-2]
    return execute("Transpose", x, perm=perm)


def _reshaped(x, shape):
    return x if array_of(x).shape == tuple(shape) else reshape_to(x, shape)


@register_gradient("MatMul")
def _matmul_grad(node, g):
    a, b = map(conj, node.inputs)  # complex: products with the conjugate operands (g @ B^H, A^H @ g)
    need_a, need_b = node.needs_input_grad
    sa, sb = array_of(a).shape, array_of(b).shape
    if len(sa) == 2 and len(sb) == 2:  # matrices (the usual case): Gemm reads transposed operands in place
        return (execute(bound_op("Gemm", transB=1), g, b) if need_a else None,
                execute(bound_op("Gemm", transA=1), a, g) if need_b else None)
    if len(sa) == 1 and len(sb) == 1:  # dot product: g is a scalar
        return (execute("Mul", g, b) if need_a else None), (execute("Mul", g, a) if need_b else None)
    # numpy's promotion of 1-D operands: (k,) is (1, k) on the left and (k, 1) on the right.
    a2 = sa if len(sa) > 1 else (1,) + sa
    b2 = sb if len(sb) > 1 else sb + (1,)
    gs = g.array.shape
    g2 = _reshaped(g, gs[:len(gs) - (len(sa) > 1) - (len(sb) > 1)] + (a2[-2], b2[-1]))
    ga = gb = None
    if len(a2) == 2 and len(b2) == 2:  # a vector and a matrix, as matrices
        if need_a:
            ga = execute(bound_op("Gemm", transB=1), g2, _reshaped(b, b2))
        if need_b:
            gb = execute(bound_op("Gemm", transA=1), _reshaped(a, a2), g2)
    else:
        if need_a:
            bt = _reshaped(b, (1, sb[0])) if len(sb) == 1 else _swap_last(b)
            ga = unbroadcast(execute("MatMul", g2, bt), a2)
        if need_b:
            if len(sb) <= 2:
                # B has no batch dims (a linear layer): fold A's batch dims into the rows, one GEMM.
                gb = execute("Gemm", _reshaped(a, (-1, sb[0])), _reshaped(g2, (-1, b2[1])), transA=1)
            else:
                at = _reshaped(a, (sa[0], 1)) if len(sa) == 1 else _swap_last(a)
                gb = unbroadcast(execute("MatMul", at, g2), b2)
    return (None if ga is None else _reshaped(ga, sa)), (None if gb is None else _reshaped(gb, sb))


@register_gradient("Gemm")
def _gemm_grad(node, g):
    # Y = alpha * A' @ B' + beta * C with A' = A or A^T, B' = B or B^T:
    # dA' = alpha * g @ B'^T and dB' = alpha * A'^T @ g, each one Gemm with transposition flags.
    a, b = map(conj, node.inputs[:2])  # complex: the conjugate operands
    c = node.inputs[2] if len(node.inputs) > 2 else None
    needs = node.needs_input_grad + (False,) * (3 - len(node.needs_input_grad))
    alpha, beta = node.attrs["alpha"], node.attrs["beta"]
    trans_a, trans_b = node.attrs["transA"], node.attrs["transB"]
    ga = gb = gc = None
    if needs[0]:
        ga = (execute(bound_op("Gemm", alpha=alpha, transA=trans_b, transB=1), b, g) if trans_a
              else execute(bound_op("Gemm", alpha=alpha, transB=1 - trans_b), g, b))
    if needs[1]:
        gb = (execute(bound_op("Gemm", alpha=alpha, transA=1, transB=trans_a), g, a) if trans_b
              else execute(bound_op("Gemm", alpha=alpha, transA=1 - trans_a), a, g))
    if needs[2] and c is not None:
        if beta == 0:  # C is not read at all
            gc = execute("ConstantOfShape", int64s(c.array.shape), value=np.zeros(1, c.array.dtype))
        else:
            gc = g if beta == 1 else execute("Mul", g, np.asarray(beta, g.array.dtype))
            if c.array.shape == g.array.shape[1:]:
                # A bias row (a linear layer): column sums into fresh memory, no reshaped view (.grad copies views).
                gc = execute(bound_op("ReduceSum", keepdims=0), gc, int64s((0,)))
            else:
                gc = unbroadcast(gc, c.array.shape)
    return ga, gb, gc


def _einsum_operand_grad(i, terms, output, inputs, g, sizes, spare):
    """Gradient of Einsum input ``i``: an einsum of the other inputs and ``g`` (ellipses made explicit).

    A label repeated in term ``i`` (a diagonal) gets a spare label per repeat and an identity
    matrix linking the two; labels summed only inside term ``i`` (or size-1 broadcast dims) are
    absent from the other terms, so the einsum leaves them out and an Expand restores them.
    """
    dtype = inputs[i].array.dtype
    target, extra_terms, extra = [], [], []
    spare = iter(spare)
    for label in terms[i]:
        if label in target:
            fresh = next(spare, None)
            if fresh is None:
                raise NoGradientError(f"Einsum: too many labels to differentiate {terms} -> {output!r} "
                                      f"with respect to input {i}")
            target.append(fresh)
            extra_terms.append(label + fresh)
            extra.append(np.eye(sizes[label], dtype=dtype))
            sizes[fresh] = sizes[label]
        else:
            target.append(label)
    others = [j for j in range(len(terms)) if j != i]
    lhs = [terms[j] for j in others] + [output] + extra_terms
    known = set("".join(lhs))
    result = "".join(c for c in target if c in known)
    # complex: the other operands conjugated (torch's conjugate-Wirtinger gradient)
    grad = execute("Einsum", *[conj(inputs[j]) for j in others], g, *extra,
                   equation=",".join(lhs) + "->" + result)
    shape = inputs[i].array.shape
    if len(result) < len(target):
        grad = _reshaped(grad, [sizes[c] if c in known else 1 for c in target])
        grad = execute("Expand", grad, int64s(shape))
    return grad


@register_gradient("Einsum")
def _einsum_grad(node, g):
    terms, output, _ = _parse_equation(node.attrs["equation"])
    inputs = node.inputs
    shapes = [array_of(x).shape for x in inputs]
    free = [c for c in sorted(_LETTERS) if c not in set("".join(terms) + output)]
    # Ellipsis dims get explicit labels: one per broadcast dim, and a label of its own for a size-1
    # dim that broadcasts (it is summed over in that input's gradient).
    cuts = []
    for term, shape in zip(terms, shapes):
        if "." in term:
            start = term.index(".")
            cuts.append((start, len(shape) - (len(term) - 1 - start)))
        else:
            cuts.append(None)
    spans = [shape[cut[0]:cut[1]] for shape, cut in zip(shapes, cuts) if cut is not None]
    wide = tuple(np.broadcast_shapes(*spans)) if spans else ()

    def take():
        if not free:
            raise NoGradientError(f"Einsum: too many labels to differentiate {node.attrs['equation']!r} "
                                  f"with its '...' made explicit (52 letters at most)")
        return free.pop()

    shared = [take() for _ in wide]
    explicit = []
    for term, shape, cut in zip(terms, shapes, cuts):
        if cut is not None:
            span = shape[cut[0]:cut[1]]
            lead = len(wide) - len(span)
            term = term.replace(".", "".join(shared[lead + k] if d == wide[lead + k] else take()
                                             for k, d in enumerate(span)))
        explicit.append(term)
    output = output.replace(".", "".join(shared))
    sizes = {}
    for term, shape in zip(explicit, shapes):
        sizes.update(zip(term, shape))
    return tuple(_einsum_operand_grad(i, explicit, output, inputs, g, dict(sizes), free) if need else None
                 for i, need in enumerate(node.needs_input_grad))
