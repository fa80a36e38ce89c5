"""Realistic tf.distribute usage in one process (one replica) against real TF 2.21: Keras ``fit`` on distributed
datasets, ``compute_average_loss`` in the strategy's contexts, and errors for misuse."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import real, vtf

pytest.importorskip("mpi4py")


def _fit_distributed_datasets(tf):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 3)).astype(np.float32)
    y = (x.sum(1, keepdims=True) > 0).astype(np.float32)
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4, kernel_initializer="ones"),
                                     tf.keras.layers.Dense(1, activation="sigmoid", kernel_initializer="ones")])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="binary_crossentropy", metrics=["accuracy"])
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)

    def dataset_fn(context):
        batch = context.get_per_replica_batch_size(8)
        return tf.data.Dataset.from_tensor_slices((x, y)).shard(context.num_input_pipelines,
                                                                 context.input_pipeline_id).batch(batch)

    distributed = strategy.experimental_distribute_dataset(dataset)
    from_function = strategy.distribute_datasets_from_function(dataset_fn)
    losses = [model.fit(distributed, epochs=2, verbose=0).history["loss"],
              model.fit(from_function, epochs=1, verbose=0).history["loss"],
              model.fit(strategy.experimental_distribute_dataset(dataset.repeat()), epochs=1, steps_per_epoch=3,
                        verbose=0).history["loss"]]
    evaluated = model.evaluate(distributed, verbose=0)
    try:  # Keras weights a dataset by mapping it: distributed ones cannot be
        model.fit(from_function, class_weight={0: 1.0, 1: 2.0}, verbose=0)
        class_weight_error = None
    except AttributeError as e:
        class_weight_error = str(e)
    return (losses, evaluated, model.get_weights(), isinstance(from_function, tf.distribute.DistributedDataset),
            type(from_function).__name__, from_function.cardinality, distributed.cardinality, class_weight_error)


def test_keras_fit_on_distributed_datasets():
    ours, theirs = _fit_distributed_datasets(vtf), _fit_distributed_datasets(real)
    np.testing.assert_allclose(np.concatenate(ours[0]), np.concatenate(theirs[0]), rtol=1e-5)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5)
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert ours[3:] == theirs[3:]


def _outcome(fn):
    try:
        return fn().numpy().tolist()
    except Exception as e:  # noqa: BLE001 - the outcome compared is the exception's type and message
        return type(e).__name__, str(e)


def test_compute_average_loss_in_strategy_contexts():
    def run(tf):
        strategy = tf.distribute.MirroredStrategy()
        losses = tf.constant([1.0, 2.0, 4.0])
        outcomes = [_outcome(lambda: strategy.run(lambda: tf.nn.compute_average_loss(losses))),
                    _outcome(lambda: strategy.run(lambda: tf.nn.scale_regularization_loss(losses))),
                    _outcome(lambda: tf.nn.compute_average_loss(losses, global_batch_size=0)),
                    _outcome(lambda: tf.nn.compute_average_loss(losses, global_batch_size=-2))]
        with strategy.scope():  # cross-replica context: TF refuses to guess the global batch
            outcomes += [_outcome(lambda: tf.nn.compute_average_loss(losses)),
                         _outcome(lambda: tf.nn.scale_regularization_loss(losses)),
                         _outcome(lambda: tf.nn.compute_average_loss(losses, global_batch_size=8))]
        return outcomes

    assert run(vtf) == run(real)


def test_misuse_errors_and_replica_context_api():
    def run(tf):
        strategy = tf.distribute.MirroredStrategy()
        x = tf.constant([1.0, 2.0])

        def mixed():
            with strategy.scope():
                with tf.distribute.MultiWorkerMirroredStrategy().scope():
                    pass

        def merged():
            context = tf.distribute.get_replica_context()
            return context.merge_call(lambda s, a, b=0: (s is strategy, tf.distribute.in_cross_replica_context(),
                                                         a, b), args=(1,), kwargs={"b": 2})

        with pytest.raises(RuntimeError) as info:
            mixed()
        outcomes = [str(info.value).split(":")[0],  # the strategies' reprs differ
                    _outcome(lambda: strategy.reduce("MAX", x, axis=None)),
                    _outcome(lambda: strategy.run(lambda: strategy.reduce("SUM", x, axis=None))),
                    _outcome(lambda: strategy.run(lambda: strategy.gather(x, axis=0))),
                    _outcome(lambda: strategy.run(lambda: strategy.scope().__enter__())),
                    _outcome(lambda: strategy.run(lambda: strategy.run(lambda: x))),
                    _outcome(lambda: tf.distribute.InputContext(1, 0, 3).get_per_replica_batch_size(4))]
        nested = strategy.reduce("SUM", {"a": x, "b": (x * 2, x * 3)}, axis=None)
        gathered = strategy.gather({"a": x}, axis=0)
        all_gathered = strategy.run(lambda: tf.distribute.get_replica_context().all_gather(x, axis=0))
        return (outcomes, strategy.run(merged),
                tf.nest.map_structure(lambda t: t.numpy().tolist(), (nested, gathered, all_gathered)),
                tf.distribute.get_replica_context().replica_id_in_sync_group,
                tf.distribute.get_replica_context().devices)

    assert run(vtf) == run(real)


def test_cluster_resolver(monkeypatch):
    def run(tf):
        default = tf.distribute.MultiWorkerMirroredStrategy().cluster_resolver
        outcome = [type(default).__name__, default.task_type, default.task_id, default.rpc_layer,
                   default.cluster_spec().as_dict(), default.master(), dict(default.num_accelerators()),
                   tf.distribute.MirroredStrategy().cluster_resolver]
        given = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        outcome.append(tf.distribute.MultiWorkerMirroredStrategy(given).cluster_resolver is given)
        monkeypatch.setenv("TF_CONFIG", '{"cluster": {"worker": ["localhost:1234", "localhost:1235"]}, '
                                        '"task": {"type": "worker", "index": 1}}')
        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        explicit = tf.distribute.cluster_resolver.TFConfigClusterResolver(task_type="chief", task_id=0)
        outcome += [resolver.task_type, resolver.task_id, repr(resolver.cluster_spec()), resolver.master(),
                    resolver.master("worker", 0), resolver.master(rpc_layer="grpc"), explicit.task_type,
                    explicit.task_id, isinstance(resolver, tf.distribute.cluster_resolver.ClusterResolver)]
        monkeypatch.delenv("TF_CONFIG")
        return outcome

    assert run(vtf) == run(real)


def test_variable_synchronization_under_strategies():
    def run(tf):
        outcome = []
        for make in (tf.distribute.MirroredStrategy, tf.distribute.MultiWorkerMirroredStrategy,
                     lambda: tf.distribute.OneDeviceStrategy("/cpu:0")):
            with make().scope():  # mirrored strategies resolve AUTO to ON_WRITE; others keep it
                variable = tf.Variable(1.0)
                on_read = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ,
                                      aggregation=tf.VariableAggregation.SUM)
            outcome.append((variable.synchronization.name, on_read.synchronization.name, on_read.trainable))
        return outcome

    assert run(vtf) == run(real)
