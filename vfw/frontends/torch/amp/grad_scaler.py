"""``torch.amp.GradScaler``: loss scaling for mixed precision training (works on the CPU).

The scale multiplies the loss before backward; ``unscale_`` divides the gradients by it
and records whether any is inf/NaN; ``step`` skips the optimizer step when one was;
``update`` halves the scale after such a step and doubles it after ``growth_interval``
clean steps in a row, as torch's ``_amp_update_scale_``.
"""

import enum

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _creation, _dispatch, _dtype

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scale the loss, unscale the gradients, skip steps with inf/NaN gradients and adapt the scale.

    Parameters
    ----------
    device : str
        ``'cpu'`` (the default ``'cuda'`` warns and disables the scaler, as torch without a GPU).
    init_scale : float
        The first scale.
    growth_factor, backoff_factor : float
        The scale is multiplied by ``growth_factor`` after ``growth_interval`` steps without inf/NaN gradients and by
        ``backoff_factor`` after a step with them.
    growth_interval : int
    enabled : bool
        ``False``: every method passes through (``scale`` returns its argument, ``step`` calls ``optimizer.step``).
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warn_for_user("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = {}

    def _lazy_init_scale_growth_tracker(self):
        self._scale = _creation.full((), self._init_scale, dtype=_dtype.float32)
        self._growth_tracker = _creation.full((), self._init_growth_tracker, dtype=_dtype.int32)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _optimizer_state(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_optimizer_state())

    def scale(self, outputs):
        """``outputs`` (a tensor or nested lists/tuples/iterables of them) multiplied by the scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._lazy_init_scale_growth_tracker()
        if isinstance(outputs, CoreTensor):
            return outputs * self._scale

        def apply_scale(value):
            if isinstance(value, CoreTensor):
                return value * self._scale
            if isinstance(value, (list, tuple)):
                scaled = [apply_scale(v) for v in value]
                return scaled if isinstance(value, list) else type(value)(scaled)
            if hasattr(value, "__iter__"):
                return map(apply_scale, value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        found = False
        for group in optimizer.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if not allow_fp16 and grad.dtype == _dtype.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                values = grad.array
                # One float32 product per element, rounded to the gradient's dtype (torch's opmath).
                unscaled = values.astype(np.float32, copy=False) * inv_scale
                found = found or not np.isfinite(unscaled).all()
                values[...] = unscaled.astype(values.dtype, copy=False)
                _dispatch.bump_version(grad)
        if found:
            found_inf.array[...] = 1.0
        return {"cpu": found_inf}

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale in place (once per ``update``), noting inf/NaN ones."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._optimizer_state(optimizer)
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = np.float32(1.0 / np.float64(self._scale.array))
        found_inf = _creation.full((), 0.0, dtype=_dtype.float32)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)`` after unscaling, unless a gradient was inf/NaN (then ``None``)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._optimizer_state(optimizer)
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        if not sum(float(v.array) for v in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None):
        """Adapt the scale after the iteration's steps (or set it to ``new_scale``)."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, CoreTensor):
                if new_scale.numel() != 1:
                    raise AssertionError("new_scale should be a single-element tensor.")
                if new_scale.requires_grad:
                    raise AssertionError("new_scale should not require grad.")
                scale.array[...] = new_scale.array.reshape(())
            else:
                scale.array[...] = new_scale
        else:
            found_infs = [found for state in self._per_optimizer_states.values()
                          for found in state["found_inf_per_device"].values()]
            if not found_infs:
                raise AssertionError("No inf checks were recorded prior to update.")
            if sum(float(found.array) for found in found_infs):
                scale.array[...] = scale.array * np.float32(self._backoff_factor)
                tracker.array[...] = 0
            else:
                successful = int(tracker.array) + 1
                if successful == self._growth_interval:
                    grown = scale.array * np.float32(self._growth_factor)
                    if np.isfinite(grown):
                        scale.array[...] = grown
                    successful = 0
                tracker.array[...] = successful
        _dispatch.bump_version(scale)
        self._per_optimizer_states = {}

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """float: the current scale (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.array)

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.array)

    def is_enabled(self):
        """bool: whether the scaler scales (False when built disabled or for a missing GPU)."""
        return self._enabled

    def state_dict(self):
        """``{'scale', 'growth_factor', 'backoff_factor', 'growth_interval', '_growth_tracker'}`` (empty when
        disabled)."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        """Restore what ``state_dict`` returned."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.array[...] = state_dict["scale"]
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.array[...] = state_dict["_growth_tracker"]
