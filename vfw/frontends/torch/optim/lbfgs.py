"""torch.optim.LBFGS: limited-memory BFGS over all parameters as one flat vector (fixed step length or a strong
Wolfe line search)."""

import numpy as np

from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.optim._functional import fused_multiply_add
from vfw.frontends.torch.optim._inplace import check_lr, scalar
from vfw.frontends.torch.optim._line_search import strong_wolfe
from vfw.frontends.torch.optim.optimizer import Optimizer

__all__ = ["LBFGS"]

_wrap = _dispatch.wrap


def _array(x):
    """A state entry (a tensor, or a number) as what the update computes with."""
    return x.array if isinstance(x, _dispatch.Tensor) else x


def _tensor(x):
    """A value computed here as torch keeps it in the state: arrays and numpy scalars as tensors."""
    if isinstance(x, np.generic):
        return _wrap(np.asarray(x))
    return _wrap(x) if isinstance(x, np.ndarray) else x


def _add_scaled(x, y, alpha):
    """torch's ``x.add_(y, alpha=alpha)``: ``x + alpha * y`` rounded once (a fused multiply-add), as a new array."""
    return fused_multiply_add(y, alpha, x, out=np.empty_like(x))


class LBFGS(Optimizer):
    """L-BFGS, as ``torch.optim.LBFGS``: each ``step(closure)`` runs up to ``max_iter`` iterations.

    The parameters are treated as one vector; the search direction comes from the two-loop
    recursion over the last ``history_size`` curvature pairs; the step length is ``lr`` (``line_search_fn=None``)
    or found by a strong Wolfe line search starting from it (``'strong_wolfe'``).

    Parameters
    ----------
    params : iterable
        Tensors (one parameter group only).
    lr : float
        Step length (default 1).
    max_iter : int
        Iterations per ``step`` (default 20).
    max_eval : int, optional
        Closure evaluations per ``step`` (default ``max_iter * 5 // 4``).
    tolerance_grad : float
        Stop when the largest absolute gradient entry is at most this (default 1e-7).
    tolerance_change : float
        Stop when the step or the loss change is smaller than this (default 1e-9).
    history_size : int
        Curvature pairs kept (default 100).
    line_search_fn : None or 'strong_wolfe'
        How the step length is chosen (default None: ``lr``).
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def __setstate__(self, state):
        super().__setstate__(state)
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        """The gradients of all parameters as one vector (zeros for parameters without one)."""
        return np.concatenate([np.zeros(p.array.size, p.array.dtype) if p.grad is None else p.grad.array.reshape(-1)
                               for p in self._params])

    def _move(self, step, direction):
        """Add ``step * direction`` to the parameters (``direction`` is flat, in parameter order)."""
        start = 0
        for p in self._params:
            arr = p.array
            stop = start + arr.size
            # torch's p.add_(d, alpha=step) rounds once (a fused multiply-add): so must this, or the line search
            # drifts from torch's by an ulp a step on ill-conditioned problems.
            np.copyto(arr, _add_scaled(arr, direction[start:stop].reshape(arr.shape), step))
            _dispatch.bump_version(p)
            start = stop

    def _directional_evaluator(self, closure, direction):
        """``evaluate(step) -> (loss, flat gradient)`` at the parameters moved by ``step * direction``; the
        parameters are restored afterwards (exactly: from a copy)."""
        def evaluate(step):
            saved = [p.array.copy() for p in self._params]
            self._move(step, direction)
            loss = float(self._closure_loss(closure))
            grad = self._flat_grad()
            for p, array in zip(self._params, saved):
                np.copyto(p.array, array)
                _dispatch.bump_version(p)
            return loss, grad
        return evaluate

    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations; ``closure`` re-evaluates the model and returns the loss.

        Returns
        -------
        The loss of the closure's first evaluation.
        """
        group = self.param_groups[0]
        search = group["line_search_fn"]
        lr = scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        first_loss = self._closure_loss(closure)
        loss = float(first_loss)
        evals = 1
        state["func_evals"] += 1
        grad = self._flat_grad()
        if np.abs(grad).max() <= tolerance_grad:
            return first_loss

        direction, t = _array(state.get("d")), _array(state.get("t"))
        dirs = [_array(y) for y in state.get("old_dirs") or []]
        steps = [_array(s) for s in state.get("old_stps") or []]
        inverse_curvatures = [_array(r) for r in state.get("ro") or []]
        h_diag = _array(state.get("H_diag"))
        prev_grad, prev_loss = _array(state.get("prev_flat_grad")), state.get("prev_loss")
        iteration = 0
        while iteration < max_iter:
            iteration += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                direction = -grad
                dirs, steps, inverse_curvatures, h_diag = [], [], [], 1
            else:
                h_diag = self._remember_curvature(grad - prev_grad, direction * t, dirs, steps,
                                                  inverse_curvatures, h_diag, group["history_size"])
                direction = self._two_loop(grad, dirs, steps, inverse_curvatures, h_diag,
                                           state.setdefault("al", [None] * group["history_size"]))
            if prev_grad is None:
                prev_grad = grad.copy()
            else:
                np.copyto(prev_grad, grad)
            prev_loss = loss
            t = min(1.0, 1.0 / np.abs(grad).sum()) * lr if state["n_iter"] == 1 else lr
            if grad.dot(direction) > -tolerance_change:
                break
            if search is not None:
                if search != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                # the search may use what is left of max_eval
                loss, grad, t, searched = strong_wolfe(self._directional_evaluator(closure, direction), t,
                                                       direction, loss, grad, grad.dot(direction),
                                                       max_ls=max_eval - evals)
                self._move(t, direction)
                converged = np.abs(grad).max() <= tolerance_grad
                evals += searched
                state["func_evals"] += searched
            else:
                self._move(t, direction)
                converged = False
                if iteration != max_iter:
                    loss = float(self._closure_loss(closure))
                    grad = self._flat_grad()
                    converged = np.abs(grad).max() <= tolerance_grad
                    evals += 1
                    state["func_evals"] += 1
            if iteration == max_iter or evals >= max_eval or converged:
                break
            if np.abs(direction * t).max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break

        state.update({"d": _tensor(direction), "t": _tensor(t), "old_dirs": [_tensor(y) for y in dirs],
                      "old_stps": [_tensor(s) for s in steps], "ro": [_tensor(r) for r in inverse_curvatures],
                      "H_diag": _tensor(h_diag), "prev_flat_grad": _tensor(prev_grad), "prev_loss": prev_loss})
        return first_loss

    @staticmethod
    def _remember_curvature(y, s, dirs, steps, inverse_curvatures, h_diag, history_size):
        """Keep the pair (gradient change ``y``, step ``s``) when the curvature ``y.s`` is positive; returns the
        new initial Hessian scale ``y.s / y.y`` (unchanged when the pair is dropped)."""
        ys = y.dot(s)
        if ys <= 1e-10:
            return h_diag
        if len(dirs) == history_size:
            del dirs[0], steps[0], inverse_curvatures[0]
        dirs.append(y)
        steps.append(s)
        inverse_curvatures.append(1.0 / ys)
        return ys / y.dot(y)

    @staticmethod
    def _two_loop(grad, dirs, steps, inverse_curvatures, h_diag, coefficients):
        """The L-BFGS direction: minus the inverse-Hessian estimate applied to ``grad`` (the first-loop
        coefficients are also kept in ``coefficients``, torch's ``state['al']``)."""
        alphas = [None] * len(dirs)
        q = -grad
        for i in range(len(dirs) - 1, -1, -1):
            alphas[i] = steps[i].dot(q) * inverse_curvatures[i]
            q = _add_scaled(q, dirs[i], -alphas[i])
        r = q * h_diag
        for i in range(len(dirs)):
            beta = dirs[i].dot(r) * inverse_curvatures[i]
            r = _add_scaled(r, steps[i], alphas[i] - beta)
        for i, a in enumerate(alphas):
            coefficients[i] = _tensor(a)
        return r
