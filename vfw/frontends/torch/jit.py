"""torch.jit: ``trace`` runs a module or function through the engine's graph executor.

``trace(fn, example_inputs)`` records what ``fn`` computes on the example (concrete tracing, as
``torch.jit.trace``) into an engine graph (``vfw.core.graph.Function``) and runs later calls as
that compiled graph. Differences from torch's traced code, each chosen so that a traced call
always gives the result the eager call would:

- A call whose input shapes/dtypes (or, for a module, whose submodules' ``training`` flags)
  were not traced yet is traced again (torch reuses its one graph for every shape and keeps the
  mode it was traced in). The submodules are those the module had when traced.
- Parameters, buffers and other tensors the code reads are read by reference on every call, so
  training the module after tracing changes what the traced one computes.
- Gradients: engine graph calls do not record autograd, so while grad mode is on and an input
  or a tensor the code reads requires grad, the traced object runs the Python code eagerly
  (results and gradients are exactly the eager ones). Graphs serve inference
  (``torch.no_grad()``, or nothing requiring grad).
- In-place writes (``x.relu_()``, ``out += y``, ``x[0] = 1``, writes through views, running
  statistics of batch norm, writes into the inputs) are replayed by the graph on every call, and
  random draws (``torch.rand``, dropout in training mode) are drawn anew on every call from the
  same generator, in the order of the Python code: a traced call gives what the eager call would,
  seed for seed.
- Code a graph cannot replay (numpy writes the trace cannot see, such as a ``torch.optim`` step
  or ``.grad`` accumulation, or writes through memory an input shares with another input) runs
  eagerly from then on, with a ``TracerWarning`` saying why.
- ``check_trace`` runs the traced graph on copies of the example inputs (so code that writes into
  its inputs is compared fairly), and warns where it differs from the tracing run (random code
  does, as in torch).

``script`` returns its argument unchanged (scripted code runs eagerly); TorchScript archives
(``save``/``load``) are not supported.
"""

import functools
import threading
import typing
import warnings

import numpy as np

from vfw.core.autograd import is_grad_enabled
from vfw.core.errors import TraceError
from vfw.core.graph.function import Function
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _runtime_extras
from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.autograd.grad_mode import no_grad
from vfw.frontends.torch.nn.modules.module import Module

__all__ = [
    "Final", "ScriptFunction", "ScriptModule", "TracedModule", "TracerWarning", "annotate", "export", "freeze",
    "ignore", "is_scripting", "is_tracing", "load", "optimize_for_inference", "save", "script", "script_if_tracing",
    "trace", "trace_module", "unused", "fork", "wait",
]

Final = typing.Final


class TracerWarning(Warning):
    """Warns about a trace that may not reproduce the Python code (torch.jit.TracerWarning)."""


class _TracingDepth(threading.local):
    depth = 0


_tracing = _TracingDepth()


def is_tracing():
    """bool: True while ``torch.jit.trace`` records a function (inside the traced code)."""
    return _tracing.depth > 0


def is_scripting():
    """bool: always False (vfw runs scripted code as Python)."""
    return False


# -- decorators and helpers that only matter to the TorchScript compiler ------------------------
def _deprecated(name):
    # torch 2.13 warns from inside torch.jit, so Python's default filters hide it outside __main__'s own warnings
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  DeprecationWarning, stacklevel=1)


def fork(func, *args, **kwargs):
    """Deprecated ``torch.jit.fork``: :func:`torch.fork` (runs ``func`` now; a completed Future of its result)."""
    warnings.warn("`torch.jit.fork` is deprecated. Please use `torch.compile` instead.", DeprecationWarning,
                  stacklevel=1)  # as torch: attributed to torch.jit, so default filters hide it
    return _runtime_extras.fork(func, *args, **kwargs)


