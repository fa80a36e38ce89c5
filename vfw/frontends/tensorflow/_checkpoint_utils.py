"""tf.train's checkpoint inspection helpers over vfw's checkpoint files (see ``_checkpoint``):
``load_checkpoint`` (a ``CheckpointReader``), ``get_checkpoint_state`` (the directory's ``checkpoint`` state file as
a ``CheckpointState``), ``checkpoints_iterator``, ``CheckpointOptions`` and ``TrackableView``.

Keys are vfw's (``model/w``: the path of names reaching a variable), where TF's end in ``/.ATTRIBUTES/VARIABLE_VALUE``
and add ``_CHECKPOINTABLE_OBJECT_GRAPH``.
"""

import os
import re
import time

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._checkpoint import (
    Checkpoint,
    _children,
    _is_trackable,
    _is_variable,
    _read_files,
    latest_checkpoint,
)
from vfw.frontends.tensorflow._module import Module


class CheckpointReader:
    """The values saved in one checkpoint: ``tf.train.load_checkpoint``'s result."""

    def __init__(self, path):
        self._values = _read_files(path)

    def get_variable_to_shape_map(self):
        """dict: key -> shape (a list of ints)."""
        return {key: list(value.shape) for key, value in self._values.items()}

    def get_variable_to_dtype_map(self):
        """dict: key -> DType."""
        return {key: _dtypes.as_dtype(value.dtype) for key, value in self._values.items()}

    def has_tensor(self, name):
        """bool: whether ``name`` is a saved key."""
        return name in self._values

    def get_tensor(self, name):
        """The numpy value saved under ``name`` (a numpy scalar for a scalar, as TF); NotFoundError if absent."""
        if name not in self._values:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        value = self._values[name].copy()
        return value[()] if value.ndim == 0 else value


def _resolved(ckpt_dir_or_file):
    """The checkpoint path of a file prefix, or of a directory's latest checkpoint (ValueError when it has none)."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return latest
    if not os.path.isfile(path + ".index"):
        raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                                   f"matching files for {path}")
    return path


def load_checkpoint(ckpt_dir_or_file):
    """A ``CheckpointReader`` of a checkpoint (a directory: its latest).

    Raises
    ------
    ValueError
        For a directory without checkpoints.
    NotFoundError
        For a prefix with no checkpoint files.
    """
    return CheckpointReader(_resolved(ckpt_dir_or_file))


class CheckpointState:
    """The contents of a directory's ``checkpoint`` file (TF's ``CheckpointState`` message)."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(), all_model_checkpoint_timestamps=(),
                 last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __eq__(self, other):
        return type(other) is type(self) and vars(self) == vars(other)

    def __str__(self):
        lines = [f'model_checkpoint_path: "{self.model_checkpoint_path}"']
        lines += [f'all_model_checkpoint_paths: "{p}"' for p in self.all_model_checkpoint_paths]
        lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in self.all_model_checkpoint_timestamps]
        if self.last_preserved_timestamp:
            lines.append(f"last_preserved_timestamp: {self.last_preserved_timestamp!r}")
        return "".join(line + "\n" for line in lines)

    __repr__ = __str__


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The ``CheckpointState`` recorded in ``checkpoint_dir`` (relative paths joined to it), or None.

    Parameters
    ----------
    checkpoint_dir : str
    latest_filename : str, optional
        The state file's name (default ``checkpoint``).
    """
    directory = os.fspath(checkpoint_dir)
    try:
        with open(os.path.join(directory, latest_filename or "checkpoint")) as f:
            text = f.read()
    except OSError:
        return None
    latest = re.search(r'^model_checkpoint_path: "(.*)"$', text, re.M)
    if latest is None:
        return None

    def full(path):
        return path if os.path.isabs(path) else os.path.join(directory, path)

    paths = [full(p) for p in re.findall(r'^all_model_checkpoint_paths: "(.*)"$', text, re.M)]
    stamps = [float(t) for t in re.findall(r"^all_model_checkpoint_timestamps: (\S+)$", text, re.M)]
    preserved = re.search(r"^last_preserved_timestamp: (\S+)$", text, re.M)
    return CheckpointState(full(latest.group(1)), paths, stamps, float(preserved.group(1)) if preserved else 0.0)


def _wait_for_new_checkpoint(checkpoint_dir, last_checkpoint, seconds_to_sleep, timeout):
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            return path
        if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yield each new latest checkpoint of ``checkpoint_dir`` as it appears (polling every second).

    Parameters
    ----------
    checkpoint_dir : str
    min_interval_secs : float
        The least time between two yields.
    timeout : float, optional
        Seconds to wait for a new checkpoint (None: forever).
    timeout_fn : callable, optional
        Called when the wait times out: the iteration ends when it returns True, else waits again.  Without it the
        iteration ends at the first timeout.
    """
    checkpoint_path = None
    while True:
        new_path = _wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, 1, timeout)
        if new_path is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        start = time.time()
        checkpoint_path = new_path
        yield checkpoint_path
        remaining = start + min_interval_secs - time.time()
        if remaining > 0:
            time.sleep(remaining)


class CheckpointOptions:
    """Options of ``Checkpoint.save``/``write``/``restore``/``read`` (kept; vfw saves synchronously on the host).

    Parameters
    ----------
    experimental_io_device : str, optional
    experimental_enable_async_checkpoint, enable_async : bool
    experimental_write_callbacks : list of callables, optional
    experimental_sharding_callback : optional
    experimental_skip_slot_variables : bool
    """

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False, experimental_sharding_callback=None,
                 experimental_skip_slot_variables=False):
        self.experimental_io_device = experimental_io_device
        self.enable_async = experimental_enable_async_checkpoint or enable_async
        self.experimental_enable_async_checkpoint = self.enable_async
        self.experimental_write_callbacks = experimental_write_callbacks
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = experimental_skip_slot_variables


class TrackableView:
    """The graph of trackable objects reachable from ``root`` (what a checkpoint of it saves).

    Children are named as checkpoints name them: ``tf.Module`` attributes in the order they were set, list positions,
    dict keys, a checkpoint's objects; Keras objects' children are their ``variables/<i>`` (vfw's checkpoint keys,
    not TF's object graph).
    """

    def __init__(self, root):
        self._root = root

    @property
    def root(self):
        """The object the view starts from."""
        return self._root

    @classmethod
    def children(cls, obj, save_type=None, **kwargs):
        """dict: name -> the trackable children of ``obj``."""
        if _is_variable(obj):
            return {}
        if isinstance(obj, Module):
            ignored = obj._TF_MODULE_IGNORED_PROPERTIES
            return {name: value for name, value in vars(obj).items() if name not in ignored and _is_trackable(value)}
        if isinstance(obj, dict):
            return {str(key): value for key, value in obj.items() if _is_trackable(value)}
        if isinstance(obj, Checkpoint):
            return dict(obj._tracked)
        return {name: value for name, value in _children(obj) if _is_trackable(value)}

    def descendants(self):
        """list: ``root`` and every object reachable from it, once each, breadth first."""
        order, seen, index = [self._root], {id(self._root)}, 0
        while index < len(order):
            for child in self.children(order[index]).values():
                if id(child) not in seen:
                    seen.add(id(child))
                    order.append(child)
            index += 1
        return order


NAMESPACES = {"train": ["CheckpointOptions", "TrackableView", "checkpoints_iterator", "get_checkpoint_state",
                        "load_checkpoint"]}
TENSOR_METHODS = {}
