"""tf.train.load_checkpoint (CheckpointReader), get_checkpoint_state, checkpoints_iterator and CheckpointOptions
against real TF, each library on checkpoints it wrote itself.  Keys are compared without TF's
``/.ATTRIBUTES/VARIABLE_VALUE`` suffix and ``_CHECKPOINTABLE_OBJECT_GRAPH`` entry (vfw's keys are the bare paths);
paths are compared relative to each library's own directory."""

import os

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


class _Dirs:
    """A fresh directory per library call (both libraries write the same names)."""

    def __init__(self, tmp_path):
        self.tmp_path, self.count = tmp_path, 0

    def __call__(self):
        self.count += 1
        path = self.tmp_path / f"run{self.count}"
        path.mkdir()
        return str(path)


@pytest.fixture
def fresh_dir(tmp_path):
    return _Dirs(tmp_path)


def _keyed(mapping):
    return {k.removesuffix(_SUFFIX): v for k, v in mapping.items() if k != "_CHECKPOINTABLE_OBJECT_GRAPH"}


def _saved(tf, directory, saves=2):
    module = tf.Module()
    module.w = tf.Variable([[1.0, 2.0, 3.0]])
    module.count = tf.Variable(3, dtype=tf.int64)
    module.parts = [tf.Variable(np.float64(0.5)), {"b": tf.Variable([True, False])}]
    ckpt = tf.train.Checkpoint(model=module)
    paths = [ckpt.save(os.path.join(directory, "ckpt")) for _ in range(saves)]
    module.w.assign([[4.0, 5.0, 6.0]])
    return ckpt, paths


def test_reader_maps_and_values(fresh_dir):
    def fn(tf):
        directory = fresh_dir()
        _, paths = _saved(tf, directory)
        out = []
        for source in (directory, paths[0]):
            reader = tf.train.load_checkpoint(source)
            key = "model/w" + (_SUFFIX if tf.__name__ == "tensorflow" else "")
            count_key = "model/count" + (_SUFFIX if tf.__name__ == "tensorflow" else "")
            count = reader.get_tensor(count_key)
            out.append((_keyed(reader.get_variable_to_shape_map()), _keyed(reader.get_variable_to_dtype_map()),
                        reader.get_tensor(key), reader.has_tensor(key), reader.has_tensor("model"),
                        type(count).__name__, int(count)))
        return out

    check(fn)


@pytest.mark.parametrize("case", ["missing_key", "empty_dir", "missing_prefix"])
def test_reader_errors(fresh_dir, case):
    def fn(tf):
        directory = fresh_dir()
        if case == "missing_key":
            _saved(tf, directory)
            tf.train.load_checkpoint(directory).get_tensor("nope")
        elif case == "empty_dir":
            tf.train.load_checkpoint(directory)
        else:
            tf.train.load_checkpoint(os.path.join(directory, "ckpt-9"))

    check(fn)


def test_list_variables_and_load_variable_agree_with_reader(fresh_dir):
    def fn(tf):
        directory = fresh_dir()
        _saved(tf, directory)
        reader = tf.train.load_checkpoint(directory)
        listed = {k.removesuffix(_SUFFIX): shape for k, shape in tf.train.list_variables(directory)
                  if k != "_CHECKPOINTABLE_OBJECT_GRAPH"}
        return listed == _keyed(reader.get_variable_to_shape_map()), listed

    check(fn)


def _state_of(tf, directory, latest_filename=None):
    state = tf.train.get_checkpoint_state(directory, latest_filename)
    if state is None:
        return None
    return (os.path.relpath(state.model_checkpoint_path, directory),
            [os.path.relpath(p, directory) for p in state.all_model_checkpoint_paths],
            len(state.all_model_checkpoint_timestamps), str(state).count("\n"))


def test_checkpoint_state(fresh_dir):
    def fn(tf):
        directory = fresh_dir()
        before = _state_of(tf, directory)
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), directory, max_to_keep=2)
        for _ in range(3):
            manager.save()
        state = tf.train.get_checkpoint_state(directory)
        return (before, _state_of(tf, directory), _state_of(tf, directory, "other"),
                state.model_checkpoint_path.startswith(directory), str(state).splitlines()[:3] == [
                    f'model_checkpoint_path: "{os.path.join(directory, "ckpt-3")}"',
                    f'all_model_checkpoint_paths: "{os.path.join(directory, "ckpt-2")}"',
                    f'all_model_checkpoint_paths: "{os.path.join(directory, "ckpt-3")}"'])

    check(fn)


def test_checkpoints_iterator(fresh_dir):
    def fn(tf):
        directory = fresh_dir()
        empty = list(tf.train.checkpoints_iterator(directory, timeout=0))
        _saved(tf, directory, saves=2)
        found = [os.path.relpath(p, directory) for p in tf.train.checkpoints_iterator(directory, timeout=0)]
        calls = []
        again = [os.path.relpath(p, directory) for p in
                 tf.train.checkpoints_iterator(directory, timeout=0, timeout_fn=lambda: calls.append(1) or True)]
        return empty, found, again, calls

    check(fn)


def test_checkpoint_options(fresh_dir):
    def fn(tf):
        default = tf.train.CheckpointOptions()
        given = tf.train.CheckpointOptions(experimental_io_device="/job:localhost", enable_async=False,
                                           experimental_skip_slot_variables=True)
        ckpt = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]))
        path = ckpt.save(os.path.join(fresh_dir(), "ckpt"), options=given)
        ckpt.v.assign([0.0, 0.0])
        ckpt.restore(path, options=given)
        return ([getattr(default, name) for name in ("experimental_io_device", "enable_async",
                                                     "experimental_enable_async_checkpoint",
                                                     "experimental_write_callbacks", "experimental_sharding_callback",
                                                     "experimental_skip_slot_variables")],
                given.experimental_io_device, given.experimental_skip_slot_variables, ckpt.v.numpy())

    check(fn)


def _described(tf, obj):
    if isinstance(obj, tf.Variable):
        return ("variable", obj.numpy())
    if isinstance(obj, tf.Module):
        return ("module", sorted(vars(obj).get("tag", "")))
    if isinstance(obj, tf.train.Checkpoint):
        return ("checkpoint",)
    return ("container", len(obj))


def test_trackable_view():
    def fn(tf):
        root = tf.Module()
        root.w = tf.Variable(1.0)
        root.sub = tf.Module()
        root.sub.tag = "sub"
        root.sub.v = tf.Variable(2.0)
        root.a_list = [tf.Variable(3.0), root.w]
        root.table = {"z": tf.Variable(4.0), "a": root.sub}
        view = tf.train.TrackableView(root)
        children = view.children(root)
        ckpt = tf.train.Checkpoint(model=root, extra=tf.Variable(5.0))
        return (list(children), [_described(tf, c) for c in children.values()], view.root is root,
                [_described(tf, d) for d in view.descendants()],
                list(tf.train.TrackableView.children(root.sub)), list(tf.train.TrackableView.children(root.table)),
                [_described(tf, d) for d in tf.train.TrackableView(ckpt).descendants()])

    check(fn)
