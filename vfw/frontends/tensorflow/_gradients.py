"""tf.GradientTape, tf.UnconnectedGradients, tf.stop_gradient, tf.gradients (and, from ``_custom_gradient``,
tf.custom_gradient and tf.recompute_grad).

A tape is a window over the engine's autograd graph (``vfw.core.autograd``): while it records,
ops whose inputs require grad are recorded as engine nodes (op dispatch records nothing while
no tape records, as TF), and the tape keeps

- its recording spans (creation numbers of the engine's nodes: a tape paused by
  ``stop_recording`` or exited and re-entered does not follow the nodes made in between);
- the tensors it watches (``watch``, and the tensors read from variables it watches): their
  ``requires_grad`` is on while some tape watching them records;
- per watched variable, the tensors read from it while recording: the gradient with respect to
  a variable is the sum of the gradients of its reads (TF's semantics when a variable is
  assigned between reads).

A source gets a gradient only from the tape that watches it (or recorded the op that made it),
as in TF: ``inner.gradient(y, x)`` is None when only an outer tape watches ``x``.
"""

import contextlib
import enum
import logging
import weakref

import numpy as np

from vfw.core import autograd
from vfw.core.eager import execute
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _sparse_gradients, _tape_state, _traced_shapes, nest
from vfw.frontends.tensorflow._custom_gradient import custom_gradient, recompute_grad  # noqa: F401  (NAMESPACES)
from vfw.frontends.tensorflow._dtypes import of_array
from vfw.frontends.tensorflow._indexed_slices import IndexedSlices
from vfw.frontends.tensorflow._variables import Variable, primary

_logger = logging.getLogger("tensorflow")
_FLOATS = autograd.dt.DIFFERENTIABLE  # floating and complex: what TF tapes watch
_LOGGED = {}  # warning -> times logged (TF logs some warnings only the first n times per process)


