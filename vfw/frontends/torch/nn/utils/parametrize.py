"""``torch.nn.utils.parametrize``: a module tensor computed by modules from stored originals.

``register_parametrization(module, "weight", p)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` (or ``original0``, ``original1``... when ``p.right_inverse`` splits it)
and turns ``weight`` into a property computing ``p(original)`` on every access.  As in torch, the module's class
is replaced by a subclass named ``Parametrized<Class>`` holding the properties, and restored when the last
parametrization is removed.
"""

import contextlib

import vfw.frontends.torch as torch
from vfw.frontends.torch.nn.modules.container import ModuleDict, ModuleList
from vfw.frontends.torch.nn.parameter import Parameter

__all__ = ["ParametrizationList", "cached", "is_parametrized", "register_parametrization", "remove_parametrizations",
           "type_before_parametrizations"]

_cache = None  # {(id(module), name): tensor} while a ``cached()`` block is open


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the originals they start from.

    Parameters
    ----------
    modules : list of Module
        The parametrizations.
    original : Tensor
        The tensor being parametrized (a Parameter or a buffer's tensor).
    unsafe : bool
        Skip the checks of shape and dtype.
    """

    def __init__(self, modules, original, unsafe=False):
        super().__init__(modules)
        self.unsafe = unsafe
        inverse = getattr(modules[0], "right_inverse", None)
        try:
            stored = inverse(original) if inverse is not None else original
        except NotImplementedError:  # as in torch: a right_inverse that cannot invert counts as the identity
            stored = original
        if isinstance(stored, (tuple, list)):
            self.is_tensor, self.ntensors = False, len(stored)
            for i, value in enumerate(stored):
                self._store(f"original{i}", value, original.requires_grad)
        else:
            self.is_tensor, self.ntensors = True, 1
            if stored is not original:
                with torch.no_grad():
                    original.set_(stored)
            self._store("original", original, original.requires_grad)
        if not unsafe:
            value = self()
            if tuple(value.shape) != tuple(original.shape) or value.dtype != original.dtype:
                raise ValueError(f"Registering a parametrization may not change the shape or dtype of the tensor, "
                                 f"unless `unsafe` flag is enabled.\nunparametrized shape: {original.shape}\n"
                                 f"parametrized shape: {value.shape}\nunparametrized dtype: {original.dtype}\n"
                                 f"parametrized dtype: {value.dtype}")

    def _store(self, name, value, requires_grad):
        if isinstance(value, Parameter):
            self.register_parameter(name, value)
        elif requires_grad:
            self.register_parameter(name, Parameter(value.detach(), requires_grad=True))
        else:
            self.register_buffer(name, value)

    def right_inverse(self, value):
        """Set the originals so that the parametrized tensor becomes ``value`` (what assigning to it does): each
        parametrization's ``right_inverse``, last to first, written into the originals in place."""
        with torch.no_grad():
            for module in reversed(list(self)):
                inverse = getattr(module, "right_inverse", None)
                if inverse is None:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = inverse(value)
            originals = [self.original] if self.is_tensor else [getattr(self, f"original{i}")
                                                                 for i in range(self.ntensors)]
            values = [value] if self.is_tensor else list(value)
            if len(values) != len(originals):
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length {len(originals)}. "
                                 f"Got a sequence of length {len(values)}")
            for original, new in zip(originals, values):
                if not isinstance(new, torch.Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(new).__name__}")
                if new.dtype != original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {new.dtype} while "
                                     f"`original` has dtype {original.dtype}")
                original.set_(new)

    def forward(self):
        """The parametrized tensor: the first module applied to the originals, then the others in turn."""
        if self.is_tensor:
            value = self[0](self.original)
        else:
            value = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            value = module(value)
        return value


def _parametrized_property(name):
    def get(module):
        if _cache is None:
            return module.parametrizations[name]()
        key = (id(module), name)
        if key not in _cache:
            _cache[key] = module.parametrizations[name]()
        return _cache[key]

    def set_(module, value):
        module.parametrizations[name].right_inverse(value)

    return property(get, set_)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Parametrize ``module.<tensor_name>`` by ``parametrization`` (appended if it already has some).

    Parameters
    ----------
    module : Module
    tensor_name : str
        A parameter or buffer of ``module``.
    parametrization : Module
        Maps the original(s) to the tensor; an optional ``right_inverse`` maps a tensor to the original(s).
    unsafe : bool
        Allow the parametrization to change the shape or dtype.

    Returns
    -------
    Module
        ``module``.
    """
    if is_parametrized(module, tensor_name):
        module.parametrizations[tensor_name].append(parametrization)
        return module
    if tensor_name in module._parameters:
        original = module._parameters.pop(tensor_name)
    elif tensor_name in module._buffers:
        original = module._buffers.pop(tensor_name)
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    if not is_parametrized(module):
        cls = type(module)
        module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {"_unparametrized_class": cls})
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = ParametrizationList([parametrization], original, unsafe=unsafe)
    setattr(type(module), tensor_name, _parametrized_property(tensor_name))
    return module


def is_parametrized(module, tensor_name=None):
    """bool: whether ``module`` has parametrizations (on ``tensor_name`` when given)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def type_before_parametrizations(module):
    """The module's class before parametrizations replaced it."""
    return getattr(type(module), "_unparametrized_class", type(module)) if is_parametrized(module) else type(module)


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Remove the parametrizations of ``module.<tensor_name>``.

    Parameters
    ----------
    leave_parametrized : bool
        Keep the current parametrized value (else the original, possible only for a single original).

    Returns
    -------
    Module
        ``module``.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with torch.no_grad():
                original.set_(getattr(module, tensor_name))  # the same Parameter object keeps the value
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                             "parametrized in terms of a sequence of tensors.")
        with torch.no_grad():
            value = getattr(module, tensor_name)
        original = Parameter(value.detach(), value.requires_grad) if chain.original0.requires_grad else value.detach()
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module):
        del module.parametrizations
        module.__class__ = type(module)._unparametrized_class
    return module


@contextlib.contextmanager
def cached():
    """Inside the block, each parametrized tensor is computed once and reused."""
    global _cache
    outer = _cache
    if outer is None:
        _cache = {}
    try:
        yield
    finally:
        if outer is None:
            _cache = None
