"""torch.nn.utils.prune: masks that zero parts of a module's tensors.

Pruning a tensor ``name`` of a module moves the parameter to ``name_orig``, registers the 0/1 buffer
``name_mask`` and makes ``name`` a plain attribute holding ``name_mask * name_orig``, recomputed before every
forward by the pruning method itself (registered as a forward pre-hook).  Pruning the same tensor again combines
the methods in a :class:`PruningContainer`: the new method only sees the entries (unstructured) or channels
(structured) that are still unpruned.  :func:`remove` makes the pruning permanent: ``name`` becomes a parameter
again, holding the masked values.

Masks are chosen as torch chooses them: by ``topk`` over the flattened tensor (magnitudes, or ``rand_like``
scores drawn from the default generator), or over per-channel norms; so a seed gives torch's masks.
"""

import abc
import numbers

import vfw.frontends.torch as torch

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


class BasePruningMethod(abc.ABC):
    """A way of choosing a mask for one tensor of a module; also the forward pre-hook that applies it.

    Subclasses set ``PRUNING_TYPE`` (``"unstructured"``, ``"structured"`` or ``"global"``) and define
    :meth:`compute_mask`.
    """

    _tensor_name: str

    def __call__(self, module, inputs):
        """Forward pre-hook: refresh ``module.<name>`` from the current ``name_orig`` and ``name_mask``."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abc.abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for ``t`` (a tensor of ``t``'s shape), given the mask already applied."""

    def apply_mask(self, module):
        """``name_mask * name_orig`` for the tensor this method prunes."""
        name = getattr(self, "_tensor_name", None)
        if name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        orig = getattr(module, name + "_orig")
        return getattr(module, name + "_mask").to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)`` (combined with an earlier pruning of the same
        tensor), choosing the mask from ``importance_scores`` (default: the tensor itself)."""
        method = _combined_with_earlier(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif importance_scores.shape != orig.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}")
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = torch.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(memory_format=torch.contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # leave the module as it was
                module.register_parameter(name, module._parameters.pop(name + "_orig"))
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` with this method's mask applied (a new tensor; nothing is registered)."""
        if importance_scores is not None and importance_scores.shape != t.shape:
            raise AssertionError("importance_scores should have the same shape as tensor t")
        scores = t if importance_scores is None else importance_scores
        mask = self.compute_mask(scores, default_mask=torch.ones_like(t) if default_mask is None else default_mask)
        return t * mask

    def remove(self, module):
        """Make the pruning permanent: ``name`` becomes the parameter ``name_orig`` holding the masked values."""
        name = getattr(self, "_tensor_name", None)
        if name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters.pop(name + "_orig")
        orig.data = weight.data
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _combined_with_earlier(cls, module, name, *args, **kwargs):
    """A new ``cls`` method for ``name``, in a PruningContainer with the method already pruning ``name``."""
    earlier = [(key, hook) for key, hook in module._forward_pre_hooks.items()
               if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(earlier) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
                             "Use a PruningContainer.")
    for key, _ in earlier:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not earlier:
        return method
    old = earlier[0][1]
    container = old if isinstance(old, PruningContainer) else PruningContainer(old)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """The successive pruning methods of one tensor; each new one prunes what the earlier ones left."""

    def __init__(self, *args):
        self._pruning_methods = ()
        for method in args:
            if not hasattr(self, "_tensor_name"):
                self._tensor_name = method._tensor_name
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append ``method`` (which must prune the same tensor)."""
        if method is None:
            return
        if not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' to "
                             f"PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The last method's mask computed on the part of ``t`` the current mask leaves, merged into it."""
        method = self._pruning_methods[-1]
        mask = default_mask.clone().to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            kept = default_mask == 1
            mask[kept] = method.compute_mask(t[kept], default_mask=default_mask[kept])
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE \"structured\" need to have the attribute "
                                     "`dim` defined.")
            dim = method.dim % t.dim()
            kept_channels = default_mask.sum(dim=[d for d in range(t.dim()) if d != dim]) != 0
            index = [slice(None)] * t.dim()
            index[dim] = kept_channels
            index = tuple(index)
            mask[index] = method.compute_mask(t[index], default_mask=default_mask[index]).to(dtype=mask.dtype)
        elif method.PRUNING_TYPE == "global":
            mask = method.compute_mask(t, default_mask=default_mask).to(dtype=mask.dtype)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        return mask