def _log_first_n(key, n, message):
    count = _LOGGED.get(key, 0)
    if count < n:
        _LOGGED[key] = count + 1
        _logger.warning(message)


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on: None, or zeros."""

    NONE = "none"
    ZERO = "zero"


_MODES = {mode: mode for mode in UnconnectedGradients} | {mode.value: mode for mode in UnconnectedGradients}


def _unconnected_mode(value):
    try:
        return _MODES[value]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


_USED = "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"


class GradientTape:
    """Record operations to differentiate them: TF's ``tf.GradientTape``.

    Parameters
    ----------
    persistent : bool
        Allow several ``gradient``/``jacobian`` calls (a non-persistent tape allows one).
    watch_accessed_variables : bool
        Watch the trainable variables read while recording (else only those given to ``watch``).
    """

    records_ops = True  # ``_tape_state.recording()``: a recording tape, not a variable watcher

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._recording = False
        self._spans = None  # [first, last] creation numbers of each recording span; None before the first
        self._used = False
        self._watched = {}  # id(tensor) -> tensor: the tensors this tape watches
        self._flipped = []  # watched tensors whose requires_grad this tape turned on
        self._variables = {}  # id(variable) -> (variable, [tensors read from it while watched])
        self._peers = []  # weak references to the tapes that recorded at the same time (sharing nodes)

    # -- recording ----------------------------------------------------------------------------------
    def __enter__(self):
        self._push()
        return self

    def __exit__(self, *exc):
        if self._recording:
            self._pop()
        return False

    def _push(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active "
                             "tape.")
        if self._spans is None:
            self._spans = []
        self._spans.append([autograd.write_stamp(), None])
        self._recording = True
        for t in self._watched.values():
            self._enable(t)
        for other in _tape_state.local.observers:
            if isinstance(other, GradientTape):  # both record the nodes made from now on
                self._peers.append(weakref.ref(other))
                other._peers.append(weakref.ref(self))
        _tape_state.push(self)

    def _pop(self):
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._spans[-1][1] = autograd.write_stamp()
        self._recording = False
        _tape_state.pop(self)
        others = [o for o in _tape_state.local.observers if isinstance(o, GradientTape)]
        for t in self._flipped:
            heir = next((o for o in others if id(t) in o._watched), None)
            if heir is not None:
                heir._flipped.append(t)  # still watched by a recording tape: it restores the flag later
            else:
                t.requires_grad = False
        self._flipped = []

    def _enable(self, t):
        if not t.requires_grad:
            t.requires_grad = True
            self._flipped.append(t)

    @contextlib.contextmanager
    def stop_recording(self):
        """A context in which this tape records nothing (other tapes go on recording)."""
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self):
        """Forget everything recorded and watched so far; the tape goes on recording."""
        self._pop()
        self._spans = None
        self._peers = []
        self._watched = {}
        self._variables = {}
        self._used = False
        self._push()

    # -- watching -----------------------------------------------------------------------------------
    def watch(self, tensor):
        """Watch ``tensor``: a tensor, a variable, or a nested structure of them.

        Raises ValueError for anything else; non-float tensors are not watched (TF logs a warning).
        """
        for t in nest.flatten(tensor):
            if isinstance(t, Variable):
                self._watch_variable(primary(t))
            elif isinstance(t, CoreTensor):
                if t.array.dtype in _FLOATS:
                    self._watch_tensor(t)
                else:
                    _warn_non_float(t)
            else:
                raise ValueError(f"Passed in object {t} of type '{type(t).__name__}', not tf.Tensor or tf.Variable "
                                 "or ExtensionType.")

    def _watch_tensor(self, t):
        if id(t) not in self._watched:
            self._watched[id(t)] = t
            if self._recording:
                self._enable(t)

    def _watch_variable(self, variable):
        value = variable._current()
        if value.array.dtype not in _FLOATS:
            _warn_non_float(value)
        entry = self._variables.get(id(variable))
        if entry is None:
            entry = self._variables[id(variable)] = (variable, [])
        self._watch_read(entry[1], value)

    def _watch_read(self, reads, value):
        if value.array.dtype in _FLOATS and id(value) not in self._watched:
            reads.append(value)
            self._watch_tensor(value)

    def variable_read(self, variable, value):
        """Hook (``_tape_state.notify_read``): ``variable`` was read as ``value`` while this tape records."""
        entry = self._variables.get(id(variable))
        if entry is None:
            if not (self._watch_accessed and variable._trainable):
                return
            entry = self._variables[id(variable)] = (variable, [])
        reads = entry[1]
        if not reads or reads[-1] is not value:
            self._watch_read(reads, value)

    def watched_variables(self):
        """tuple: the variables this tape watches, in the order it first watched them."""
        return tuple(variable for variable, _ in self._variables.values())

    # -- differentiating ------------------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
        """Gradients of ``target`` with respect to ``sources``.

        Parameters
        ----------
        target : Tensor, Variable or nested structure of them
            Several targets: the gradient of their sum.
        sources : Tensor, Variable or nested structure of them
            The result has the same structure.
        output_gradients : Tensor or nested structure, optional
            One per target: the vector of the vector-Jacobian product (ones when None).
        unconnected_gradients : UnconnectedGradients or str
            ``"none"`` (None for sources the target does not depend on) or ``"zero"``.

        Returns
        -------
        Tensor, IndexedSlices or None, in the structure of ``sources``
            An ``IndexedSlices`` for a source whose only uses are gathers on axis 0 (as TF);
            None also for non-float sources and targets (as TF).
        """
        mode = UnconnectedGradients.NONE if unconnected_gradients is UnconnectedGradients.NONE else \
            _unconnected_mode(unconnected_gradients)
        self._start_use()
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, Variables or "
                            "CompositeTensors to be differentiated, but received None.")
        flat_targets = [target] if isinstance(target, CoreTensor) else [_as_source(t) for t in nest.flatten(target)]
        targets = [_target_tensor(t) for t in flat_targets]
        seeds = None if output_gradients is None else _seeds(targets, output_gradients)
        single = isinstance(sources, (CoreTensor, Variable)) or hasattr(sources, "_tf_variable")
        flat_sources = [_as_source(s) for s in ([sources] if single else nest.flatten(sources))]
        grads = self._differentiate(targets, flat_sources, seeds, sparse=True)
        self._add_variable_identities(flat_targets, targets, seeds, flat_sources, grads)
        self._end_use()
        results = [_finish(g, s, mode) for g, s in zip(grads, flat_sources)]
        return results[0] if single else nest.pack_sequence_as(sources, results)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE, parallel_iterations=None,
                 experimental_use_pfor=True):
        """The Jacobian of ``target`` with respect to each source: shape ``target.shape + source.shape``.

        Computed with one backward pass per element of ``target``.
        """
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError("GradientTape must be created with persistent=True to compute the jacobian with eager "
                               "execution enabled and with  experimental_use_pfor set to False.")
        mode = _unconnected_mode(unconnected_gradients)
        self._start_use()
        target = _target_tensor(target)
        flat_sources = [_as_source(s) for s in nest.flatten(sources)]
        shape = target.array.shape
        size = int(np.prod(shape, dtype=np.int64))
        rows = [self._differentiate([target], flat_sources, [_one_hot(size, i, shape, target.array.dtype)], True)
                for i in range(size)]
        self._end_use()
        results = []
        for k, source in enumerate(flat_sources):
            column = [row[k] for row in rows]
            if all(g is None for g in column) and mode is UnconnectedGradients.NONE:
                results.append(None)
                continue
            source_shape = _source_shape(source)
            results.append(_stacked(column, size, source_shape, shape + source_shape, _source_array(source).dtype))
        return nest.pack_sequence_as(sources, results)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: ``result[i]`` is the Jacobian of ``target[i]`` with respect to ``source[i]``.

        Assumes example ``i`` of ``target`` depends only on example ``i`` of ``source`` (as TF);
        shape ``target.shape + source.shape[1:]``.  Zeros where unconnected.
        """
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError("GradientTape must be created with persistent=True to compute the batch_jacobian with "
                               "eager execution enabled and with experimental_use_pfor set to False.")
        _unconnected_mode(unconnected_gradients)
        target = _target_tensor(target)
        tshape, sshape = target.array.shape, _source_shape(source)
        if not tshape:
            raise IndexError("list index out of range")
        for shape in (tshape, sshape):
            if len(shape) < 2:
                raise ValueError(f"Shape {_shape_text(shape)} must have rank at least 2")
        if tshape[0] != sshape[0]:
            raise ValueError(f"Need first dimension of target shape ({_shape_text(tshape)}) and source shape "
                             f"({_shape_text(sshape)}) to match.")
        self._start_use()
        batch, width = tshape[0], int(np.prod(tshape[1:], dtype=np.int64))
        dtype = target.array.dtype
        column = []
        for j in range(width):
            seed = np.zeros((batch, width), dtype)
            seed[:, j] = 1
            column.append(self._differentiate([target], [source], [CoreTensor.wrap(seed.reshape(tshape))], True)[0])
        self._end_use()
        per_example = (batch, int(np.prod(sshape[1:], dtype=np.int64)))
        column = [None if g is None else execute("Reshape", g, np.array((batch, 1, per_example[1]), np.int64))
                  for g in column]
        stacked = _concat(column, (batch, 1, per_example[1]), dtype, axis=1)
        return _dispatch.as_tf(execute("Reshape", stacked, np.array(tshape + sshape[1:], np.int64)))

    def _start_use(self):
        if self._spans is None or (self._used and not self._persistent):
            raise RuntimeError(_USED)
        if self._recording:
            if not self._persistent:
                self._pop()  # TF stops a non-persistent tape: its gradient computation is not recorded
            else:
                _log_first_n("persistent", 1, "Calling GradientTape.gradient on a persistent tape inside its "
                             "context is significantly less efficient than calling it outside the context (it causes "
                             "the gradient ops to be recorded on the tape, leading to increased CPU and memory usage). "
                             "Only call GradientTape.gradient inside the context if you actually want to trace the "
                             "gradient in order to compute higher order derivatives.")

    def _end_use(self):
        if not self._persistent:
            self._used = True

    def _differentiate(self, targets, flat_sources, seeds, retain=False, sparse=False):
        """Engine gradients of ``targets`` for each source (summed over a variable's reads; None if unconnected).

        With ``sparse``, a source that only feeds axis-0 gathers gets TF's ``IndexedSlices`` gradient.
        """
        groups = [self._source_tensors(s) for s in flat_sources]
        tensors = [t for group in groups for t in group]
        if not tensors:
            return [None] * len(groups)
        spans = self._spans
        first, last = spans[0][0], spans[-1][1]
        skip = [(spans[i][1], spans[i + 1][0]) for i in range(len(spans) - 1)] if len(spans) > 1 else ()
        create_graph = _tape_state.recording()
        retain = retain or self._persistent or create_graph or self._shares_nodes()
        plan = _sparse_gradients.sparse_plan(targets, groups, spans) if sparse else None
        request = tensors
        if plan:  # differentiate with respect to the gathers' outputs: their gradients are the slices
            stand_ins = _sparse_gradients.stand_ins(plan)
            request = [s for t in tensors for s in stand_ins.get(_sparse_gradients.tensor_key(t), (t,))]
        found = autograd.gradient(targets, request, seeds, retain_graph=retain, create_graph=create_graph,
                                  first_seq=first, last_seq=float("inf") if last is None else last, skip=skip)
        grads, k = [], 0
        for group in groups:
            parts = []
            for t in group:
                gathers = plan.get(_sparse_gradients.tensor_key(t)) if plan else None
                if gathers is None:
                    parts.append(found[k])
                    k += 1
                else:
                    parts.append(_sparse_gradients.slices(gathers, found[k:k + len(gathers)], t))
                    k += len(gathers)
            grads.append(_sparse_gradients.combine(parts))
        return grads

    def _add_variable_identities(self, flat_targets, targets, seeds, flat_sources, grads):
        """Add, in place, the gradient of a variable target with respect to that same variable as a source: TF
        differentiates both through the variable's handle, so the target's seed (ones) is that gradient even when
        the tape never read the variable (any dtype). A read this tape recorded already carries it."""
        for j, target in enumerate(flat_targets):
            if not isinstance(target, Variable) or any(t is targets[j] for t in self._source_tensors(target)):
                continue
            seed = seeds[j] if seeds is not None and seeds[j] is not None else \
                CoreTensor.wrap(np.ones_like(targets[j].array))
            for k, source in enumerate(flat_sources):
                if isinstance(source, Variable) and primary(source) is primary(target):
                    grads[k] = seed if grads[k] is None else execute("Add", grads[k], seed)

    def _source_tensors(self, source):
        """The engine tensors whose gradients make up the gradient of ``source`` on this tape."""
        if isinstance(source, Variable):
            entry = self._variables.get(id(primary(source)))
            return list(entry[1]) if entry is not None else []
        if isinstance(source, CoreTensor):
            if source.array.dtype not in _FLOATS:
                return []
            node = source.grad_node
            if id(source) in self._watched or (node is not None and self._recorded(node.seq)):
                return [source]
            return []
        if source is None:
            raise TypeError("Cannot convert the argument `type_value`: None to a TensorFlow DType.")
        if not hasattr(source, "dtype"):
            raise AttributeError(f"'{type(source).__name__}' object has no attribute 'dtype'")
        return []

    def _recorded(self, seq):
        return any(lo <= seq and (hi is None or seq <= hi) for lo, hi in self._spans)

    def _shares_nodes(self):
        """Whether a tape that recorded while this one did may still compute gradients (then nodes are kept)."""
        for ref in self._peers:
            other = ref()
            if other is not None and (other._persistent or not other._used):
                return True
        return False


