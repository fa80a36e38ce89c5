"""``torch.fx.symbolic_trace`` and ``Tracer``: run ``forward`` on Proxies and record what it does.

vfw.torch has no ``__torch_function__``, so while a trace runs the public functions of vfw.torch's
namespaces (``torch.*``, ``torch.nn.functional.*``, ``torch.special.*``...) are swapped for wrappers that
record a ``call_function`` node when an argument is a Proxy (and call through otherwise), and
``Module.__call__`` / ``Module.__getattr__`` are swapped so submodule calls and parameter reads are recorded.
Everything is restored when the trace ends.
"""

import builtins
import functools
import inspect
import operator
import sys
import types
import warnings
from collections import OrderedDict

from vfw.frontends.torch.fx._names import namespace_functions, public_name, refresh
from vfw.frontends.torch.fx.graph import Graph
from vfw.frontends.torch.fx.node import Node
from vfw.frontends.torch.fx.proxy import Proxy, find_tracer

__all__ = ["Tracer", "symbolic_trace", "wrap", "is_wrapped"]


def _assert(condition, message):
    """``torch._assert``: raise AssertionError(``message``) unless ``condition`` holds (traceable by fx)."""
    if not condition:
        raise AssertionError(message)


def _assert_is_none(value, msg):
    """The check a parameter specialized to None by ``concrete_args`` gets in the traced code."""
    assert value is None, msg

# (globals dict, name) pairs registered by wrap(): patched in those globals while tracing
_WRAPPED = []


def wrap(fn_or_name):
    """Record calls of a module-level function as ``call_function`` nodes instead of tracing through it.

    Call at module scope, with the function or its name (``torch.fx.wrap('len')``); returns the argument.
    """
    name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    if not isinstance(fn_or_name, str) and fn_or_name.__code__.co_name == "<lambda>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    caller = sys._getframe(1)
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _WRAPPED.append((caller.f_globals, name))
    return fn_or_name


def is_wrapped(obj):
    """Whether ``obj`` is a function registered with :func:`wrap`."""
    return any(globals_.get(name, getattr(builtins, name, None)) is obj for globals_, name in _WRAPPED)


def _torch_python_arguments(function, args, kwargs):
    """The arguments as torch's Python-level nn.functional functions pass them on when traced.

    Those functions hand every parameter on explicitly: required ones positionally, the others by
    keyword with their defaults filled in (``relu(x, inplace = False)``).
    """
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return args, kwargs
    bound.apply_defaults()
    positional, keywords = [], {}
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            return args, kwargs
        value = bound.arguments[parameter.name]
        if parameter.default is parameter.empty and not keywords:
            positional.append(value)
        else:
            keywords[parameter.name] = value
    return tuple(positional), keywords


class _Recording:
    """Stand-in for ``function`` that records a call_function node when an argument is a Proxy.

    It compares equal to (and hashes as) ``function``, so ``target == torch.relu`` in user code run while
    it is swapped in (a Transformer's overrides) still holds.
    """

    def __init__(self, function):
        functools.update_wrapper(self, function)
        self._fill_defaults = (public_name(function) or "").startswith("torch.nn.functional.")

    def __call__(self, *args, **kwargs):
        tracer = find_tracer((args, kwargs))
        if tracer is None:
            return self.__wrapped__(*args, **kwargs)
        if self._fill_defaults:
            args, kwargs = _torch_python_arguments(self.__wrapped__, args, kwargs)
        return tracer.create_proxy("call_function", self.__wrapped__, args, kwargs)

    def __eq__(self, other):
        return other is self.__wrapped__ or (isinstance(other, _Recording) and other.__wrapped__ is self.__wrapped__)

    def __hash__(self):
        return hash(self.__wrapped__)

    def __repr__(self):
        return repr(self.__wrapped__)