class Identity(BasePruningMethod):
    """Prunes nothing (the mask is all ones)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


def _check_amount(amount):
    """torch's errors for an ``amount`` that is neither a fraction in [0, 1] nor a non-negative count."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or \
            (not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count_to_prune(amount, size):
    """How many of ``size`` entries (or channels) ``amount`` prunes: a count, or a fraction rounded."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={size}")
        return int(amount)
    return round(amount * size)


class _Unstructured(BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.numel())
        mask = default_mask.clone(memory_format=torch.contiguous_format)
        if count:
            mask.view(-1)[torch.topk(self._scores(t).view(-1), k=count, largest=self._largest).indices] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` (a fraction or a count) of the entries, chosen at random."""

    _largest = True

    def _scores(self, t):
        return torch.rand_like(t)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes ``amount`` (a fraction or a count) of the entries: those of the smallest magnitude."""

    _largest = False

    def _scores(self, t):
        return torch.abs(t)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_mask(t, dim, channels):
    """Zeros like ``t`` with ones in the ``channels`` (an index or bool tensor) of dim ``dim``."""
    mask = torch.zeros_like(t)
    index = [slice(None)] * t.dim()
    index[dim] = channels
    mask[tuple(index)] = 1
    return mask


def _check_structured(t):
    if t.dim() <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. Found tensor of shape "
                         f"{t.shape} with {t.dim()} dims")


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` (a fraction or a count) of the channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t)
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        if count == 0:
            return default_mask
        scores = torch.rand(channels)
        threshold = torch.kthvalue(scores, k=count).values  # the count lowest scores go
        return _channel_mask(t, self.dim, scores > threshold) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes ``amount`` (a fraction or a count) of the channels along ``dim``: those of the smallest L``n``
    norm (``n`` as ``torch.norm``'s ``p``)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t)
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        if count == 0:
            return default_mask
        dim = self.dim % t.dim()
        norms = torch.norm(t, p=self.n, dim=[d for d in range(t.dim()) if d != dim])
        kept = torch.topk(norms, k=channels - count, largest=True).indices
        return _channel_mask(t, dim, kept) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given 0/1 ``mask`` is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError("the mask must have the shape of the tensor it prunes")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Register pruning machinery on ``module.<name>`` with an all-ones mask; returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` (fraction or count) of ``module.<name>``'s entries at random; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune ``amount`` (fraction or count) of ``module.<name>``'s entries of the smallest magnitude (of
    ``importance_scores`` when given); returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` (fraction or count) of ``module.<name>``'s channels along ``dim`` at random."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune ``amount`` (fraction or count) of ``module.<name>``'s channels along ``dim`` of the smallest
    L``n`` norm; returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` where ``mask`` is 0; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune several tensors together: ``pruning_method(**kwargs)`` (unstructured) chooses over all their
    (unpruned) entries at once, so the amount is a share of the total.

    Parameters
    ----------
    parameters : iterable of (nn.Module, str)
    pruning_method : type
        A :class:`BasePruningMethod` subclass with ``PRUNING_TYPE == "unstructured"``.
    importance_scores : dict, optional
        ``{(module, name): Tensor}``: the scores to rank by instead of the tensors themselves.
    """
    if not hasattr(parameters, "__iter__") or isinstance(parameters, (str, bytes)):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = torch.cat([importance_scores.get((module, name), getattr(module, name)).reshape(-1)
                        for module, name in parameters])
    current = torch.cat([getattr(module, name + "_mask", torch.ones_like(getattr(module, name))).reshape(-1)
                         for module, name in parameters])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container = PruningContainer(method)
    final = container.compute_mask(scores, current)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        custom_from_mask(module, name, mask=final[start:start + param.numel()].view_as(param))
        start += param.numel()


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent (the masked values become the parameter); returns
    ``module``."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module):
    """Whether ``module`` or one of its submodules has a pruning method registered."""
    return any(isinstance(hook, BasePruningMethod)
               for m in module.modules() for hook in m._forward_pre_hooks.values())