# -- gradient helpers -----------------------------------------------------------------------------------
def _warn_non_float(t):
    _log_first_n("watch", 5, "The dtype of the watched tensor must be floating (e.g. tf.float32), got "
                 f"tf.{of_array(t.array).name}")


def _as_source(x):
    """The tf.Variable a wrapper stands for (a Keras variable exposes it as ``_tf_variable``), else ``x``."""
    wrapped = getattr(x, "_tf_variable", None)
    return x if wrapped is None else wrapped


def _target_tensor(target):
    if isinstance(target, Variable):
        return target._current()
    if isinstance(target, CoreTensor):
        return target
    return _dispatch.convert_to_tensor(target)


def _seeds(targets, output_gradients):
    """The output gradient of each target (None: ones), converted and broadcast to the target's shape."""
    if output_gradients is None:
        return None
    seeds = []
    for target, seed in zip(targets, nest.flatten(output_gradients)):
        if seed is not None:
            seed = _dispatch.convert_to_tensor(seed, dtype_hint=of_array(target.array))
            if _traced_shapes.shape_varies(seed, target):  # (in a traced graph: the shapes of each call)
                _traced_shapes.checked_at_run(_check_seed, seed, target)
                seed = execute("Expand", seed, execute("Shape", target))
            elif seed.array.shape != target.array.shape:
                _check_seed(seed.array, target.array)
                seed = execute("Expand", seed, np.array(target.array.shape, np.int64))
        seeds.append(seed)
    return seeds + [None] * (len(targets) - len(seeds))