class Patcher:
    """Swaps attributes of modules, classes and globals dicts; ``restore`` puts the originals back."""

    def __init__(self):
        self._undo = []

    def set_item(self, table, name, value):
        missing = name not in table
        original = table.get(name)
        table[name] = value
        self._undo.append(lambda: table.pop(name) if missing else table.__setitem__(name, original))

    def set_attr(self, owner, name, value):
        original = owner.__dict__[name] if name in owner.__dict__ else None
        setattr(owner, name, value)
        self._undo.append(lambda: setattr(owner, name, original) if original is not None else delattr(owner, name))

    def restore(self):
        while self._undo:
            self._undo.pop()()


def patch_namespaces(patcher):
    """Swap every public function of vfw.torch's namespaces for its recording stand-in.

    Returns ``{id(function): stand-in}``.
    """
    refresh()
    recorders = {}
    for module, _prefix, name, value in namespace_functions():
        recorder = recorders.setdefault(id(value), _Recording(value))
        patcher.set_attr(module, name, recorder)
    return recorders


class Tracer:
    """Records a module's or function's ``forward`` as a Graph.

    Override :meth:`is_leaf_module` to choose which submodules are kept as ``call_module`` nodes (by
    default the torch.nn layers; containers such as Sequential are traced through), :meth:`create_arg`
    to change how argument values enter the graph.

    Parameters
    ----------
    autowrap_modules, autowrap_functions : tuple, optional
        Accepted for torch compatibility; functions listed in ``autowrap_functions`` are recorded as
        call_function nodes when called on Proxies.
    """

    def __init__(self, autowrap_modules=(), autowrap_functions=(), param_shapes_constant=False):
        self._autowrap_functions = tuple(autowrap_functions)
        self.param_shapes_constant = param_shapes_constant
        self.graph = None
        self.root = None
        self.tensor_attrs = {}

    # -- overridable policy ------------------------------------------------------------------------
    def is_leaf_module(self, m, module_qualified_name):
        """Whether ``m`` is recorded as one ``call_module`` node (torch.nn layers, not Sequential)."""
        from vfw.frontends.torch.nn import Sequential

        module = type(m).__module__
        from_torch = module.startswith(("torch.nn", "torch.ao.nn", "vfw.frontends.torch.nn", "vfw.frontends.torch.ao"))
        return from_torch and not isinstance(m, Sequential)

    def path_of_module(self, mod):
        """The dotted path of submodule ``mod`` under the root."""
        path = self._module_paths.get(id(mod))
        if path is None:
            raise NameError("module is not installed as a submodule")
        return path

    def create_arg(self, a):
        """Turn an argument value into what a node stores: Proxies to nodes, tensors to get_attr nodes."""
        from vfw.frontends.torch import Tensor
        from vfw.frontends.torch.nn import Module

        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return type(a)(*(self.create_arg(v) for v in a))
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(v) for v in a)
        if isinstance(a, dict):
            return {k: self.create_arg(v) for k, v in a.items()}
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, Tensor):
            path = self.tensor_attrs.get(id(a))
            if path is None:
                path = self._new_constant_name()
                setattr(self.root, path, a)
                self.tensor_attrs[id(a)] = path
            return self.create_node("get_attr", path, (), {})
        if isinstance(a, Module):
            raise RuntimeError(f"Tracer.create_arg: a module ({type(a).__name__}) cannot be a node argument; "
                               "call it instead")
        return a

    def _new_constant_name(self):
        index = 0
        while hasattr(self.root, f"_tensor_constant{index}"):
            index += 1
        return f"_tensor_constant{index}"

    # -- recording ---------------------------------------------------------------------------------
    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        """Insert a node in the graph being built; nodes made inside submodules note them in ``meta``."""
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        if self._module_stack:
            node.meta["nn_module_stack"] = OrderedDict(self._module_stack)
        return node

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        """Record a node (arguments through :meth:`create_arg`) and return the Proxy of its value."""
        node = self.create_node(kind, target, self.create_arg(tuple(args)), self.create_arg(dict(kwargs)),
                                name, type_expr)
        return proxy_factory_fn(node) if proxy_factory_fn is not None else self.proxy(node)

    def proxy(self, node):
        """The Proxy standing for ``node``'s value."""
        return Proxy(node, self)

    def call_module(self, m, forward, args, kwargs):
        """A submodule call: one call_module node for a leaf, its forward traced through otherwise."""
        path = self.path_of_module(m)
        self._module_stack.append((path, (path, type(m))))
        try:
            if self.is_leaf_module(m, path):
                return self.create_proxy("call_module", path, args, kwargs)
            return forward(*args, **kwargs)
        finally:
            self._module_stack.pop()

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A module attribute read while tracing: parameters become (cached) get_attr Proxies."""
        from vfw.frontends.torch.nn import Parameter

        if isinstance(attr_val, Parameter):
            path = self.tensor_attrs.get(id(attr_val))
            if path is not None:
                if path not in parameter_proxy_cache:
                    parameter_proxy_cache[path] = self.create_proxy("get_attr", path, (), {})
                return parameter_proxy_cache[path]
        return attr_val

    # -- the trace ---------------------------------------------------------------------------------
    def trace(self, root, concrete_args=None):
        """Trace ``root`` (a Module or a function) and return the Graph of its ``forward``.

        Parameters
        ----------
        root : Module or callable
        concrete_args : dict, optional
            Arguments fixed to values (by name): they are baked into the graph and get no placeholder.
        """
        from vfw.frontends.torch.nn import Module

        if isinstance(root, Module):
            self.root = root
            function = type(root).forward
            bound = (root,)
        else:
            self.root = Module()
            function = root
            bound = ()
        self.graph = Graph(tracer_cls=type(self))
        self._module_stack = []
        self._module_paths = {id(m): path for path, m in self.root.named_modules()}
        self.tensor_attrs = self._collect_tensor_attrs()
        args = self._placeholders(function, len(bound), dict(concrete_args or {}))
        patcher = Patcher()
        try:
            self._patch(patcher, function)
            result = _varargs_as_positional(function)(*bound, *args)
        finally:
            patcher.restore()
        self.create_node("output", "output", (self.create_arg(result),), {})
        return self.graph

    def _collect_tensor_attrs(self):
        from vfw.frontends.torch import Tensor

        paths = {}
        for prefix, module in self.root.named_modules():
            owned = [*module._parameters.items(), *module._buffers.items(),
                     *((k, v) for k, v in vars(module).items() if isinstance(v, Tensor))]
            for name, value in owned:
                if value is not None:
                    paths.setdefault(id(value), f"{prefix}.{name}" if prefix else name)
        return paths

    def _placeholders(self, function, skip, concrete_args):
        """Proxies (or concrete values) for ``function``'s parameters after the first ``skip``.

        A ``*args`` parameter becomes one placeholder (target ``*args``) standing for the whole tuple.  A
        parameter in ``concrete_args`` takes its value in the trace, and, as in torch, is still an input of
        the graph (``name_1``) that the generated code checks against that value where it can.
        """
        values = []
        parameters = list(inspect.signature(function).parameters.values())[skip:]
        for parameter in parameters:
            default = () if parameter.default is parameter.empty else (parameter.default,)
            if parameter.name in concrete_args:
                value = concrete_args[parameter.name]
                node = self.create_node("placeholder", f"{parameter.name}_1", default, {})
                self._check_specialized(node, parameter.name, value)
                values.append(value)
            elif parameter.kind == parameter.VAR_POSITIONAL:
                values.append(self.proxy(self.create_node("placeholder", f"*{parameter.name}", (), {},
                                                          name=f"_{parameter.name}")))
            elif parameter.kind in (parameter.VAR_KEYWORD, parameter.KEYWORD_ONLY):
                raise NotImplementedError(f"symbolic_trace: vfw does not trace **kwargs or keyword-only parameters "
                                          f"('{parameter.name}')")
            else:
                values.append(self.proxy(self.create_node("placeholder", parameter.name, default, {})))
        return values

    def _check_specialized(self, placeholder, name, value):
        """The nodes asserting that the input ``placeholder`` has the ``value`` the trace specialized to."""
        message = f"{name} has been specialized to have value {value} but got another value"
        if value is None:
            self.create_node("call_function", _assert_is_none, (placeholder, message), {})
        elif type(value) in (bool, int, float, str):
            equal = self.create_node("call_function", operator.eq, (placeholder, value), {})
            self.create_node("call_function", _assert, (equal, message), {})
        else:
            warnings.warn(f"Was not able to add assertion to guarantee correct input {name} to specialized "
                          "function. It is up to the user to make sure that your inputs match the inputs you "
                          "specialized the function with.", stacklevel=3)

    def _patch(self, patcher, function):
        """Swap in the recording stand-ins for the duration of the trace."""
        from vfw.frontends.torch.nn import Module

        tracer = self
        original_call = Module.__call__
        original_getattr = Module.__getattr__
        parameter_cache = {}

        def module_call(mod, *args, **kwargs):
            if id(mod) not in tracer._module_paths:
                return original_call(mod, *args, **kwargs)
            return tracer.call_module(mod, functools.partial(original_call, mod), args, kwargs)

        def module_getattr(mod, name):
            return tracer.getattr(name, original_getattr(mod, name), parameter_cache)

        patcher.set_attr(Module, "__call__", module_call)
        patcher.set_attr(Module, "__getattr__", module_getattr)
        recorders = patch_namespaces(patcher)
        for value in self._autowrap_functions:
            recorders.setdefault(id(value), _Recording(value))
        for globals_ in self._traced_globals(function):
            for name, value in list(globals_.items()):
                if id(value) in recorders and recorders[id(value)].__wrapped__ is value:
                    patcher.set_item(globals_, name, recorders[id(value)])
        for globals_, name in _WRAPPED:
            original = globals_.get(name, getattr(builtins, name, None))
            if original is not None:
                patcher.set_item(globals_, name, _Recording(original))

    def _traced_globals(self, function):
        """The globals dicts of the functions the trace runs: ``function`` and every non-leaf forward."""
        tables = {id(function.__globals__): function.__globals__}
        for path, module in self.root.named_modules():
            forward = getattr(type(module).forward, "__globals__", None)
            if forward is not None and not self.is_leaf_module(module, path):
                tables.setdefault(id(forward), forward)
        return list(tables.values())


def _varargs_as_positional(function):
    """``function`` with its ``*args`` parameter taken as one ordinary positional parameter (a tuple, or the
    Proxy standing for it while tracing); ``function`` itself when it has none."""
    code = function.__code__
    if not code.co_flags & inspect.CO_VARARGS:
        return function
    # the *args name follows the positional and keyword-only names in co_varnames: it becomes the next positional
    # (keyword-only parameters were refused by _placeholders, so nothing sits between)
    code = code.replace(co_flags=code.co_flags & ~inspect.CO_VARARGS, co_argcount=code.co_argcount + 1)
    return types.FunctionType(code, function.__globals__, function.__name__, function.__defaults__,
                              function.__closure__)


def symbolic_trace(root, concrete_args=None):
    """Trace ``root`` (a Module or function) into a GraphModule.

    Parameters
    ----------
    root : Module or callable
        What to trace; its ``forward`` (or itself) runs once on Proxies.
    concrete_args : dict, optional
        Parameters fixed to values by name (not inputs of the result).

    Returns
    -------
    GraphModule
        Named after ``root``'s class (or function), holding the recorded graph.
    """
    from vfw.frontends.torch.fx.graph_module import GraphModule
    from vfw.frontends.torch.nn import Module

    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)

