"""torch.optim.Adafactor: Adam-like steps from factored (row and column) second moments."""

import numpy as np

from vfw.frontends.torch.optim._functional import lerp_
from vfw.frontends.torch.optim._inplace import InPlaceOptimizer, next_step, scalar, step_counter, zeros_like

__all__ = ["Adafactor"]


def _rms(x):
    return float(np.linalg.norm(x.reshape(-1).astype(np.float64))) / (x.size ** 0.5)


def adafactor(p, g, row_var, col_var, variance, *, step, lr, beta2_decay, eps1, eps2, d, weight_decay, maximize,
              s):
    """One Adafactor update. Matrices (and stacks of them) keep the mean square of each row and column of the
    gradient, whose outer product over the rows' mean estimates the second moment; vectors keep it whole."""
    grad = np.negative(g, out=s[0]) if maximize else g
    beta2_weight = step ** beta2_decay  # 1 - beta2 at this step
    rho = min(lr, 1 / step ** 0.5)
    alpha = max(eps2, _rms(p)) * rho
    if weight_decay:
        p *= 1 - lr * weight_decay
    squares = np.square(grad, out=s[1])
    if variance is None:
        lerp_(row_var, squares.mean(axis=-1, keepdims=True, dtype=p.dtype), beta2_weight, np.empty_like(row_var))
        lerp_(col_var, squares.mean(axis=-2, keepdims=True, dtype=p.dtype), beta2_weight, np.empty_like(col_var))
        estimate = np.matmul(row_var, col_var, out=s[1])
        estimate /= np.maximum(row_var.mean(axis=-2, keepdims=True), eps1)
    else:
        lerp_(variance, squares, beta2_weight, np.empty_like(variance))
        estimate = s[1]
        np.copyto(estimate, variance)
    np.maximum(estimate, eps1 * eps1, out=estimate)
    update = np.sqrt(estimate, out=estimate)
    np.divide(grad, update, out=update)
    denom = max(1.0, _rms(update) / d)
    update *= -alpha / denom
    p += update


class Adafactor(InPlaceOptimizer):
    """Adafactor, as ``torch.optim.Adafactor``.

    Parameters
    ----------
    params : iterable
        Tensors, parameter-group dicts or ``(name, tensor)`` pairs.
    lr : float or Tensor
        Largest relative step (default 1e-2); step ``t`` uses ``min(lr, 1 / sqrt(t))``.
    beta2_decay : float
        ``1 - beta2 = t ** beta2_decay`` (default -0.8, must be <= 0).
    eps : (float or None, float)
        Floor of the second moment's square root (None: the dtype's machine epsilon) and of the parameter's RMS
        (default (None, 1e-3)).
    d : float
        Clipping threshold of the update's RMS (default 1, at least 1).
    weight_decay : float
        Decoupled weight decay (default 0).
    foreach, maximize
        As in torch.
    """

    _rule = staticmethod(adafactor)

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *, foreach=None,
                 maximize=False):
        checks = ((0.0 <= scalar(lr), f"Learning rate should be >= 0 but is: {lr}"),
                  (beta2_decay <= 0, f"beta2_decay should be <= 0 but is: {beta2_decay}"),
                  (eps[0] is None or eps[0] >= 0, f"epsilon1 should be >= 0 but is: {eps[0]}"),
                  (eps[1] >= 0, f"epsilon2 should be >= 0 but is: {eps[1]}"),
                  (d >= 1, f"Clipping threshold d should be >= 1 but is: {d}"),
                  (weight_decay >= 0, f"weight_decay should be >= 0 but is: {weight_decay}"))
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    _group_defaults = (("foreach", None), ("maximize", False))

    def _hyperparameters(self, group):
        eps1, eps2 = group["eps"]
        return {"lr": scalar(group["lr"]), "beta2_decay": group["beta2_decay"], "eps1": eps1, "eps2": eps2,
                "d": group["d"], "weight_decay": group["weight_decay"], "maximize": group["maximize"]}

    def _init_state(self, state, p, group):
        state["step"] = step_counter()
        if p.dim() > 1:
            state["row_var"] = zeros_like(p[..., :1])
            state["col_var"] = zeros_like(p[..., :1, :])
        else:
            state["variance"] = zeros_like(p)

    def _prepare(self, p, g, state, hyper):
        eps1 = hyper["eps1"]
        kwargs = dict(hyper, step=next_step(state), eps1=float(np.finfo(p.dtype).eps) if eps1 is None else eps1)
        arrays = (p, g, None, None, state["variance"].array) if "variance" in state else \
            (p, g, state["row_var"].array, state["col_var"].array, None)
        return arrays, kwargs

    def _apply(self, arrays, kwargs, count):
        # Not elementwise (row and column means, norms): always on whole arrays.
        self._rule(*arrays, s=self._scratch(arrays[0].dtype, arrays[0].shape, count), **kwargs)