def _check_seed(seed, target):
    """Raise TF's error unless the output gradient ``seed`` (an array) broadcasts to the shape of ``target``."""
    try:
        ok = np.broadcast_shapes(seed.shape, target.shape) == target.shape
    except ValueError:
        ok = False
    if not ok:
        raise _dispatch.op_error(f"Incompatible shapes: {list(seed.shape)} vs. {list(target.shape)}", "Mul")


def _source_array(source):
    return (source._current() if isinstance(source, Variable) else source).array


def _source_shape(source):
    return _source_array(source).shape


def _finish(g, source, mode):
    if isinstance(g, IndexedSlices):
        return g
    if g is not None:
        return _dispatch.as_tf(g)
    if mode is UnconnectedGradients.ZERO and isinstance(source, (Variable, CoreTensor)):
        return _dispatch.wrap(np.zeros_like(_source_array(source)))
    return None


def _one_hot(size, i, shape, dtype):
    seed = np.zeros(size, dtype)
    seed[i] = 1
    return CoreTensor.wrap(seed.reshape(shape))


def _concat(parts, part_shape, dtype, axis):
    """Concatenate gradient parts (zeros for None ones) with engine ops, so outer tapes can differentiate it."""
    parts = [CoreTensor.wrap(np.zeros(part_shape, dtype)) if p is None else p for p in parts]
    if len(parts) == 1:
        return parts[0]
    return execute("Concat", *parts, axis=axis)


