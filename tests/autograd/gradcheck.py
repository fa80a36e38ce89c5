"""Finite-difference checks of engine gradients (first, second and third order).

The oracle is central differences in float64 on the op's kernel itself, so
a gradient maker is checked against the forward it claims to differentiate.
"""

import numpy as np

from vfw.core import Tensor, autograd, execute, run


def _as_outputs(result):
    return list(result) if isinstance(result, tuple) else [result]


def _float_outputs(op_type, arrays, attrs, outputs):
    outs = _as_outputs(run(op_type, *arrays, **attrs))
    return [i for i in (range(len(outs)) if outputs is None else outputs)
            if outs[i] is not None and outs[i].dtype.kind == "f"]


def scalar_fn(op_type, attrs, weights, out_idx):
    """``f(arrays) = sum_k <w_k, op(arrays)[k]>`` evaluated with the kernel only."""

    def f(arrays):
        outs = _as_outputs(run(op_type, *arrays, **attrs))
        return sum(float(np.sum(outs[k].astype(np.float64) * w)) for k, w in zip(out_idx, weights))

    return f


def numeric_grad(f, arrays, j, eps):
    """Central-difference gradient of scalar ``f`` with respect to ``arrays[j]``."""
    x = arrays[j]
    grad = np.zeros(x.shape, np.float64)
    for idx in np.ndindex(x.shape):
        orig = x[idx]
        x[idx] = orig + eps
        hi = f(arrays)
        x[idx] = orig - eps
        lo = f(arrays)
        x[idx] = orig
        grad[idx] = (hi - lo) / (2 * eps)
    return grad


def analytic_grads(op_type, arrays, attrs, wrt, weights, out_idx, create_graph=False):
    """Engine gradients of ``sum_k <w_k, op(x)[k]>`` with respect to ``arrays[j]`` for j in ``wrt``."""
    tensors = [None if a is None else Tensor(a, requires_grad=(i in wrt)) for i, a in enumerate(arrays)]
    outs = _as_outputs(execute(op_type, *tensors, **attrs))
    targets = [outs[k] for k in out_idx]
    grads = autograd.gradient(targets, [tensors[j] for j in wrt], [Tensor(w) for w in weights],
                              create_graph=create_graph)
    return tensors, grads


def check_gradient(op_type, inputs, attrs=None, wrt=None, outputs=None, eps=1e-6, rtol=1e-5, atol=1e-7, seed=0):
    """Assert the engine gradient of ``op_type`` matches central differences (float64 inputs).

    Parameters
    ----------
    inputs : list[numpy.ndarray or None]
    wrt : list[int], optional
        Inputs to differentiate (default: every float input).
    outputs : list[int], optional
        Outputs to weigh (default: every float output).
    """
    attrs = attrs or {}
    arrays = [None if a is None else np.array(a) for a in inputs]
    wrt = [i for i, a in enumerate(arrays) if a is not None and a.dtype.kind == "f"] if wrt is None else wrt
    out_idx = _float_outputs(op_type, arrays, attrs, outputs)
    rng = np.random.default_rng(seed)
    first = _as_outputs(run(op_type, *arrays, **attrs))
    weights = [rng.standard_normal(first[k].shape).astype(first[k].dtype) for k in out_idx]
    _, grads = analytic_grads(op_type, arrays, attrs, wrt, weights, out_idx)
    f = scalar_fn(op_type, attrs, weights, out_idx)
    for j, g in zip(wrt, grads):
        expected = numeric_grad(f, arrays, j, eps)
        actual = np.zeros_like(expected) if g is None else g.array
        assert actual.shape == arrays[j].shape, f"{op_type}: grad of input {j} has shape {actual.shape}"
        assert actual.dtype == arrays[j].dtype, f"{op_type}: grad of input {j} has dtype {actual.dtype}"
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=f"{op_type} d/d input {j}")


def check_higher_order(op_type, inputs, attrs=None, wrt=None, order=2, eps=1e-5, rtol=1e-4, atol=1e-6, seed=0):
    """Assert the order-``order`` derivative (a nested VJP) matches central differences of order-1 one.

    With ``v`` random, ``F_1(x) = <v, op(x)>`` and ``F_k(x) = <w_k, grad F_{k-1}(x)>``; the engine's
    ``grad F_order`` (via create_graph) is compared with central differences of ``F_order``
    computed by the engine at order ``order - 1``.
    """
    attrs = attrs or {}
    arrays = [None if a is None else np.array(a) for a in inputs]
    wrt = [i for i, a in enumerate(arrays) if a is not None and a.dtype.kind == "f"] if wrt is None else wrt
    out_idx = _float_outputs(op_type, arrays, attrs, None)
    rng = np.random.default_rng(seed)
    first = _as_outputs(run(op_type, *arrays, **attrs))
    weights = [rng.standard_normal(first[k].shape) for k in out_idx]
    level_weights = [[rng.standard_normal(arrays[j].shape) for j in wrt] for _ in range(order - 1)]

    def nested(arrs, levels):
        """F_levels(x) as an engine tensor, and the leaf tensors."""
        tensors, grads = analytic_grads(op_type, arrs, attrs, wrt, weights, out_idx, create_graph=True)
        for lw in level_weights[:levels - 1]:
            total = None
            for g, w in zip(grads, lw):
                if g is None:
                    continue
                term = execute("ReduceSum", execute("Mul", g, Tensor(w)), np.zeros(0, np.int64), keepdims=0)
                total = term if total is None else execute("Add", total, term)
            if total is None:  # the previous derivative is constant: all higher ones vanish
                return tensors, [None] * len(wrt)
            grads = autograd.gradient([total], [tensors[j] for j in wrt], create_graph=True)
        return tensors, grads

    tensors, grads = nested(arrays, order)
    lw = level_weights[order - 2]

    def f(arrs):
        _, gs = nested(arrs, order - 1)
        return sum(0.0 if g is None else float(np.sum(g.array * w)) for g, w in zip(gs, lw))

    for j, g in zip(wrt, grads):
        expected = numeric_grad(f, arrays, j, eps)
        actual = np.zeros_like(expected) if g is None else g.array
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol,
                                   err_msg=f"{op_type} order-{order} derivative, input {j}")


def check_loss_gradient(loss, shapes, rng, eps=1e-6, rtol=1e-5, atol=1e-7):
    """Engine gradients of the real scalar ``loss(*leaves)`` (built from engine ops) with respect to real float64
    leaves of ``shapes`` (drawn from ``rng``) against central differences."""
    arrays = [rng.standard_normal(s) for s in shapes]
    leaves = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    grads = autograd.gradient([loss(*leaves)], leaves)

    def f(values):
        return float(loss(*[Tensor(v.copy()) for v in values]).array)

    for j in range(len(arrays)):
        np.testing.assert_allclose(grads[j].array, numeric_grad(f, arrays, j, eps), rtol=rtol, atol=atol)