def wait(future):
    """Deprecated ``torch.jit.wait``: :func:`torch.wait` (the value of a Future)."""
    warnings.warn("`torch.jit.wait` is deprecated. Please use `torch.compile` instead.", DeprecationWarning,
                  stacklevel=1)  # as torch: attributed to torch.jit, so default filters hide it
    return _runtime_extras.wait(future)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Return ``obj`` unchanged: vfw has no TorchScript compiler, so scripted code runs eagerly."""
    _deprecated("script")
    return obj


def script_if_tracing(fn):
    """Script ``fn`` only when called during tracing: vfw runs it as Python either way (a wrapper, as torch's)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def ignore(drop=False, **kwargs):
    """Decorator (``@ignore`` or ``@ignore(drop=True)``) leaving the function unchanged."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    """Decorator leaving the function unchanged."""
    return fn


def export(fn):
    """Decorator leaving the method unchanged."""
    return fn


def annotate(the_type, the_value):
    """``the_value`` (a type hint for the TorchScript compiler)."""
    return the_value


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """``mod`` itself (vfw's traced modules already read parameters by reference); eval mode required."""
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() on "
                           "your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    """``freeze(mod)``: the engine graph passes already run on every trace."""
    return freeze(mod)


def _no_archives(what):
    raise NotImplementedError(f"vfw.torch.jit.{what}: TorchScript archives are not supported; save the module's "
                              "state_dict() with torch.save and rebuild the module in Python instead")


def save(m, f, _extra_files=None):
    """Refused: vfw cannot write TorchScript archives."""
    _no_archives("save")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Refused: vfw cannot read TorchScript archives."""
    _no_archives("load")


# -- tracing -------------------------------------------------------------------------------------
def _tensors_in(obj):
    """The tensors in a (nested) tuple/list/dict argument or result."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for item in obj for t in _tensors_in(item)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in _tensors_in(item)]
    return []


def _cloned(obj):
    """``obj`` with every tensor in it (nested tuple/list/dict) replaced by a copy."""
    if isinstance(obj, Tensor):
        return obj.clone()
    if isinstance(obj, (tuple, list)):
        return type(obj)(_cloned(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _cloned(v) for k, v in obj.items()}
    return obj


def _type_name(obj):
    """torch's name of an argument's type in tracing errors (``Tuple[Tensor, int]``)."""
    if isinstance(obj, Tensor):
        return "Tensor"
    if isinstance(obj, tuple):
        return f"Tuple[{', '.join(_type_name(o) for o in obj)}]"
    if isinstance(obj, list):
        return f"List[{_type_name(obj[0]) if obj else 'Tensor'}]"
    if isinstance(obj, dict):
        key, value = next(iter(obj.items()), ("", None))
        return f"Dict[{_type_name(key)}, {_type_name(value) if obj else 'Tensor'}]"
    return type(obj).__name__


def _traceable(obj):
    """Whether ``obj`` is a tensor or a (nested) tuple/list/dict of tensors."""
    if isinstance(obj, (tuple, list)):
        return all(_traceable(o) for o in obj)
    if isinstance(obj, dict):
        return all(_traceable(o) for o in obj.values())
    return isinstance(obj, Tensor)


def _check_traceable(args, kwargs):
    for what in (args, kwargs):
        if not _traceable(what):
            raise RuntimeError(f"Type '{_type_name(what)}' cannot be traced. Only Tensors and (possibly nested) "
                               "Lists, Dicts, and Tuples of Tensors can be traced")


def _shapes(args, kwargs):
    """The shapes and dtypes of the tensors in a call's arguments (what selects a trace, with the structure)."""
    if not kwargs:
        try:  # the common call: tensors as positional arguments
            return tuple([(a.array.shape, a.array.dtype) for a in args])
        except AttributeError:
            pass
    return tuple(kwargs), tuple([(t.array.shape, t.array.dtype) for t in _tensors_in(args) + _tensors_in(kwargs)])


class _GraphRunner:
    """Calls ``fn`` through engine graphs traced per signature, or eagerly when a graph cannot serve.

    Parameters
    ----------
    fn : callable
        The Python function or module.
    modules : list of nn.Module
        For a module: it and its submodules, whose ``training`` flags select the graphs.
    """

    def __init__(self, fn, modules=()):
        self.fn = fn
        self.modules = list(modules)
        self.graphs = {}  # the modules' training flags -> Function (its traces, one per input signature)
        self.signatures = set()  # (flags, input shapes/dtypes) seen: a new one may trace
        self.read_tensors = {}  # id -> a tensor the traces read by reference (parameters...)
        self.eager_only = False
        self._traced_result = None  # the result of the last tracing run (a refused trace's call returns it)

    def _traced_body(self, *args, **kwargs):
        _tracing.depth += 1
        try:
            self._traced_result = self.fn(*args, **kwargs)
            return self._traced_result
        finally:
            _tracing.depth -= 1

    def _needs_grad(self, args, kwargs):
        return any(t.requires_grad for t in self.read_tensors.values()) or any(
            t.requires_grad for t in _tensors_in(args) + _tensors_in(kwargs))

    def __call__(self, *args, **kwargs):
        if self.eager_only or (is_grad_enabled() and self._needs_grad(args, kwargs)):
            return self.fn(*args, **kwargs)
        modes = tuple([m.training for m in self.modules])
        graphs = self.graphs.get(modes)
        if graphs is None:
            graphs = self.graphs[modes] = Function(self._traced_body)
        signature = (modes, _shapes(args, kwargs))
        if signature in self.signatures:
            return graphs(*args, **kwargs)
        # Possibly a new trace, which runs the code eagerly.
        self.signatures.add(signature)
        traced_before = graphs.tracing_count
        try:
            result = graphs(*args, **kwargs)
        except TraceError as error:
            # The tracing run went through eagerly (its result is this call's), but no graph can replay it.
            result, self._traced_result = self._traced_result, None
            self.eager_only = True
            warn_for_user(f"torch.jit.trace: {error}; the traced code runs eagerly from now on", TracerWarning)
            return result
        if graphs.tracing_count != traced_before:
            concrete = graphs.get_concrete_function(*args, **kwargs)
            self.read_tensors.update((id(t), t) for _, t in concrete.captures)
        self._traced_result = None
        return result

    def traced_now(self, args, kwargs):
        """Trace the example now (without recording autograd); returns the tracing run's result."""
        with no_grad():
            return self(*args, **kwargs)


def _compare(expected, got, tolerance):
    """Warn (TracerWarning) where a traced output differs from the Python function's."""
    pairs = list(zip(_tensors_in(expected), _tensors_in(got)))
    for i, (e, g) in enumerate(pairs):
        a, b = np.asarray(e.array, np.float64), np.asarray(g.array, np.float64)
        if a.shape != b.shape or not np.allclose(b, a, rtol=tolerance, atol=tolerance, equal_nan=True):
            detail = (f"shapes {list(a.shape)} and {list(b.shape)}" if a.shape != b.shape else
                      f"greatest absolute difference {np.nanmax(np.abs(a - b)) if a.size else 0} "
                      f"(up to {tolerance} allowed)")
            warn_for_user(f"Output nr {i + 1}. of the traced function does not match the corresponding output of "
                          f"the Python function. Detailed error:\nTensor-likes are not close! {detail}", TracerWarning)


def _check_output(result, strict):
    if not strict and isinstance(result, (list, dict)):
        return
    if isinstance(result, (list, dict)):
        message = (f"Encountering a {type(result).__name__} at the output of the tracer might cause the trace to be "
                   "incorrect, this is only valid if the container structure does not change based on the module's "
                   "inputs. Consider using a constant container instead (e.g. for `list`, use a `tuple` instead. for "
                   "`dict`, use a `NamedTuple` instead). If you absolutely need this and know the side effects, pass "
                   "strict=False to trace() to allow this behavior.")
        if isinstance(result, dict):
            raise RuntimeError(message)
        warn_for_user(message, TracerWarning)


class ScriptFunction:
    """A traced function (torch.jit.ScriptFunction): call it like the original.

    Attributes
    ----------
    name : str
        The original function's name.
    """

    def __init__(self, fn, runner):
        functools.update_wrapper(self, fn)
        self.name = getattr(fn, "__name__", "fn")
        self._runner = runner

    def __call__(self, *args, **kwargs):
        return self._runner(*args, **kwargs)

    def __repr__(self):
        return f"<vfw.torch.jit.ScriptFunction {self.name}>"


class ScriptModule(Module):
    """Base class of vfw's traced modules (torch.jit.ScriptModule)."""


class TracedModule(ScriptModule):
    """A traced ``nn.Module`` (what ``torch.jit.trace(module, ...)`` returns).

    It shares the original module's parameters, buffers and submodules (``parameters()``,
    ``state_dict()``, ``load_state_dict()``, ``traced.fc`` act on them), and ``train()`` /
    ``eval()`` set the original's modes; calling it runs the traced ``forward``.
    """

    def __init__(self, module, runner):
        super().__init__()
        for name in ("_parameters", "_buffers", "_non_persistent_buffers_set", "_modules"):
            object.__setattr__(self, name, getattr(module, name))
        object.__setattr__(self, "_original", module)
        object.__setattr__(self, "_runner", runner)
        self.training = module.training

    def forward(self, *args, **kwargs):
        """The traced computation of the original ``forward``."""
        return self._runner(*args, **kwargs)

    def train(self, mode=True):
        """Set the original module's training mode (and this one's); returns self."""
        self._original.train(mode)
        self.training = mode
        return self

    def _get_name(self):
        return self._original._get_name()

    def extra_repr(self):
        return f"original_name={type(self._original).__name__}"


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None, example_kwarg_inputs=None,
          _store_inputs=True):
    """Trace a function or ``nn.Module`` on example inputs; the result runs as an engine graph.

    Parameters
    ----------
    func : callable or nn.Module
    example_inputs : Tensor or tuple, optional
        Positional arguments of the example call (a single tensor or dict is one argument).
    check_trace : bool
        Run the traced result on the example (and ``check_inputs``) and warn (``TracerWarning``)
        where it differs from the Python code by more than ``check_tolerance``.
    check_inputs : list of tuples, optional
    check_tolerance : float
    strict : bool
        When True, a dict output raises and a list output warns, as in torch.
    example_kwarg_inputs : dict, optional
        Keyword arguments of the example call.
    optimize, _force_outplace, _module_class, _compilation_unit, _store_inputs
        Accepted for compatibility; ignored.

    Returns
    -------
    TracedModule or ScriptFunction
        See the module docstring for how calls run (graphs, retracing, eager under autograd).
    """
    _deprecated("trace")
    if example_inputs is None and example_kwarg_inputs is None:
        raise TypeError("trace(): example_inputs or example_kwarg_inputs must be given")
    if isinstance(example_inputs, (Tensor, dict)) and example_kwarg_inputs is None:
        example_inputs = (example_inputs,)
    args = () if example_inputs is None else tuple(example_inputs)
    kwargs = dict(example_kwarg_inputs or {})
    _check_traceable(args, kwargs)
    check_args, check_kwargs = (_cloned(args), _cloned(kwargs)) if check_trace else (None, None)
    if isinstance(func, Module):
        runner = _GraphRunner(func, func.modules())
        traced = TracedModule(func, runner)
    else:
        runner = _GraphRunner(func)
        traced = ScriptFunction(func, runner)
    result = runner.traced_now(args, kwargs)
    _check_output(result, strict)
    if check_trace:  # on copies of the inputs: the code may write into them
        with no_grad():
            _compare(result, runner(*check_args, **check_kwargs), check_tolerance)
            for check in check_inputs or ():
                check = check if isinstance(check, tuple) else (check,)
                expected = func(*_cloned(check))
                runner(*_cloned(check))  # traces a new signature (that run is eager), so the next call runs the graph
                _compare(expected, runner(*_cloned(check)), check_tolerance)
    return traced


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
                 strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
                 example_inputs_is_kwarg=False, _store_inputs=True):
    """``trace(mod, inputs['forward'])``: only ``forward`` can be traced in vfw."""
    if set(inputs) != {"forward"}:
        raise NotImplementedError("vfw.torch.jit.trace_module traces only 'forward' (inputs={'forward': example})")
    example = inputs["forward"]
    return trace(mod, None if example_inputs_is_kwarg else example, check_trace=check_trace, check_inputs=check_inputs,
                 check_tolerance=check_tolerance, strict=strict,
                 example_kwarg_inputs=example if example_inputs_is_kwarg else None)
