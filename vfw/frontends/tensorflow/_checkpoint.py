"""tf.train.Checkpoint, tf.train.CheckpointManager and the checkpoint-state helpers, in vfw's own file format.

A checkpoint saves the variables reachable from its root: its keyword arguments and ``save_counter``, into
``tf.Module`` attributes (lists, tuples and dicts too), Keras objects (layers, models, optimizers, metrics: their
``variables`` list, by position) and nested checkpoints; and the position of tf.data iterators.  A variable's key
is the path of names that reaches it (``model/variables/3``); restoring walks the restoring program's objects the
same way and assigns each variable the value saved under its path.  Values for optimizer variables that do not
exist yet (slots are made on the first update) wait on the optimizer until it makes them, as TF defers them.

Files, as TF names them: ``<prefix>.index`` (JSON: every key's shape and dtype) and ``<prefix>.data-00000-of-00001``
(a numpy ``.npz`` archive of numeric arrays, loaded without pickles), and in the directory the text file
``checkpoint`` that ``latest_checkpoint`` reads (``model_checkpoint_path`` / ``all_model_checkpoint_paths``, TF's
text format).  The files are not interchangeable with TF's.
"""

import json
import os
import re
import time

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._module import Module
from vfw.frontends.tensorflow._variables import Variable

_DATA_SUFFIX = ".data-00000-of-00001"
_STATE_FILE = "checkpoint"


def _is_variable(obj):
    # Keras variables wrap a tf.Variable in ``.value`` and are assigned directly.
    return isinstance(obj, Variable) or (type(obj).__name__ == "Variable" and hasattr(obj, "assign")
                                         and isinstance(getattr(obj, "value", None), Variable))


def _is_keras_object(obj):
    return type(obj).__module__.startswith(("vfw.frontends.tensorflow.keras", "keras.")) and hasattr(obj, "variables")


def _is_iterator(obj):
    return hasattr(obj, "_restore_position") and hasattr(obj, "_produced")


class _IteratorPosition:
    """A tf.data iterator's saved state, as a checkpoint value: how many elements it has produced (TF saves its
    whole state; restoring pulls that many elements from the start of the restoring iterator's pipeline)."""

    shape = ()
    name = "iterator"

    def __init__(self, iterator):
        self.iterator = iterator

    def numpy(self):
        return np.asarray(self.iterator._produced, np.int64)

    def assign(self, value):
        self.iterator._restore_position(int(np.asarray(value)))


def _is_trackable(obj):
    return (_is_variable(obj) or isinstance(obj, (Module, Checkpoint, list, tuple, dict)) or _is_keras_object(obj)
            or _is_iterator(obj))


def _children(obj):
    """``(name, child)`` pairs of the trackable children of ``obj``."""
    if isinstance(obj, Checkpoint):
        return sorted(obj._tracked.items())
    if isinstance(obj, dict):
        return [(str(key), value) for key, value in sorted(obj.items(), key=lambda item: str(item[0]))]
    if isinstance(obj, (list, tuple)):
        return [(str(i), value) for i, value in enumerate(obj)]
    if isinstance(obj, Module):
        ignored = obj._TF_MODULE_IGNORED_PROPERTIES
        return [(name, value) for name, value in sorted(vars(obj).items())
                if name not in ignored and _is_trackable(value)]
    if _is_keras_object(obj):
        return [(f"variables/{i}", v) for i, v in enumerate(obj.variables)]
    return []


def _variables_by_path(root):
    """``{path: variable}`` for every variable reachable from ``root`` (every path that reaches one), and
    ``{path: keras object}`` for the Keras objects met (where values for missing variables can wait)."""
    found, owners = {}, {}

    def walk(obj, path, active):
        if _is_variable(obj):
            found[path] = obj
            return
        if _is_iterator(obj):
            found[path] = _IteratorPosition(obj)
            return
        if id(obj) in active:
            return
        if _is_keras_object(obj):
            owners[path] = obj
        active.add(id(obj))
        for name, child in _children(obj):
            walk(child, f"{path}/{name}" if path else name, active)
        active.discard(id(obj))

    walk(root, "", set())
    return found, owners


def _read_value(variable):
    return np.asarray(variable.numpy())


def _write_files(prefix, values):
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(prefix + _DATA_SUFFIX, "wb") as f:
        np.savez(f, **{f"v{i}": value for i, value in enumerate(values.values())})
    index = {key: {"entry": f"v{i}", "shape": list(value.shape), "dtype": str(value.dtype)}
             for i, (key, value) in enumerate(values.items())}
    with open(prefix + ".index", "w") as f:
        json.dump(index, f)


