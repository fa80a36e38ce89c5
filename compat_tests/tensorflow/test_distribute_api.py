"""tf.distribute's cross-device ops, options, base types, strategy.extended, experimental_set_strategy and the
experimental strategies/communication options in one process (one replica), against real TF 2.21."""

import pytest

from compat_tests.tensorflow.harness import real, vtf

pytest.importorskip("mpi4py")

CROSS_DEVICE_OPS = ["ReductionToOneDevice", "HierarchicalCopyAllReduce", "NcclAllReduce"]


def _numbers(values):
    return [v.numpy().tolist() for v in values]


@pytest.mark.parametrize("name", CROSS_DEVICE_OPS)
def test_cross_device_ops_reduce_on_one_device(name):
    def run(tf):
        ops = getattr(tf.distribute, name)()
        strategy = tf.distribute.MirroredStrategy(cross_device_ops=ops)
        x = tf.constant([1.0, 2.0])
        with strategy.scope():
            variable = tf.Variable(0.0)
        reduced = ops.reduce(tf.distribute.ReduceOp.SUM, x, "/cpu:0")
        mean = ops.reduce("MEAN", tf.constant([3, 4]), variable)
        batch = ops.batch_reduce(tf.distribute.ReduceOp.MEAN, [(x, variable), (x * 2, "/cpu:0")])
        broadcast = ops.broadcast(x, "/cpu:0")
        return (isinstance(ops, tf.distribute.CrossDeviceOps), reduced.numpy().tolist(), repr(mean.dtype),
                mean.numpy().tolist(), _numbers(batch), broadcast.numpy().tolist(), strategy.num_replicas_in_sync)

    assert run(vtf) == run(real)


@pytest.mark.parametrize("name", ["HierarchicalCopyAllReduce", "NcclAllReduce"])
def test_all_reduce_rejects_negative_packs(name):
    messages = []
    for tf in (vtf, real):
        with pytest.raises(ValueError) as info:
            getattr(tf.distribute, name)(num_packs=-1)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def _plain(options):
    return [getattr(field, "value", field) for field in options]  # enums of the two frameworks by value


def test_options_and_replication_mode():
    def run(tf):
        d = tf.distribute
        default = d.InputOptions()
        placed = d.InputOptions(experimental_place_dataset_on_device=True)
        per_replica = d.InputOptions(experimental_fetch_to_device=False,
                                     experimental_replication_mode=d.InputReplicationMode.PER_REPLICA)
        run_options = d.RunOptions(experimental_enable_dynamic_batch_size=False)
        return (repr(default), _plain(placed), _plain(per_replica), repr(run_options), default == d.InputOptions(),
                [m.value for m in d.InputReplicationMode], isinstance(default, tuple))

    assert run(vtf) == run(real)


def test_distributed_dataset_and_iterator_types():
    def run(tf):
        strategy = tf.distribute.MirroredStrategy()
        dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.range(5).batch(2),
                                                           tf.distribute.InputOptions())
        iterator = iter(dataset)
        first = iterator.get_next().numpy().tolist()
        second = next(iterator).numpy().tolist()
        optional = iterator.get_next_as_optional()
        last = optional.get_value().numpy().tolist()
        empty = bool(iterator.get_next_as_optional().has_value())
        with pytest.raises(tf.errors.OutOfRangeError):
            iterator.get_next()
        total = dataset.reduce(tf.constant(0, tf.int64), lambda state, batch: state + tf.reduce_sum(batch))
        return (isinstance(dataset, tf.distribute.DistributedDataset),
                isinstance(iterator, tf.distribute.DistributedIterator), first, second, last, empty,
                int(total), repr(dataset.element_spec), repr(iterator.element_spec),
                isinstance(strategy.run(lambda: tf.constant(1.0)), tf.distribute.DistributedValues))

    assert run(vtf) == run(real)


EXTENDED_ATTRIBUTES = ["parameter_devices", "worker_devices", "experimental_require_static_shapes",
                       "should_checkpoint", "should_save_summary", "experimental_between_graph",
                       "experimental_should_init"]


