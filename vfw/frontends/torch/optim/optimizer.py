"""torch.optim.Optimizer: parameter groups, per-parameter state, state dicts and step hooks.

Built-in optimizers update ``p.array`` and their state arrays in place with numpy (see
``_functional.py``); user subclasses written against torch's API (``self.param_groups``,
``self.state[p]``, ``p.add_(...)`` under ``@torch.no_grad()``) work unchanged.
"""

import copy
import functools
from collections import OrderedDict, defaultdict
from itertools import chain

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _config, _dispatch
from vfw.frontends.torch.autograd import grad_mode
from vfw.frontends.torch.utils.hooks import add_hook

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Marks a default that every parameter group must give (``lr`` of a custom optimizer)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

_global_step_pre_hooks = OrderedDict()
_global_step_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """Call ``hook(optimizer, args, kwargs)`` before every optimizer's ``step``; returns a removable handle."""
    return add_hook(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """Call ``hook(optimizer, args, kwargs)`` after every optimizer's ``step``; returns a removable handle."""
    return add_hook(_global_step_post_hooks, hook)


def _with_step_hooks(step):
    """``step`` wrapped to run the global and per-optimizer step pre/post hooks around it.

    As in torch, hooks see ``args`` with the optimizer first, and a pre-hook may return
    ``(args, kwargs)`` to replace the call's arguments.
    """

    @functools.wraps(step)
    def hooked_step(*args, **kwargs):
        self = args[0]
        if _global_step_pre_hooks or self._optimizer_step_pre_hooks:
            for hook in chain(_global_step_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
                result = hook(self, args, kwargs)
                if result is None:
                    continue
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{result}.")
                args, kwargs = result
        out = step(*args, **kwargs)
        if self._optimizer_step_post_hooks or _global_step_post_hooks:
            for hook in chain(self._optimizer_step_post_hooks.values(), _global_step_post_hooks.values()):
                hook(self, args, kwargs)
        return out

    hooked_step.hooked = True
    return hooked_step


class Optimizer:
    """Base class of all optimizers.

    Parameters
    ----------
    params : iterable
        Tensors to optimize, dicts (parameter groups: ``{'params': [...], 'lr': ...}``), or
        ``(name, tensor)`` pairs (as ``module.named_parameters()`` gives). Use ordered
        collections: the order identifies parameters in state dicts.
    defaults : dict
        Default hyperparameters, used by groups that do not give their own
        (``required`` marks those every group must give).
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, CoreTensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            f"got {_config.typename(params)}")
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def _patch_step_function(self):
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _with_step_hooks(cls.step)

    # -- pickling / copying: hooks and scratch memory are not part of an optimizer's value ------
    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    _group_defaults = ()
    """``(key, default)`` pairs set in param groups that a state from an older torch lacks (``__setstate__``)."""

    def __setstate__(self, state):
        self.__dict__.update(state)
        for group in self.param_groups:
            for key, default in self._group_defaults:
                group.setdefault(key, default)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                     "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        text = f"{type(self).__name__} ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n" + "".join(f"    {key}: {group[key]}\n" for key in sorted(group)
                                                          if key != "params")
        return text + ")"

    # -- parameter groups ------------------------------------------------------------------
    def add_param_group(self, param_group):
        """Add a parameter group (a dict with ``'params'`` and optional hyperparameters).

        Missing hyperparameters take the optimizer's defaults. Raises ``ValueError`` when a
        parameter already belongs to another group or a required hyperparameter is missing.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, CoreTensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        tensors = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, CoreTensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_config.typename(p)}")
            if not self.defaults.get("differentiable", None) and not (p.grad_node is None or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(tensors) != len(set(tensors)):
            warn_for_user("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information")
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # -- gradients and steps ---------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized tensors: to ``None`` (default) or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if g.grad_node is not None:
                    g.detach_()
                else:
                    g.requires_grad = False
                g.zero_()

    def step(self, closure=None):
        """Perform one optimization step (``closure`` re-evaluates the model and returns the loss)."""
        raise NotImplementedError

    def _closure_loss(self, closure):
        """The loss of ``closure()`` evaluated with gradients enabled, or None without a closure."""
        if closure is None:
            return None
        with grad_mode.enable_grad():
            return closure()

    def _scratch(self, dtype, shape, count):
        """``count`` scratch arrays of ``shape``: views of one buffer per dtype, reused across parameters and
        steps, so updates allocate no temporaries."""
        key = (dtype, shape, count)
        views = self.__dict__.get("_scratch_views")
        if views is not None and key in views:
            return views[key]
        buffers = self.__dict__.setdefault("_scratch_buffers", {})
        size = int(np.prod(shape))
        flat = buffers.get(dtype)
        if flat is None or flat.size < size * count:
            flat = buffers[dtype] = np.empty(size * count, dtype)
            views = None  # views of the old buffer are dropped with it
        if views is None:
            views = self._scratch_views = {}
        views[key] = [flat[i * size:(i + 1) * size].reshape(shape) for i in range(count)]
        return views[key]

    # -- hooks -----------------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` before each ``step``; it may return new ``(args, kwargs)``.

        Returns a handle whose ``remove()`` unregisters the hook.
        """
        return add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` after each ``step``; returns a removable handle."""
        return add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """Call ``hook(optimizer)`` before ``state_dict`` builds the dict; returns a removable handle."""
        return add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """Call ``hook(optimizer, state_dict)`` on the built dict (a returned dict replaces it)."""
        return add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """Call ``hook(optimizer, state_dict)`` before loading (a returned dict is loaded instead)."""
        return add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """Call ``hook(optimizer)`` after ``load_state_dict``; returns a removable handle."""
        return add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state dicts -----------------------------------------------------------------------
    def state_dict(self):
        """The optimizer's state as ``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``.

        Parameters are replaced by their index in the order of the groups; state tensors are
        the optimizer's own (not copies), as in torch.
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, CoreTensor) else k): v for k, v in self.state.items()}
        result = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            replaced = hook(self, result)
            if replaced is not None:
                result = replaced
        return result

    def load_state_dict(self, state_dict):
        """Load a state from ``state_dict()`` of an optimizer with the same group structure.

        State tensors are converted to their parameter's dtype (except ``step``); the group
        hyperparameters are replaced by the saved ones. Raises ``ValueError`` when the number
        of groups or of parameters in a group differs.
        """
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            replaced = hook(self, state_dict)
            if replaced is not None:
                state_dict = replaced
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                             "group")
        params_by_index = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                                   chain.from_iterable(g["params"] for g in self.param_groups)))
        raw_groups = state_dict["param_groups"]
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in params_by_index:
                state[params_by_index[key]] = _state_like_param(params_by_index[key], value,
                                                                _saved_group_flags(raw_groups, key))
            else:
                state[key] = value
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)


def _saved_group_flags(groups, index):
    """Whether the saved group holding parameter ``index`` was fused or capturable (their steps are float32)."""
    for group in groups:
        if index in group["params"]:
            return bool(group.get("fused", False) or group.get("capturable", False))
    return False


def _state_like_param(param, value, step_to_float32, key=None):
    """``value`` (a state entry, possibly nested) with tensors converted to ``param``'s dtype.

    ``step`` entries keep their dtype (float32 where the group is fused or capturable).
    """
    if isinstance(value, CoreTensor):
        if key == "step":
            return _dispatch.cast(value, np.dtype(np.float32)) if step_to_float32 else value
        if getattr(value, "is_sparse", False):  # a sparse momentum buffer (SGD with sparse gradients)
            return value.to(param.dtype)
        if param.array.dtype.kind == "f" or param.array.dtype == _BFLOAT16:
            return _dispatch.cast(_dispatch.as_torch(value), param.array.dtype)
        return value
    if isinstance(value, dict):
        return {k: _state_like_param(param, v, step_to_float32, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_state_like_param(param, v, step_to_float32) for v in value)
    return value


_BFLOAT16 = np.dtype("bfloat16")