def _read_files(path):
    """``{key: array}`` saved at checkpoint ``path`` (TF's NotFoundError when there is none)."""
    path = os.fspath(path)
    if not os.path.isfile(path + ".index"):
        raise errors.NotFoundError(None, None, f"Error when restoring from checkpoint or SavedModel at {path}: "
                                   "Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
                                   f"for {path}\nPlease double-check that the path is correct. You may be missing the "
                                   "checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').")
    with open(path + ".index") as f:
        index = json.load(f)
    with np.load(path + _DATA_SUFFIX, allow_pickle=False) as data:
        return {key: data[entry["entry"]] for key, entry in index.items()}


def _assign(variable, value):
    shape = tuple(variable.shape)
    if tuple(value.shape) != shape:
        name = variable.name if ":" in variable.name else f"{variable.name}:0"
        raise ValueError(f"Received incompatible tensor with shape {tuple(value.shape)} when attempting to restore "
                         f"variable with shape {shape} and name {name}.")
    variable.assign(value)


def restore_deferred(owner, index, variable):
    """Give ``variable``, just made as ``owner.variables[index]``, the value a checkpoint restored for it before it
    existed (Keras optimizers call this as they make their slots)."""
    waiting = owner.__dict__.get("_deferred_checkpoint_values")
    if waiting and index in waiting:
        from vfw.frontends.tensorflow._context_ops import init_scope

        # Made while a tf.function traces (apply_gradients in a tf.function train step): the restored value is
        # the variable's initial value, set once now, not an assignment the graph would replay at every call.
        with init_scope():
            _assign(variable, waiting.pop(index))


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` matched: the ``assert_*`` methods raise AssertionError as TF's do."""

    def __init__(self, unmatched_values, unbound_variables, matched, save_path):
        self._unmatched_values = unmatched_values  # {path: (owner or None, index)}: saved, not (yet) restored
        self._unbound = unbound_variables
        self._matched = matched
        self._save_path = save_path

    def _still_waiting(self):
        waiting = []
        for path, (owner, index) in self._unmatched_values.items():
            pending = owner.__dict__.get("_deferred_checkpoint_values", {}) if owner is not None else {index: None}
            if index in pending:
                waiting.append(path)
        return waiting

    def assert_existing_objects_matched(self):
        """Raise AssertionError if a variable of the restoring objects had no value in the checkpoint."""
        if self._unbound:
            shown = ", ".join(repr(v) for v in self._unbound[:10])
            raise AssertionError(f"Found {len(self._unbound)} Python objects that were not bound to checkpointed "
                                 "values, likely due to changes in the Python program. Showing "
                                 f"{min(len(self._unbound), 10)} of {len(self._unbound)} unmatched objects: [{shown}]")
        return self

    def assert_consumed(self):
        """Raise AssertionError unless every saved value was restored and every variable got one."""
        self.assert_existing_objects_matched()
        waiting = self._still_waiting()
        if waiting:
            raise AssertionError(f"Unresolved object in checkpoint (root).{waiting[0].replace('/', '.')}: "
                                 f"checkpoint_key: \"{waiting[0]}\"")
        return self

    def assert_nontrivial_match(self):
        """Raise AssertionError if nothing but the save counter matched."""
        if not self._matched:
            raise AssertionError(f"Nothing except the root object matched a checkpointed value. Typically this means "
                                 f"that the checkpoint does not match the Python program. ({self._save_path})")
        return self

    def expect_partial(self):
        """Accept a partial restore (TF silences its warnings); returns the status."""
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: eager restores happen at once."""

    def initialize_or_restore(self, session=None):
        """Nothing to run: eager restores happen at once."""


class InitializationOnlyStatus(CheckpointLoadStatus):
    """``restore(None)``: nothing restored."""

    def __init__(self):
        super().__init__({}, [], [], None)

    def _nothing(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_consumed(self):
        self._nothing()

    def assert_existing_objects_matched(self):
        self._nothing()

    def assert_nontrivial_match(self):
        self._nothing()


class Checkpoint:
    """Groups trackable objects to save and restore their variables together.

    Parameters
    ----------
    root : trackable, optional
        An object whose children become the checkpoint's own (``Checkpoint(root=model)`` saves the model's
        variables at the top level).
    **kwargs : trackable
        Named objects to save: variables, ``tf.Module``s, Keras layers/models/optimizers/metrics, lists and dicts
        of them, checkpoints.
    """

    def __init__(self, root=None, **kwargs):
        self._tracked = {}
        if root is not None:
            self._check_trackable("root", root)
            self._tracked.update(_children(root))
        for name, value in sorted(kwargs.items()):
            self._check_trackable(name, value)
            self._tracked[name] = value
        self._save_counter = None

    @staticmethod
    def _check_trackable(name, value):
        if not _is_trackable(value) or isinstance(value, (list, tuple, dict)) and not value:
            raise ValueError(f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from "
                             f"`Trackable`), got {value}. If you believe this object should be trackable (i.e. it is "
                             "part of the TensorFlow Python API and manages state), please open an issue.")

    def __getattr__(self, name):
        tracked = self.__dict__.get("_tracked", {})
        if name in tracked:
            return tracked[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            self._check_trackable(name, value)
            self._tracked[name] = value

    @property
    def save_counter(self):
        """Variable: int64, the number of ``save`` calls (made on first use)."""
        if self._save_counter is None:
            self._save_counter = Variable(0, dtype=_dtypes.int64, trainable=False, name="save_counter")
            self._tracked["save_counter"] = self._save_counter
        return self._save_counter

    def write(self, file_prefix, options=None):
        """Save the variables at exactly ``file_prefix`` (no counter, no state file); returns the path."""
        file_prefix = os.fspath(file_prefix)
        found, _ = _variables_by_path(self)
        _write_files(file_prefix, {path: _read_value(v) for path, v in found.items()})
        return file_prefix

    def save(self, file_prefix, options=None):
        """Increment ``save_counter`` and save at ``<file_prefix>-<save_counter>``, recorded as the directory's
        latest checkpoint; returns the path."""
        number = int(self.save_counter.assign_add(1).numpy())
        path = self.write(f"{os.fspath(file_prefix)}-{number}")
        _write_state(os.path.dirname(path), path, [path])
        return path

    def sync(self):
        """Wait for asynchronous checkpoint writes to finish: vfw writes synchronously, so there are none."""

    def read(self, save_path, options=None):
        """Restore from ``save_path`` (as ``restore``)."""
        return self.restore(save_path)

    def restore(self, save_path, options=None):
        """Assign every variable reachable from the checkpoint the value saved under its path.

        Returns
        -------
        CheckpointLoadStatus
            ``InitializationOnlyStatus`` when ``save_path`` is None.
        """
        if save_path is None:
            return InitializationOnlyStatus()
        saved = _read_files(save_path)
        if "save_counter" in saved:
            self.save_counter  # noqa: B018  (made now, so that it is restored)
        found, owners = _variables_by_path(self)
        unbound = [v for path, v in found.items() if path not in saved]
        for path, variable in found.items():
            if path in saved:
                _assign(variable, saved[path])
        unmatched = {}
        for path, value in saved.items():
            if path in found:
                continue
            owner_path, _, index = path.rpartition("/variables/")
            owner = owners.get(owner_path)
            if owner is not None and index.isdigit():
                # A Keras object's variable not made yet (optimizer slots): it waits on its owner.
                owner.__dict__.setdefault("_deferred_checkpoint_values", {})[int(index)] = value
                unmatched[path] = (owner, int(index))
            else:
                unmatched[path] = (None, path)
        matched = [path for path in found if path in saved and path != "save_counter"]
        return CheckpointLoadStatus(unmatched, unbound, matched, os.fspath(save_path))


# -- the directory's state file --------------------------------------------------------------------------------------
def _relative(directory, path):
    return os.path.relpath(path, directory) if os.path.isabs(path) == os.path.isabs(directory or ".") else path


def _write_state(directory, latest, paths):
    lines = [f'model_checkpoint_path: "{_relative(directory, latest)}"']
    lines += [f'all_model_checkpoint_paths: "{_relative(directory, p)}"' for p in paths]
    now = time.time()
    lines += [f"all_model_checkpoint_timestamps: {now}" for _ in paths] + [f"last_preserved_timestamp: {now}"]
    with open(os.path.join(directory, _STATE_FILE), "w") as f:
        f.write("\n".join(lines) + "\n")


def _read_state(directory):
    """``(latest, [all paths])`` recorded in ``directory``'s state file (absolute when the directory is), or None."""
    try:
        with open(os.path.join(os.fspath(directory), _STATE_FILE)) as f:
            text = f.read()
    except OSError:
        return None
    latest = re.search(r'^model_checkpoint_path: "(.*)"$', text, re.M)
    paths = re.findall(r'^all_model_checkpoint_paths: "(.*)"$', text, re.M)
    if latest is None:
        return None

    def full(p):
        return p if os.path.isabs(p) else os.path.join(directory, p)

    return full(latest.group(1)), [full(p) for p in paths]


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The path of the latest checkpoint recorded in ``checkpoint_dir`` (None when there is none)."""
    state = _read_state(checkpoint_dir)
    if state is None or not os.path.isfile(state[0] + ".index"):
        return None
    return state[0]


class CheckpointManager:
    """Numbered saves of a checkpoint in a directory, keeping the ``max_to_keep`` latest.

    Parameters
    ----------
    checkpoint : Checkpoint
    directory : str
        Where ``<checkpoint_name>-<n>`` files and the state file go; the checkpoints recorded there before are
        taken over.
    max_to_keep : int or None
        How many checkpoints to keep (None: all).
    step_counter : Variable, optional
        The training step, read by interval saving (required with ``checkpoint_interval``).
    checkpoint_interval : int, optional
        Save only when ``step_counter`` has advanced by at least this much since the last save (``save`` returns
        None otherwise).
    keep_checkpoint_every_n_hours, init_fn
        ``init_fn`` is called by ``restore_or_initialize`` when there is no checkpoint; keeping checkpoints by age
        is not supported.
    checkpoint_name : str
        The file prefix, default "ckpt".
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None):
        if directory is None:
            raise ValueError("Directory should not be None. Please provide a valid directory path.")
        if keep_checkpoint_every_n_hours is not None:
            raise NotImplementedError("vfw's CheckpointManager does not support keep_checkpoint_every_n_hours")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = None
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._name = checkpoint_name
        self._init_fn = init_fn
        state = _read_state(self._directory)
        self._checkpoints = [] if state is None else [p for p in state[1] if os.path.isfile(p + ".index")]

    @property
    def directory(self):
        """str: where the checkpoints go."""
        return self._directory

    @property
    def checkpoint(self):
        """Checkpoint: what is saved."""
        return self._checkpoint

    @property
    def checkpoints(self):
        """list of str: the kept checkpoints, oldest first."""
        return list(self._checkpoints)

    @property
    def latest_checkpoint(self):
        """str or None: the newest kept checkpoint."""
        return self._checkpoints[-1] if self._checkpoints else None

    @property
    def checkpoint_interval(self):
        """int or None: the steps between interval saves."""
        return self._checkpoint_interval

    def _step(self):
        return int(np.asarray(self._step_counter.numpy() if hasattr(self._step_counter, "numpy")
                              else self._step_counter))

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Save ``<directory>/<checkpoint_name>-<n>`` (``n``: ``checkpoint_number``, else the checkpoint's
        incremented ``save_counter``), forget the oldest beyond ``max_to_keep``; returns the path.

        With a ``checkpoint_interval`` (and ``check_interval``), nothing is saved and None returned until the step
        counter is ``checkpoint_interval`` steps past the last save."""
        if self._checkpoint_interval is not None and check_interval:
            step = self._step()
            if self._last_checkpoint_step is not None and step < self._last_checkpoint_step + \
                    self._checkpoint_interval:
                return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(np.asarray(
            checkpoint_number.numpy() if hasattr(checkpoint_number, "numpy") else checkpoint_number))
        path = self._checkpoint.write(os.path.join(self._directory, f"{self._name}-{number}"))
        self._checkpoints = [p for p in self._checkpoints if p != path] + [path]
        if self._max_to_keep is not None:
            while len(self._checkpoints) > self._max_to_keep:
                old = self._checkpoints.pop(0)
                for suffix in (".index", _DATA_SUFFIX):
                    if os.path.exists(old + suffix):
                        os.remove(old + suffix)
        _write_state(self._directory, path, self._checkpoints)
        return path

    def restore_or_initialize(self):
        """Restore the latest checkpoint (returning its path), else call ``init_fn`` (returning None)."""
        if self.latest_checkpoint is not None:
            self._checkpoint.restore(self.latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = self._step()  # (the restored step: the next save waits an interval)
            return self.latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None


def list_variables(ckpt_dir_or_file):
    """``[(key, shape)]`` of the values saved in a checkpoint (a directory: its latest), sorted by key."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        path = latest_checkpoint(path)
    return sorted((key, list(value.shape)) for key, value in _read_files(path).items())


def load_variable(ckpt_dir_or_file, name):
    """The numpy value saved under key ``name``."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        path = latest_checkpoint(path)
    saved = _read_files(path)
    if name not in saved:
        raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
    return saved[name]


NAMESPACES = {"train": ["Checkpoint", "CheckpointManager", "latest_checkpoint", "list_variables", "load_variable"]}
TENSOR_METHODS = {}