def _stacked(column, size, source_shape, shape, dtype):
    """Rows of a Jacobian (one gradient of ``source_shape`` per target element) as one tensor of ``shape``."""
    flat = int(np.prod(source_shape, dtype=np.int64))
    if size == 0:
        return _dispatch.wrap(np.zeros(shape, dtype))
    rows = [None if g is None else execute("Reshape", g, np.array((1, flat), np.int64)) for g in column]
    return _dispatch.as_tf(execute("Reshape", _concat(rows, (1, flat), dtype, 0), np.array(shape, np.int64)))


def _shape_text(shape):
    return "(" + ", ".join(map(str, shape)) + (",)" if len(shape) == 1 else ")")


# -- functions ----------------------------------------------------------------------------------------------
def stop_gradient(input, name=None):  # noqa: A002  (TF's argument name)
    """``input`` as a tensor through which no gradient flows."""
    return _dispatch.wrap(_dispatch.convert_to_tensor(input).array)


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
              stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
    """Graph-mode symbolic gradients: not available in eager execution (use tf.GradientTape), as in TF."""
    raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead.")


NAMESPACES = {"tf": ["GradientTape", "UnconnectedGradients", "custom_gradient", "gradients", "recompute_grad",
                     "stop_gradient"],
              "autodiff": ["GradientTape"]}
TENSOR_METHODS = {}
