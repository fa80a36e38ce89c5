"""tf.distribute in one process (one replica) against real TF 2.21: contexts, run, reduce, dataset
distribution.  Several processes (and Keras fit) are tested in tests/distributed/."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import real, vtf

pytest.importorskip("mpi4py")


def _contexts(tf):
    return (tf.distribute.has_strategy(), tf.distribute.get_replica_context() is not None,
            tf.distribute.in_cross_replica_context())


@pytest.mark.parametrize("name", ["MirroredStrategy", "MultiWorkerMirroredStrategy"])
def test_one_replica_strategy(name):
    def run(tf):
        strategy = getattr(tf.distribute, name)()
        outside = _contexts(tf)
        with strategy.scope():
            inside = _contexts(tf) + (tf.distribute.get_strategy() is strategy,)
            variable = tf.Variable([1.0, 2.0])
        replicated = strategy.run(lambda x: tf.distribute.get_replica_context().all_reduce("SUM", x) * 2,
                                  args=(tf.constant([1.0, 3.0]),))
        in_run = strategy.run(lambda: _contexts(tf))
        mean = strategy.reduce("MEAN", tf.constant([[1.0, 2.0], [3.0, 5.0]]), axis=0)
        total = strategy.reduce(tf.distribute.ReduceOp.SUM, tf.constant(3.0), axis=None)
        batches = tf.data.Dataset.from_tensor_slices(tf.range(6.0)).batch(4)
        shards = [b.numpy().tolist() for b in strategy.experimental_distribute_dataset(batches)]
        local = strategy.experimental_local_results(tf.constant(1.0))
        return (strategy.num_replicas_in_sync, outside, inside, in_run, variable.numpy().tolist(),
                replicated.numpy().tolist(), mean.numpy().tolist(), float(total), shards, len(local),
                repr(tf.distribute.ReduceOp.MEAN))

    assert run(vtf) == run(real)


def test_keras_fit_under_one_replica_strategy_trains_as_without():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((12, 3)).astype(np.float32), rng.standard_normal((12, 1)).astype(np.float32)
    kernel = rng.standard_normal((3, 1)).astype(np.float32)

    def run(tf, strategy):
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            model.set_weights([kernel, np.zeros(1, np.float32)])
            model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        return model.get_weights(), history.history["loss"]

    ours = run(vtf, vtf.distribute.MultiWorkerMirroredStrategy())
    theirs = run(real, real.distribute.get_strategy())
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5)
