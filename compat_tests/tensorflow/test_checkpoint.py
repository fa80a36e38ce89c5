"""tf.train.Checkpoint / CheckpointManager / latest_checkpoint against real TF: round trips of tf.Module, Keras
model and optimizer variables (optimizer slots restored when they are made), save counters, file names,
max_to_keep, the state file, load-status assertions and errors.  vfw's files are its own format: each library
reads only what it wrote."""

import os

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check


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


def _module(tf, value):
    module = tf.Module()
    module.w = tf.Variable(tf.fill([2, 3], value))
    module.parts = [tf.Variable(value * 2), {"b": tf.Variable([value, 1.0])}]
    module.inner = tf.Module()
    module.inner.count = tf.Variable(3, dtype=tf.int64)
    return module


def test_module_round_trip_and_counter(fresh_dir):
    def run(tf):
        directory = fresh_dir()
        module = _module(tf, 1.5)
        checkpoint = tf.train.Checkpoint(model=module)
        first = checkpoint.save(os.path.join(directory, "ckpt"))
        module.w.assign_add(tf.ones([2, 3]))
        second = checkpoint.save(os.path.join(directory, "ckpt"))
        other = _module(tf, 0.0)
        status = tf.train.Checkpoint(model=other).restore(first)
        status.assert_consumed()
        values = [other.w, other.parts[0], other.parts[1]["b"], other.inner.count]
        tf.train.Checkpoint(model=other).read(second).assert_existing_objects_matched()
        with open(os.path.join(directory, "checkpoint")) as f:
            state = [line for line in f.read().splitlines() if "timestamp" not in line]
        return (values + [other.w, os.path.basename(first), os.path.basename(second), checkpoint.save_counter,
                          os.path.basename(tf.train.latest_checkpoint(directory)), state,
                          sorted(os.listdir(directory))])
    check(run)


def test_manager_numbering_and_max_to_keep(fresh_dir):
    def run(tf):
        directory = fresh_dir()
        checkpoint = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]))
        manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2, checkpoint_name="model")
        names = [manager.latest_checkpoint, manager.checkpoints]
        names += [manager.save(), manager.save(checkpoint_number=10), manager.save()]
        checkpoint.v.assign([5.0, 6.0])
        again = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2, checkpoint_name="model")
        restored = again.restore_or_initialize()
        names = [os.path.relpath(n, directory) if isinstance(n, str) else n for n in names]
        return (names + [[os.path.basename(p) for p in again.checkpoints], os.path.basename(restored),
                         checkpoint.v, checkpoint.save_counter, sorted(os.listdir(directory))])
    check(run)


def test_keras_optimizer_slots_restore_when_made(fresh_dir):
    def run(tf):
        directory = fresh_dir()
        x, y = np.linspace(-1, 1, 12, dtype=np.float32).reshape(6, 2), np.ones((6, 1), np.float32)

        def make(seed):
            tf.keras.utils.set_random_seed(seed)
            model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3), tf.keras.layers.Dense(1)])
            return model, tf.keras.optimizers.Adam(0.1)

        def step(model, optimizer):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        model, optimizer = make(1)
        step(model, optimizer)
        path = tf.train.Checkpoint(model=model, optimizer=optimizer).save(os.path.join(directory, "ckpt"))
        want = [step(model, optimizer) for _ in range(3)]
        model2, optimizer2 = make(2)
        status = tf.train.Checkpoint(model=model2, optimizer=optimizer2).restore(path)
        before = [optimizer2.iterations.numpy(), len(optimizer2.variables)]
        got = [step(model2, optimizer2) for _ in range(3)]
        status.assert_consumed()
        return before + [got, want, model2.layers[0].kernel.numpy(), optimizer2.variables[-1].numpy()]
    check(run)


def test_status_assertions(fresh_dir):
    def run(tf):
        directory = fresh_dir()
        path = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).write(os.path.join(directory, "one"))
        results = []
        for status in (tf.train.Checkpoint(w=tf.Variable([0.0, 0.0])).restore(path),
                       tf.train.Checkpoint(v=tf.Variable([0.0, 0.0])).restore(None),
                       tf.train.Checkpoint(v=tf.Variable([0.0, 0.0]), w=tf.Variable(1.0)).restore(path)):
            for method in ("assert_existing_objects_matched", "assert_nontrivial_match", "assert_consumed"):
                try:
                    getattr(status, method)()
                    results.append("ok")
                except AssertionError:
                    results.append("AssertionError")
        results.append(type(tf.train.Checkpoint(v=tf.Variable([0.0, 0.0])).restore(path).expect_partial()).__name__)
        return results
    check(run)


@pytest.mark.parametrize("case", ["missing", "shape", "untrackable", "no_directory"])
def test_errors(fresh_dir, case):
    def run(tf):
        directory = fresh_dir()
        if case == "missing":
            return tf.train.Checkpoint(v=tf.Variable(1.0)).restore(os.path.join(directory, "nothing"))
        if case == "shape":
            path = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).write(os.path.join(directory, "one"))
            return tf.train.Checkpoint(v=tf.Variable([1.0, 2.0, 3.0])).restore(path)
        if case == "untrackable":
            return tf.train.Checkpoint(a=1)
        return tf.train.latest_checkpoint(os.path.join(directory, "none"))
    check(run)
