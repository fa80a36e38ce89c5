"""torch.nn.Module: the base class of layers and models.

Attributes assigned to a module are sorted by what they are: a ``Parameter`` goes to
``_parameters``, a ``Module`` to ``_modules``, a ``Buffer`` (or a tensor assigned to a
registered buffer name) to ``_buffers``; everything else is a plain attribute.  Traversal,
``state_dict``, conversions, hooks and ``repr`` follow PyTorch 2.13.
"""

import itertools
from collections import OrderedDict

from vfw.core import autograd
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _config, _device, _dtype, _meta
from vfw.frontends.torch.nn.modules import _hooks
from vfw.frontends.torch.nn.modules._hooks import (  # noqa: F401  (torch.nn.modules.module's names)
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)
from vfw.frontends.torch.nn.modules._state_dict import StateDictMixin
from vfw.frontends.torch.nn.parameter import Buffer, Parameter

__all__ = ["Module"]


def _addindent(text, spaces):
    """Indent every line of ``text`` but the first."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return "\n".join([lines[0]] + [pad + line for line in lines[1:]])


def _check_member_name(kind, name):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_config.typename(name)}")
    if "." in name:  # (torch names the module only: buffers and parameters get the bare message)
        raise KeyError(f'{kind} name can\'t contain ".", got: {name}' if kind == "module" else
                       f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


def _forward_unimplemented(self, *input):
    """Define the computation of every call (subclasses override it)."""
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


_HOOK_DICTS = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks", "_forward_hooks_with_kwargs",
               "_forward_hooks_always_called", "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
               "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
               "_load_state_dict_post_hooks")


class Module(StateDictMixin):
    """Base class for all neural network modules.

    Subclasses call ``super().__init__()`` first, then assign parameters, buffers and
    submodules as attributes, and define ``forward``.  Calling the module runs the forward
    pre-hooks, ``forward`` and the forward hooks.
    """

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False
    _compiled_call_impl = None

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were "
                            "given")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        for name in _HOOK_DICTS:
            setattr_(self, name, OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # -- registration ----------------------------------------------------------------------
    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer (state that is not a parameter, e.g. running statistics).

        Parameters
        ----------
        name : str
        tensor : Tensor or None
            ``None`` registers the name without a value (left out of ``state_dict``).
        persistent : bool
            Whether the buffer is part of ``state_dict``.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_member_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, CoreTensor):
            raise TypeError(f"cannot assign '{_config.typename(tensor)}' object to buffer '{name}' (torch Tensor or "
                            "None required)")
        for hook in _hooks.global_buffer_registration_hooks.values():
            out = hook(self, name, tensor)
            if out is not None:
                tensor = out
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (``None`` registers the name without a value).

        Parameters
        ----------
        name : str
        param : Parameter or None
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{_config.typename(param)}' object to parameter '{name}' "
                                "(torch.nn.Parameter or None required)")
            if param.grad_node is not None:
                raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                                 f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                                 "the value in the forward() method.")
        for hook in _hooks.global_parameter_registration_hooks.values():
            out = hook(self, name, param)
            if out is not None:
                param = out
        self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module (``None`` registers the name without a module)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_config.typename(module)} is not a Module subclass")
        _check_member_name("module", name)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        for hook in _hooks.global_module_registration_hooks.values():
            out = hook(self, name, module)
            if out is not None:
                module = out
        self._modules[name] = module

    register_module = add_module

    def _lookup(self, target, kind, check):
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        value = getattr(module, name)
        if not check(module, name, value):
            raise AttributeError(f"`{name}` is not {kind}")
        return value

    def get_submodule(self, target):
        """The submodule at the dotted path ``target`` (``''`` is this module)."""
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def set_submodule(self, target, module, strict=False):
        """Replace (or, unless ``strict``, add) the submodule at the dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, name = target.rpartition(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        """The parameter at the dotted path ``target``."""
        return self._lookup(target, "an nn.Parameter", lambda m, n, v: isinstance(v, Parameter))

    def get_buffer(self, target):
        """The buffer at the dotted path ``target``."""
        return self._lookup(target, "a buffer", lambda m, n, v: n in m._buffers)

    # -- attributes ------------------------------------------------------------------------
    def __getattr__(self, name):
        d = self.__dict__
        for members in ("_parameters", "_buffers", "_modules"):
            table = d.get(members)
            if table is not None and name in table:
                return table[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, "_parameters")
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_config.typename(value)}' as parameter '{name}' (torch.nn.Parameter "
                                "or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, "_modules")
            for hook in _hooks.global_module_registration_hooks.values():
                out = hook(self, name, value)
                if out is not None:
                    value = out
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_config.typename(value)}' as child module '{name}' (torch.nn.Module "
                                "or None expected)")
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, CoreTensor):
                raise TypeError(f"cannot assign '{_config.typename(value)}' as buffer '{name}' (torch.nn.Buffer, "
                                "torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
                self._forget(name, "_buffers")
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def _forget(self, name, keep):
        """Drop ``name`` from the plain attributes and from every member table but ``keep``."""
        d = self.__dict__
        d.pop(name, None)
        for members in ("_parameters", "_buffers", "_modules"):
            if members != keep and name in d[members]:
                del d[members][name]
        if keep != "_buffers":
            d["_non_persistent_buffers_set"].discard(name)

    def __delattr__(self, name):
        d = self.__dict__
        for members in ("_parameters", "_buffers", "_modules"):
            if name in d.get(members, ()):
                del d[members][name]
                if members == "_buffers":
                    d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = set(dir(type(self))) | set(self.__dict__) | set(self._parameters) | set(self._modules) \
            | set(self._buffers)
        return sorted(k for k in keys if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:  # modules pickled by older versions may lack some tables
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # -- traversal -------------------------------------------------------------------------
    def _named_members(self, members_of, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in members_of(module):
                if value is None or value in seen:
                    continue
                if remove_duplicate:
                    seen.add(value)
                yield (module_prefix + "." + name if module_prefix else name), value

    def parameters(self, recurse=True):
        """Iterator over the parameters (of submodules too unless ``recurse=False``), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterator over ``(dotted name, parameter)`` pairs."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        """Iterator over the buffers."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterator over ``(dotted name, buffer)`` pairs."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        """Iterator over the direct submodules."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """Iterator over ``(name, module)`` for the direct submodules (each once)."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def modules(self):
        """Iterator over this module and all submodules (each once)."""
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Iterator over ``(dotted name, module)`` for this module and all submodules."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + "." + name if prefix else name, remove_duplicate)

    def __hash__(self):
        return id(self)

    # -- modes and conversions -------------------------------------------------------------
    def train(self, mode=True):
        """Set training mode (``eval()`` is ``train(False)``) on this module and its submodules."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Set evaluation mode (dropout off, batch norm uses running statistics)."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` on every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of every parameter (to None, or to zeros with ``set_to_none=False``)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                grad = p.grad.detach_() if p.grad.grad_node is not None else p.grad.requires_grad_(False)
                grad.zero_()

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first) and on this module; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse=True):
        """Replace every parameter's and buffer's values by ``fn(tensor)`` (parameters keep their identity)."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with autograd.no_grad():
                new = fn(param)
            param.array = new.array
            _meta.carry(param, new)
            if param.grad is not None:
                with autograd.no_grad():
                    param.grad.array = fn(param.grad).array
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """Convert floating point parameters and buffers: ``to(dtype)``, ``to(device)``, ``to(tensor)``...; with
        ``memory_format=`` (e.g. ``torch.channels_last``) every 4-d and 5-d parameter and buffer is laid out so."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        memory_format = kwargs.pop("memory_format", None)
        if memory_format is not None and not isinstance(memory_format, _config.memory_format):
            raise TypeError(f"to() received an invalid combination of arguments - got (memory_format="
                            f"{type(memory_format).__name__}, ), but expected memory_format to be a "
                            f"torch.memory_format")
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments - got unexpected keyword "
                            f"'{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, _dtype.dtype):
                dtype = a
            elif isinstance(a, CoreTensor):
                dtype = _dtype._FROM_NP[a.array.dtype]
            elif isinstance(a, (str, _device.device, int)) and not isinstance(a, bool):
                device = a
            elif not isinstance(a, bool):
                raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
        _device.check(device)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")
        if device is not None and _meta.moved(self, device, _meta.NO_DATA_MODULE):
            self._apply(lambda t: t.to("meta"))
        if dtype is None and memory_format is None:
            return self

        def convert(t):
            if dtype is not None and t.is_floating_point():
                t = t.to(dtype)
            if memory_format is not None and t.dim() in (4, 5):
                t = t.to(memory_format=memory_format)
            return t

        return self._apply(convert)

    def _cast_floats(self, method):
        return self._apply(lambda t: getattr(t, method)() if t.is_floating_point() else t)

    def float(self):
        """Cast floating point parameters and buffers to float32."""
        return self._cast_floats("float")

    def double(self):
        """Cast floating point parameters and buffers to float64."""
        return self._cast_floats("double")

    def half(self):
        """Cast floating point parameters and buffers to float16."""
        return self._cast_floats("half")

    def bfloat16(self):
        """Cast floating point parameters and buffers to bfloat16."""
        return self._cast_floats("bfloat16")

    def type(self, dst_type):
        """Cast all parameters and buffers to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self):
        """This module (everything lives on the CPU; a meta module has no values to copy and raises)."""
        _meta.moved(self, "cpu", _meta.NO_DATA)
        return self

    def cuda(self, device=None):
        _device.check("cuda")

    xpu = ipu = mtia = cuda

    def to_empty(self, *, device=None, recurse=True):
        """Move parameters and buffers to ``device`` without copying values (fresh uninitialized memory)."""
        _device.check(device)
        from vfw.frontends.torch._creation import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self):
        """This module (vfw tensors live in ordinary process memory)."""
        return self

    def compile(self, *args, **kwargs):
        """Accepted for compatibility: the module keeps running eagerly."""

    # -- hooks and calling -----------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Run ``hook(module, args)`` (or ``hook(module, args, kwargs)``) before ``forward``.

        A returned value replaces the arguments (a tuple, or ``(args, kwargs)`` with ``with_kwargs``).
        """
        return _hooks.add_hook(self._forward_pre_hooks, hook, prepend, self._forward_pre_hooks_with_kwargs,
                              with_kwargs)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Run ``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``) after ``forward``.

        A returned value replaces the output.  With ``always_call`` the hook also runs when
        ``forward`` raises.
        """
        handle = _hooks.add_hook(self._forward_hooks, hook, prepend,
                                 [self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Run ``hook(module, grad_output)`` when the gradients of the outputs are known.

        A returned tuple replaces ``grad_output``.
        """
        return _hooks.add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """Run ``hook(module, grad_input, grad_output)`` when the gradients of the inputs are known.

        A returned tuple replaces ``grad_input``.
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = True
        return _hooks.add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Deprecated: vfw runs it as a full backward hook (with the module's inputs and outputs)."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = False
        return _hooks.add_hook(self._backward_hooks, hook)

    def _call_impl(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks
                or _hooks.global_forward_pre_hooks or _hooks.global_forward_hooks
                or _hooks.global_backward_hooks or _hooks.global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    __call__ = _call_impl

    def _call_with_hooks(self, args, kwargs):
        for hook_id, hook in itertools.chain(_hooks.global_forward_pre_hooks.items(),
                                             self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        backward_hooks = list(_hooks.global_backward_hooks.values()) + list(self._backward_hooks.values())
        pre_hooks = list(_hooks.global_backward_pre_hooks.values()) + list(self._backward_pre_hooks.values())
        bw_hook = _hooks.BackwardHook(self, backward_hooks, pre_hooks) if backward_hooks or pre_hooks else None
        if bw_hook is not None:
            args = bw_hook.setup_input_hook(args)
        forward_hooks = list(itertools.chain(_hooks.global_forward_hooks.items(), self._forward_hooks.items()))
        try:
            output = self.forward(*args, **kwargs)
        except Exception:
            for hook_id, hook in forward_hooks:
                if hook_id in self._forward_hooks_always_called or \
                        hook_id in _hooks.global_forward_hooks_always_called:
                    try:
                        self._run_forward_hook(hook_id, hook, args, kwargs, None)
                    except Exception as e:  # noqa: BLE001  (torch warns and re-raises the forward's error)
                        warn_for_user(f"forward hook with ``always_call=True`` raised an exception that was "
                                      f"silenced as another error was raised in forward: {e}")
            raise
        for hook_id, hook in forward_hooks:
            result = self._run_forward_hook(hook_id, hook, args, kwargs, output)
            if result is not None:
                output = result
        if bw_hook is not None:
            output = bw_hook.setup_output_hook(output)
        return output

    def _run_forward_hook(self, hook_id, hook, args, kwargs, output):
        if hook_id in self._forward_hooks_with_kwargs:
            return hook(self, args, kwargs, output)
        return hook(self, args, output)

    # -- repr ------------------------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The layer's own settings shown inside its ``repr`` (override in subclasses)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(module), 2) for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"

