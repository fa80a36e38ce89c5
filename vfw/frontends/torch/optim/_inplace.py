"""The shared step loop of the built-in optimizers: numpy updates in place, torch's argument checks.

A built-in optimizer says how to start a parameter's state (``_init_state``), which arrays
and per-parameter values its update rule (a function of ``_functional.py``) takes
(``_prepare``), and how many scratch arrays the rule needs. ``step`` visits the parameters
that have gradients, group by group, as torch's single-tensor loop does.

Rules are elementwise, so a large parameter is updated block by block: the scratch arrays
then stay in cache (the update costs about what torch's fused kernels cost) and scratch
memory is bounded by the block size.
"""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch, _dtype
from vfw.frontends.torch.optim.optimizer import Optimizer

_bump_version = _dispatch.bump_version
_CAPTURABLE_DEVICES = "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"
BLOCK = 32768  # elements updated per rule call on large parameters (128 KiB of float32 per array)


class InPlaceOptimizer(Optimizer):
    """An optimizer whose update runs on the parameter's array and numpy state arrays in place."""

    _rule = None  # the update rule: staticmethod(_functional.<name>)
    _scratch_count = 2  # scratch arrays the update rule needs
    _capturable_message = f"If capturable=True, params and state_steps must be on supported devices: " \
                          f"{_CAPTURABLE_DEVICES}."
    _sparse_refusal = "{name} does not support sparse gradients"  # torch's words (most optimizers)

    def _hyperparameters(self, group):
        """The keyword arguments of the update rule for ``group`` (read once per group and step)."""
        raise NotImplementedError

    def _init_state(self, state, p, group):
        """Fill the empty ``state`` dict of parameter ``p`` (vfw tensors, as torch's state holds)."""
        raise NotImplementedError

    def _prepare(self, p, g, state, hyper):
        """Count the step of one parameter; returns ``(arrays, kwargs)`` of its update rule.

        ``arrays`` starts with the parameter and gradient arrays, then the state arrays (None
        for absent ones); ``kwargs`` are ``hyper`` plus per-parameter values such as the step.
        """
        raise NotImplementedError

    def __setstate__(self, state):
        super().__setstate__(state)
        # State saved with numbers where torch now keeps 0-d tensors (older torch versions)
        for group in self.param_groups:
            for p in group["params"]:
                saved = self.state.get(p)
                for key in ("step", "mu_product"):
                    if saved and key in saved and not isinstance(saved[key], CoreTensor):
                        saved[key] = step_counter(fused=bool(group.get("fused") or group.get("capturable")),
                                                  value=float(saved[key]))

    def _keeps_state(self, group):
        """Whether parameters of ``group`` have state (SGD without momentum has none)."""
        return True

    def _scratch_needed(self, group):
        """How many scratch arrays the update rule needs for ``group``."""
        return self._scratch_count

    def step(self, closure=None):
        """Perform one optimization step.

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss (run with gradients enabled).

        Returns
        -------
        The closure's loss, or None.
        """
        loss = self._closure_loss(closure)
        states = self.state
        for group in self.param_groups:
            hyper = self._hyperparameters(group)
            keeps_state = self._keeps_state(group)
            capturable = group.get("capturable", False)
            differentiable = group.get("differentiable", False)
            count = self._scratch_needed(group)
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                state = None
                if keeps_state:
                    state = states[p]
                    if not state:
                        self._init_state(state, p, group)
                    if capturable:
                        raise AssertionError(self._capturable_message)
                if differentiable and p.requires_grad:
                    _refuse_differentiable_step(p)
                if not p.array.flags.writeable:
                    _dispatch.check_writeable(p, f"{type(self).__name__}.step")
                if getattr(grad, "is_sparse", False):  # Embedding(sparse=True)'s gradients
                    self._sparse_step(p, grad, state, hyper)
                    _bump_version(p)
                    continue
                arrays, kwargs = self._prepare(p.array, grad.array, state, hyper)
                self._apply(arrays, kwargs, count)
                _bump_version(p)
        return loss

    def _sparse_step(self, p, grad, state, hyper):
        """Update ``p`` from a sparse COO gradient (optimizers that support it override this)."""
        raise RuntimeError(self._sparse_refusal.format(name=type(self).__name__))

    def _apply(self, arrays, kwargs, count):
        """Run the update rule on whole arrays, or block by block over large contiguous ones."""
        arrays = [_real_view(a) for a in arrays]
        p = arrays[0]
        size = p.size
        if size <= BLOCK or not all(a is None or a.flags.c_contiguous for a in arrays):
            self._rule(*arrays, s=self._scratch(p.dtype, p.shape, count), **kwargs)
            return
        flat = [None if a is None else a.reshape(-1) for a in arrays]
        scratch = self._scratch(p.dtype, (BLOCK,), count)
        for start in range(0, size, BLOCK):
            stop = min(start + BLOCK, size)
            s = scratch if stop - start == BLOCK else [x[:stop - start] for x in scratch]
            self._rule(*[None if a is None else a[start:stop] for a in flat], s=s, **kwargs)


def _real_view(a):
    """A complex array as torch's ``view_as_real`` (a trailing axis of real and imaginary parts): optimizers update
    complex parameters and their state as pairs of real numbers; other arrays as they are."""
    if a is None or a.dtype.kind != "c":
        return a
    return a[..., None].view(a.real.dtype)


def _refuse_differentiable_step(p):
    if p.grad_node is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    raise NotImplementedError("differentiable=True optimizer steps through parameters that require grad are not "
                              "supported by vfw.torch (the update is not recorded for autograd)")


def scalar(x):
    """A hyperparameter as a Python float (a learning rate may be a one-element tensor)."""
    return float(x.array) if isinstance(x, CoreTensor) else x


def zeros_like(p, fill=0):
    """A state tensor shaped like parameter ``p`` (its dtype), filled with ``fill`` (``fill + fill * 1j`` for a
    complex ``p``, as torch fills both parts of its ``view_as_real`` pairs)."""
    return _dispatch.wrap(np.full_like(p.array, complex(fill, fill) if p.array.dtype.kind == "c" else fill))


def step_counter(fused=False, value=0.0):
    """A state ``step``: a 0-d tensor of the default float dtype when that is float64, else (and when
    ``fused``) float32, as torch keeps it."""
    dtype = np.float64 if not fused and _dtype.default_float_np() == np.float64 else np.float32
    return _dispatch.wrap(np.array(value, dtype))


def next_step(state):
    """Count a step in ``state['step']`` (in place, in float32 like torch) and return it as a float."""
    counter = state["step"].array
    counter += 1
    return float(counter)


def check_lr(lr):
    """torch's checks of a learning rate (a number or a one-element tensor)."""
    if isinstance(lr, CoreTensor) and lr.array.size != 1:
        raise ValueError("Tensor lr must be 1-element")
    check_at_least_zero("learning rate", lr)


def check_at_least_zero(what, value):
    """``ValueError('Invalid <what>: <value>')`` unless ``value >= 0``."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {value}")


def check_betas(betas):
    """Both betas in [0, 1), with torch's messages."""
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")


def check_fused(fused, foreach, differentiable):
    """The flag combinations torch refuses for a fused optimizer."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
