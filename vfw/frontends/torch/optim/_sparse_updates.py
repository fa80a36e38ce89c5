"""Optimizer updates from sparse COO gradients (``Embedding(sparse=True)``), in numpy and in place.

A sparse gradient touches the rows its indices name: parameters and state are viewed as
``(rows, *dense)`` over the gradient's sparse dims and updated at those rows only, in the order of
torch's single-tensor implementations (SGD, Adagrad, SparseAdam), so results agree with torch's.
"""

import math

import numpy as np

from vfw.frontends.torch import _sparse_ops


def _rows(array, grad):
    """``array`` viewed as ``(rows, *dense)`` over ``grad``'s sparse dims."""
    return array.reshape(-1, *array.shape[grad.sparse_dim():])


def add_sparse_(array, grad, alpha=1.0):
    """``array += alpha * grad`` (dense ``array``, sparse ``grad``; entries sharing an index added one by one)."""
    values = grad._values().array
    if alpha != 1:
        values = values * array.dtype.type(alpha)
    np.add.at(_rows(array, grad), grad._linear_index(), values.astype(array.dtype, copy=False))


def _signed(grad, maximize):
    return -grad if maximize else grad


def sgd(p, grad, state, *, lr, momentum, dampening, nesterov, weight_decay, maximize):
    """torch's SGD step for a sparse gradient (momentum buffers stay sparse; weight decay is refused)."""
    if weight_decay:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    grad = _signed(grad, maximize)
    if momentum:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = grad.clone()
        else:
            buf = _sparse_ops.add(buf * momentum, grad, alpha=1 - dampening)
        state["momentum_buffer"] = buf
        grad = _sparse_ops.add(grad, buf, alpha=momentum) if nesterov else buf
    add_sparse_(p.array, grad, -lr)


def adagrad(p, grad, state_sum, *, step, lr, lr_decay, eps, weight_decay, maximize):
    """torch's Adagrad step for a sparse gradient (weight decay is refused)."""
    if weight_decay:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    grad = _signed(grad, maximize).coalesce()
    rows, values = grad._linear_index(), grad._values().array
    total = _rows(state_sum, grad)
    total[rows] += values * values
    std = np.sqrt(total[rows])
    std += eps
    clr = lr / (1 + (step - 1) * lr_decay)
    _rows(p.array, grad)[rows] += (values / std) * p.array.dtype.type(-clr)


def sparse_adam(p, grad, exp_avg, exp_avg_sq, *, step, lr, beta1, beta2, eps, maximize):
    """torch's SparseAdam step: the moments are updated, and the parameter moved, at the gradient's rows only."""
    grad = _signed(grad, maximize).coalesce()
    rows, values = grad._linear_index(), grad._values().array
    if values.size == 0:
        return
    avg, avg_sq = _rows(exp_avg, grad), _rows(exp_avg_sq, grad)
    old_avg = avg[rows]
    avg_update = (values - old_avg) * (1 - beta1)
    avg[rows] += avg_update
    old_avg_sq = avg_sq[rows]
    avg_sq_update = (values * values - old_avg_sq) * (1 - beta2)
    avg_sq[rows] += avg_sq_update
    numer = avg_update + old_avg
    denom = np.sqrt(avg_sq_update + old_avg_sq)
    denom += eps
    step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
    _rows(p.array, grad)[rows] += (numer / denom) * p.array.dtype.type(-step_size)