def _attributes(extended):
    found = []
    for name in EXTENDED_ATTRIBUTES:
        try:
            found.append(tuple(getattr(extended, name)) if "devices" in name else getattr(extended, name))
        except Exception as e:  # the default strategy's extended raises for some, as TF's
            found.append(type(e).__name__)
    return found


@pytest.mark.parametrize("make", [
    lambda tf: tf.distribute.MirroredStrategy(),
    lambda tf: tf.distribute.OneDeviceStrategy("/cpu:0"),
    lambda tf: tf.distribute.MultiWorkerMirroredStrategy(),
    lambda tf: tf.distribute.experimental.CentralStorageStrategy(),
    lambda tf: tf.distribute.get_strategy(),
])
def test_strategy_extended_attributes(make):
    def run(tf):
        extended = make(tf).extended
        return isinstance(extended, tf.distribute.StrategyExtended), _attributes(extended)

    assert run(vtf) == run(real)


def test_strategy_extended_methods():
    def run(tf):
        d = tf.distribute
        strategy = d.MirroredStrategy()
        outside = tf.Variable(1.0)
        with strategy.scope():
            inside = tf.Variable(2.0)
        extended = strategy.extended
        updated = extended.update(inside, lambda var, x: var.assign_add(x), args=(tf.constant(1.5),))
        return (extended.variable_created_in_scope(outside), extended.variable_created_in_scope(inside),
                float(extended.reduce_to(d.ReduceOp.SUM, tf.constant(3.0), inside)),
                _numbers(extended.batch_reduce_to("MEAN", [(tf.constant([1.0, 4.0]), inside)])),
                float(extended.broadcast_to(tf.constant(5.0), inside)), float(updated), float(inside.numpy()),
                extended.value_container(inside) is inside, float(extended.read_var(inside)),
                float(extended.call_for_each_replica(lambda a: a * 2, args=(tf.constant(4.0),))))

    assert run(vtf) == run(real)


def test_experimental_set_strategy():
    def run(tf):
        d = tf.distribute
        strategy = d.MirroredStrategy()
        with strategy.scope():
            with pytest.raises(RuntimeError, match="Must not be called inside"):
                d.experimental_set_strategy(strategy)
        d.experimental_set_strategy(strategy)
        try:
            current = (d.get_strategy() is strategy, d.has_strategy(), d.in_cross_replica_context(),
                       d.get_replica_context() is None)
            other = d.OneDeviceStrategy("/cpu:0")
            d.experimental_set_strategy(other)
            replaced = d.get_strategy() is other
        finally:
            d.experimental_set_strategy(None)
        return current, replaced, d.has_strategy(), d.in_cross_replica_context()

    assert run(vtf) == run(real)


def test_experimental_namespace():
    def run(tf):
        e = tf.distribute.experimental
        hints = e.CollectiveHints(bytes_per_pack=4, timeout_seconds=3)
        options = e.CommunicationOptions(bytes_per_pack=8, implementation=e.CollectiveCommunication.RING)
        context = e.ValueContext(2, 4)
        legacy = e.MultiWorkerMirroredStrategy(e.CollectiveCommunication.RING)
        central = e.CentralStorageStrategy()
        values = tf.distribute.get_strategy().experimental_distribute_values_from_function(
            lambda ctx: (ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync))
        return (e.CollectiveCommunication is e.CommunicationImplementation,
                [m.value for m in e.CollectiveCommunication], hints.bytes_per_pack, hints.timeout_seconds,
                options.bytes_per_pack, options.implementation.value,
                (context.replica_id_in_sync_group, context.num_replicas_in_sync), str(context),
                isinstance(legacy, tf.distribute.MultiWorkerMirroredStrategy),
                legacy.num_replicas_in_sync, isinstance(central, tf.distribute.Strategy), central.num_replicas_in_sync,
                values)

    assert run(vtf) == run(real)


@pytest.mark.parametrize("make", [
    lambda tf: tf.distribute.experimental.CommunicationOptions(bytes_per_pack=-1),
    lambda tf: tf.distribute.experimental.CollectiveHints(bytes_per_pack=-2),
])
def test_communication_options_errors(make):
    messages = []
    for tf in (vtf, real):
        with pytest.raises(ValueError) as info:
            make(tf)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
