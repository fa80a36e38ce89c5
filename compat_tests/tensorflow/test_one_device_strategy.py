"""tf.distribute.OneDeviceStrategy against real TF 2.21: contexts, run, reduce, dataset distribution, device
validation, and Keras fit under its scope."""

import numpy as np

from compat_tests.tensorflow.harness import check, real, vtf


def _contexts(tf):
    return (tf.distribute.has_strategy(), tf.distribute.get_replica_context() is not None,
            tf.distribute.in_cross_replica_context())


def test_one_device_strategy():
    def run(tf):
        strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
        outside = _contexts(tf)
        with strategy.scope():
            inside = _contexts(tf) + (tf.distribute.get_strategy() is strategy,)
            variable = tf.Variable([1.0, 2.0])
        doubled = strategy.run(lambda x: tf.distribute.get_replica_context().all_reduce("SUM", x) * 2,
                               args=(tf.constant([1.0, 3.0]),))
        in_run = strategy.run(lambda: _contexts(tf))
        mean = strategy.reduce("MEAN", tf.constant([[1.0, 2.0], [3.0, 5.0]]), axis=0)
        total = strategy.reduce(tf.distribute.ReduceOp.SUM, tf.constant(3.0), axis=None)
        batches = tf.data.Dataset.from_tensor_slices(tf.range(6.0)).batch(4)
        shards = [b.numpy().tolist() for b in strategy.experimental_distribute_dataset(batches)]
        local = strategy.experimental_local_results(tf.constant(1.0))
        return (strategy.num_replicas_in_sync, outside, inside, in_run, variable.numpy().tolist(),
                doubled.numpy().tolist(), mean.numpy().tolist(), float(total), shards, len(local))

    assert run(vtf) == run(real)


def test_device_argument():
    check(lambda tf: tf.distribute.OneDeviceStrategy("bogus"))  # ValueError from the device parser
    check(lambda tf: tf.distribute.OneDeviceStrategy())  # TypeError: device is required
    check(lambda tf: tf.distribute.OneDeviceStrategy("/job:localhost/device:CPU:0").num_replicas_in_sync)


def test_keras_fit_under_scope():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((12, 3)).astype(np.float32), rng.standard_normal((12, 1)).astype(np.float32)
    kernel = rng.standard_normal((3, 1)).astype(np.float32)

    def run(tf):
        strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            model.set_weights([kernel, np.zeros(1, np.float32)])
            model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        return model.get_weights(), history.history["loss"]

    ours, theirs = run(vtf), run(real)
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5)
