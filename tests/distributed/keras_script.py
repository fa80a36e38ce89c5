"""Keras ``fit`` under MultiWorkerMirroredStrategy (run by test_keras_fit.py); also checks strategy.run,
reduce and experimental_distribute_dataset against numpy.  Rank 0 saves the trained weights to ``argv[1]``;
ModelCheckpoint and BackupAndRestore write beside it (the chief only: every process writing one HDF5 file fails).
``argv[4] == "loop"``: TF's custom training loop (a tf.function reading the distributed dataset) instead of fit.

Every process builds the MLP of ``ddp_script`` (rank 0's weights; others start elsewhere: the strategy
must broadcast them), and ``fit`` with a global batch of ``size * B`` (each replica gets B rows).
"""

import os
import sys

import numpy as np
import vfw.tensorflow as tf

from tests.distributed.ddp_script import EPOCHS, LR, MOMENTUM, dataset, initial_weights

keras = tf.keras


def check_strategy_api(strategy, rank, size):
    assert tf.distribute.has_strategy() and tf.distribute.in_cross_replica_context()
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, tf.constant([rank + 1.0, 1.0]), axis=None)
    np.testing.assert_allclose(total.numpy(), [size * (size + 1) / 2, size])
    mean = strategy.reduce("MEAN", tf.constant([float(rank)] * (rank + 1)), axis=0)  # rows of unequal counts
    np.testing.assert_allclose(mean.numpy(), sum(r * (r + 1) for r in range(size)) / sum(range(1, size + 1)))

    def replica_fn(x):
        context = tf.distribute.get_replica_context()
        return context.all_reduce(tf.distribute.ReduceOp.MEAN, x * tf.cast(context.replica_id_in_sync_group,
                                                                             tf.float32))

    result = strategy.run(replica_fn, args=(tf.constant([2.0, 4.0]),))
    np.testing.assert_allclose(result.numpy(), np.array([2.0, 4.0]) * (size - 1) / 2)
    rows = tf.data.Dataset.from_tensor_slices(np.arange(4 * size, dtype=np.float32)).batch(2 * size)
    shards = [b.numpy().tolist() for b in strategy.experimental_distribute_dataset(rows)]
    assert shards == [[2.0 * rank + 2 * size * i, 2.0 * rank + 1 + 2 * size * i] for i in range(2)], shards
    gathered = strategy.gather(tf.constant([[float(rank)] * 2]), axis=0)
    np.testing.assert_array_equal(gathered.numpy(), [[float(r)] * 2 for r in range(size)])
    contexts = strategy.distribute_datasets_from_function(
        lambda c: (c.num_input_pipelines, c.input_pipeline_id, c.get_per_replica_batch_size(4 * size)))
    assert contexts == (size, rank, 4), contexts


def train_custom_loop(strategy, model, data, target, batch, steps):
    """TF's multi-worker custom training loop: ``train_step(iterator)`` a tf.function reading the distributed
    dataset (``next(iterator)``) and running ``strategy.run``; the losses scaled by the global batch."""
    global_batch = batch * strategy.num_replicas_in_sync
    with strategy.scope():
        optimizer = keras.optimizers.SGD(LR, momentum=MOMENTUM)
    rows = tf.data.Dataset.from_tensor_slices((data, target)).batch(global_batch)
    distributed = strategy.experimental_distribute_dataset(rows)

    @tf.function
    def train_step(iterator):
        def step_fn(inputs):
            x, y = inputs
            with tf.GradientTape() as tape:
                per_example = tf.reduce_mean(tf.square(model(x, training=True) - y), axis=-1)
                loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        return strategy.reduce("SUM", strategy.run(step_fn, args=(next(iterator),)), axis=None)

    for _ in range(EPOCHS):
        iterator = iter(distributed)
        for _ in range(steps):
            train_step(iterator)
        try:  # every replica's shard is used up together
            train_step(iterator)
            raise AssertionError("a step past the dataset's end ran")
        except tf.errors.OutOfRangeError:
            pass


def main(out_path, batch, steps, mode="fit"):
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    size = strategy.num_replicas_in_sync
    rank = int(strategy.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group))
    data, target = dataset(batch * size * steps)
    with strategy.scope():
        check_strategy_api(strategy, rank, size)
        model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
        # fit must broadcast rank 0's weights; a custom loop relies on the same weights everywhere (as TF's)
        weights = initial_weights(1 if mode == "loop" else 1 + rank)
        model.set_weights([weights["0.weight"].T, weights["0.bias"], weights["2.weight"].T, weights["2.bias"]])
        model.compile(optimizer=keras.optimizers.SGD(LR, momentum=MOMENTUM), loss="mse")
    assert model.distribute_strategy is strategy
    if mode == "loop":
        train_custom_loop(strategy, model, data, target, batch, steps)
        save_weights(model, rank, out_path)
        return
    folder = os.path.dirname(os.path.abspath(out_path))
    checkpoint = os.path.join(folder, "last.weights.h5")
    callbacks = [keras.callbacks.ModelCheckpoint(checkpoint, save_weights_only=True),
                 keras.callbacks.BackupAndRestore(os.path.join(folder, "backup"), delete_checkpoint=False)]
    model.fit(data, target, batch_size=batch * size, epochs=EPOCHS, shuffle=False, verbose=0, callbacks=callbacks)
    strategy.reduce("SUM", tf.constant(0.0), axis=None)  # every process past fit: the files are complete
    if rank == 0:
        saved = keras.models.clone_model(model)
        saved.load_weights(checkpoint)
        for written, trained in zip(saved.get_weights(), model.get_weights()):
            np.testing.assert_array_equal(written, trained)
        assert os.path.exists(os.path.join(folder, "backup", "latest.weights.h5"))
    save_weights(model, rank, out_path)


def save_weights(model, rank, out_path):
    if rank == 0:
        kernel0, bias0, kernel2, bias2 = model.get_weights()
        np.savez(out_path, **{"0.weight": kernel0.T, "0.bias": bias0, "2.weight": kernel2.T, "2.bias": bias2})
    print(f"rank {rank} ok")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:])
