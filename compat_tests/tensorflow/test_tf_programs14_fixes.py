"""Fixes found running round 14 of the TF/Keras programs (compat_tests/programs/tf_more14) under vfw, against real
TF 2.21: ``tf.raw_ops`` (the most used raw ops, keyword arguments only, under TF's argument names, converting their
inputs as TF's generated wrappers do); ``tf.train.CheckpointManager``'s ``checkpoint_interval``; optimizer slots
restored from a checkpoint when a tf.function train step makes them (set once, not re-assigned at every call);
tf.data iterators tracked by tf.train.Checkpoint (their position saved and restored); an
unused ``tf.gather`` with out-of-range constant indices in a tf.function pruned as TF prunes it (the tf.function
guide's example); tf.saved_model.save of functions gathering at computed indices (vfw's run-time range checks left
out of the saved graph), and string results of loaded functions as bytes."""

import inspect
import os
import tempfile

import numpy as np
import pytest

from compat_tests.tensorflow.harness import LIBS, check, check_grad

real_tf = pytest.importorskip("tensorflow")

_RNG = np.random.default_rng(14)
_A = _RNG.normal(size=(3, 4)).astype(np.float32)
_B = _RNG.normal(size=(4, 2)).astype(np.float32)
_P = np.abs(_A) + 0.5
_I = np.array([[3, -7, 0, 5], [9, 2, -4, 1]], np.int32)

# (raw op, keyword arguments): numpy arrays become constants of each library
_CASES = [
    ("Add", dict(x=_A, y=_A[0])), ("AddV2", dict(x=_A, y=1.5)), ("Sub", dict(x=_A, y=_A)),
    ("Mul", dict(x=_I, y=3)), ("RealDiv", dict(x=_A, y=_P)), ("Div", dict(x=_I, y=np.int32(2))),
    ("Div", dict(x=_A, y=_P)), ("DivNoNan", dict(x=_A, y=np.zeros_like(_A))), ("FloorDiv", dict(x=_I, y=3)),
    ("FloorMod", dict(x=_I, y=3)), ("Maximum", dict(x=_A, y=0.0)), ("Minimum", dict(x=_I, y=2)),
    ("Pow", dict(x=_P, y=1.5)), ("SquaredDifference", dict(x=_A, y=_P)), ("Atan2", dict(y=_A, x=_P)),
    ("Xdivy", dict(x=_A, y=_P)), ("Xlog1py", dict(x=_A, y=_P)), ("Equal", dict(x=_I, y=2)),
    ("NotEqual", dict(x=_I, y=2)), ("Less", dict(x=_A, y=0.0)), ("Greater", dict(x=_A, y=0.0)),
    ("LessEqual", dict(x=_I, y=1)), ("GreaterEqual", dict(x=_I, y=1)),
    ("LogicalAnd", dict(x=_A > 0, y=_P > 1)), ("LogicalOr", dict(x=_A > 0, y=_P > 1)),
    ("LogicalNot", dict(x=_A > 0)),
    *[(name, dict(x=_A)) for name in ("Neg", "Abs", "Square", "Exp", "Expm1", "Tanh", "Sigmoid", "Sin", "Cos",
                                      "Tan", "Floor", "Ceil", "Round", "Rint", "Sign", "Erf", "IsNan", "IsFinite",
                                      "IsInf", "ZerosLike", "OnesLike")],
    *[(name, dict(x=_P)) for name in ("Reciprocal", "Sqrt", "Rsqrt", "Log", "Log1p")],
    ("L2Loss", dict(t=_A)), ("Identity", dict(input=_A)), ("Snapshot", dict(input=_I)),
    ("StopGradient", dict(input=_A)), ("IdentityN", dict(input=[_A, _I])), ("AddN", dict(inputs=[_A, _A, _P])),
    *[(name, dict(features=_A)) for name in ("Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign", "LeakyRelu")],
    ("LeakyRelu", dict(features=_A, alpha=0.3)), ("Softmax", dict(logits=_A)), ("LogSoftmax", dict(logits=_A)),
    ("BiasAdd", dict(value=_A, bias=_A[0])),
    ("MatMul", dict(a=_A, b=_B)), ("MatMul", dict(a=_B, b=_A, transpose_a=True, transpose_b=True)),
    ("BatchMatMulV2", dict(x=np.stack([_A, _A]), y=_B)), ("BatchMatMulV2", dict(x=_A, y=_A, adj_y=True)),
    ("Einsum", dict(inputs=[_A, _B], equation="ij,jk->ik")),
    ("Sum", dict(input=_A, axis=1)), ("Sum", dict(input=_I, axis=[0, 1], keep_dims=True)),
    ("Mean", dict(input=_A, axis=0, keep_dims=True)), ("Mean", dict(input=_I, axis=1)),
    ("Max", dict(input=_A, axis=-1)), ("Min", dict(input=_I, axis=0)), ("Prod", dict(input=_P, axis=1)),
    ("All", dict(input=_A > 0, axis=1)), ("Any", dict(input=_A > 0, axis=0, keep_dims=True)),
    ("ArgMax", dict(input=_A, dimension=1)), ("ArgMin", dict(input=_A, dimension=0, output_type=np.int32)),
    ("Cumsum", dict(x=_A, axis=1, exclusive=True)), ("Cumprod", dict(x=_P, axis=0, reverse=True)),
    ("Reshape", dict(tensor=_A, shape=[2, -1])), ("Transpose", dict(x=_A, perm=[1, 0])),
    ("ConcatV2", dict(values=[_A, _P], axis=0)), ("Pack", dict(values=[_A, _P], axis=1)),
    ("Unpack", dict(value=_A, num=4, axis=1)), ("ExpandDims", dict(input=_A, axis=-1)),
    ("Squeeze", dict(input=_A[:1])), ("Squeeze", dict(input=_A[:1, None], axis=[1])),
    ("Tile", dict(input=_I, multiples=[2, 1])), ("BroadcastTo", dict(input=_A[0], shape=[2, 4])),
    ("ReverseV2", dict(tensor=_A, axis=[1])), ("Split", dict(axis=1, value=_A, num_split=2)),
    ("SplitV", dict(value=_A, size_splits=[1, 3], axis=1, num_split=2)),
    ("Slice", dict(input=_A, begin=[1, 1], size=[2, -1])), ("Pad", dict(input=_A, paddings=[[1, 0], [0, 2]])),
    ("Shape", dict(input=_A)), ("Shape", dict(input=_A, out_type=np.int64)), ("ShapeN", dict(input=[_A, _B])),
    ("Size", dict(input=_A)), ("Rank", dict(input=_A)),
    ("Cast", dict(x=_A, DstT=np.int32)), ("Fill", dict(dims=[2, 3], value=1.5)),
    ("Range", dict(start=1, limit=9, delta=3)), ("Range", dict(start=0.5, limit=2.0, delta=0.5)),
    ("Range", dict(start=np.array(0.5, np.float32), limit=2.0, delta=0.5)),
    ("OneHot", dict(indices=np.array([0, 2, 1]), depth=3, on_value=5.0, off_value=-1.0)),
    ("GatherV2", dict(params=_A, indices=[2, 0], axis=0)), ("GatherV2", dict(params=_A, indices=[3, 1], axis=1)),
    ("GatherNd", dict(params=_A, indices=[[0, 1], [2, 3]])),
    ("Select", dict(condition=_A > 0, x=_A, y=_P)), ("Select", dict(condition=[True, False, True], x=_A, y=_P)),
    ("SelectV2", dict(condition=_A[0] > 0, t=_A, e=0.0)), ("Where", dict(condition=_A > 0)),
    ("TopKV2", dict(input=_A, k=2)), ("TopKV2", dict(input=_A, k=3, index_type=np.int64)),
    ("ClipByValue", dict(t=_A, clip_value_min=-0.5, clip_value_max=0.5)),
    ("Conv2D", dict(input=_RNG.normal(size=(1, 5, 5, 2)).astype(np.float32),
                    filter=_RNG.normal(size=(3, 3, 2, 3)).astype(np.float32), strides=[1, 1, 1, 1],
                    padding="SAME")),
    ("Conv2D", dict(input=_RNG.normal(size=(1, 5, 5, 2)).astype(np.float32),
                    filter=_RNG.normal(size=(3, 3, 2, 3)).astype(np.float32), strides=[1, 2, 2, 1],
                    padding="EXPLICIT", explicit_paddings=[0, 0, 1, 1, 2, 0, 0, 0])),
    ("MaxPool", dict(input=_RNG.normal(size=(1, 4, 4, 2)).astype(np.float32), ksize=[1, 2, 2, 1],
                     strides=[1, 2, 2, 1], padding="VALID")),
    ("AvgPool", dict(value=_RNG.normal(size=(1, 4, 4, 2)).astype(np.float32), ksize=[1, 3, 3, 1],
                     strides=[1, 1, 1, 1], padding="SAME")),
]


def _call(tf, name, kwargs):
    converted = {k: tf.as_dtype(v) if isinstance(v, type) else v for k, v in kwargs.items()}
    return getattr(tf.raw_ops, name)(**converted)


@pytest.mark.parametrize("name, kwargs", _CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(_CASES)])
def test_raw_op_matches_tf(name, kwargs):
    check(lambda tf: _call(tf, name, kwargs))


@pytest.mark.parametrize("name, kwargs", [
    ("MatMul", dict(a=_A, b=_B)), ("BatchMatMulV2", dict(x=_A, y=_B)), ("Softmax", dict(logits=_A)),
    ("Sum", dict(input=_A, axis=1)), ("GatherV2", dict(params=_A, indices=[1, 1], axis=1)),
    ("Transpose", dict(x=_A, perm=[1, 0])), ("Tanh", dict(x=_A)), ("SelectV2", dict(condition=_A > 0, t=_A, e=_P)),
])
def test_raw_op_gradients_match_tf(name, kwargs):
    floats = {k: v for k, v in kwargs.items() if isinstance(v, np.ndarray) and v.dtype == np.float32}
    rest = {k: v for k, v in kwargs.items() if k not in floats}
    check_grad(lambda tf, *values: getattr(tf.raw_ops, name)(**dict(zip(floats, values)), **rest), *floats.values())


@pytest.mark.parametrize("call", [
    lambda tf: tf.raw_ops.Add(tf.constant(1.0), tf.constant(2.0)),
    lambda tf: tf.raw_ops.Sum(tf.constant([1.0]), axis=0),
    lambda tf: tf.raw_ops.Add(x=tf.constant(1.0)),
    lambda tf: tf.raw_ops.MatMul(b=[[1.0]]),
    lambda tf: tf.raw_ops.Add(x=1.0, y=2.0, z=3.0),
    lambda tf: tf.raw_ops.Add(x=tf.constant([1, 2]), y=[1.5, 2.0]),
    lambda tf: tf.raw_ops.Add(x=[1.5, 2.0], y=tf.constant([1, 2])),
    lambda tf: tf.raw_ops.Maximum(x=[1, 5], y=3.5),
    lambda tf: tf.raw_ops.Range(start=0, limit=5.0, delta=1),
])
def test_raw_op_argument_errors_match_tf(call):
    raised = []
    for tf in LIBS:
        with pytest.raises(TypeError) as info:
            call(tf)
        raised.append(str(info.value))
    assert raised[1] == raised[0]


@pytest.mark.parametrize("call", [
    lambda tf: tf.raw_ops.Add(x=tf.constant(1.0), y=tf.constant(1)),
    lambda tf: tf.raw_ops.Sub(x=tf.constant(1.0), y=tf.constant(1)),
    lambda tf: tf.raw_ops.MatMul(a=tf.ones([2]), b=tf.ones([2, 2])),
    lambda tf: tf.raw_ops.MatMul(a=tf.ones([2, 2]), b=tf.ones([2])),
    lambda tf: tf.raw_ops.Select(condition=[True, False, True], x=[[1, 2], [3, 4]], y=[[5, 6], [7, 8]]),
    lambda tf: tf.raw_ops.Select(condition=[[True, False]], x=[[1, 2], [3, 4]], y=[[5, 6], [7, 8]]),
    lambda tf: tf.raw_ops.GatherV2(params=[1, 2, 3], indices=[3], axis=0),
])
def test_raw_op_errors_match_tf(call):
    raised = []
    for tf in LIBS:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            call(tf)
        raised.append(str(info.value))
    assert raised[1] == raised[0]


@pytest.mark.parametrize("name", sorted({name for name, _ in _CASES}))
def test_raw_op_signatures_match_tf(name):
    want, got = (getattr(tf.raw_ops, name) for tf in LIBS)
    assert got.__name__ == want.__name__
    assert list(inspect.signature(got).parameters) == list(inspect.signature(want).parameters)


def _raw_step(tf):
    @tf.function
    def step(v):
        h = tf.raw_ops.Relu(features=tf.raw_ops.MatMul(a=v, b=v, transpose_b=True))
        return tf.raw_ops.Mean(input=tf.raw_ops.Square(x=h), axis=[0, 1])
    return step


def test_raw_ops_in_tf_function_match_tf():
    x = _RNG.normal(size=(4, 3)).astype(np.float32)
    results = []
    for tf in LIBS:
        step = _raw_step(tf)
        results.append([step(tf.constant(x)).numpy(), step(tf.constant(2 * x)).numpy()])
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)


# -- CheckpointManager(checkpoint_interval=...) ----------------------------------------------------------------------
def test_checkpoint_manager_interval_matches_tf():
    results = []
    for tf in LIBS:
        with tempfile.TemporaryDirectory() as folder:
            step = tf.Variable(0, dtype=tf.int64)
            checkpoint = tf.train.Checkpoint(step=step, w=tf.Variable([1.0, 2.0]))
            manager = tf.train.CheckpointManager(checkpoint, folder, max_to_keep=2, step_counter=step,
                                                 checkpoint_interval=3)
            saved = [manager.checkpoint_interval]
            for _ in range(8):
                step.assign_add(1)
                path = manager.save()
                saved.append(None if path is None else os.path.basename(path))
            saved.append(os.path.basename(manager.save(check_interval=False)))
            saved.append([os.path.basename(p) for p in manager.checkpoints])
            step.assign(100)
            again = tf.train.CheckpointManager(checkpoint, folder, max_to_keep=2, step_counter=step,
                                               checkpoint_interval=3)
            saved.append(os.path.basename(again.restore_or_initialize()))
            saved.append(int(step.numpy()))
            for _ in range(4):  # the restored step starts the next interval
                step.assign_add(1)
                path = again.save()
                saved.append(None if path is None else os.path.basename(path))
            results.append(saved)
    assert results[1] == results[0]


def test_checkpoint_manager_interval_needs_step_counter_as_tf():
    messages = []
    for tf in LIBS:
        checkpoint = tf.train.Checkpoint(v=tf.Variable(1.0))
        with pytest.raises(ValueError) as info:
            tf.train.CheckpointManager(checkpoint, tempfile.gettempdir(), max_to_keep=1, checkpoint_interval=2)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


# -- tf.data iterators in checkpoints -------------------------------------------------------------------------------
@pytest.mark.parametrize("pipeline", ["range", "map_batch_repeat", "zip_filter"])
def test_checkpoint_saves_and_restores_iterator_position_as_tf(pipeline):
    def make(tf):
        if pipeline == "range":
            return tf.data.Dataset.range(10)
        if pipeline == "map_batch_repeat":
            return tf.data.Dataset.range(7).map(lambda x: x * 3).batch(3).repeat()
        numbers = tf.data.Dataset.range(30)
        return tf.data.Dataset.zip((numbers, numbers.map(lambda x: x * x))).filter(lambda a, b: a % 3 > 0)

    results = []
    for tf in LIBS:
        with tempfile.TemporaryDirectory() as folder:
            iterator = iter(make(tf))
            checkpoint = tf.train.Checkpoint(iterator=iterator)
            seen = [tf.nest.map_structure(lambda t: t.numpy().tolist(), next(iterator)) for _ in range(4)]
            path = checkpoint.save(os.path.join(folder, "ckpt"))
            after = [tf.nest.map_structure(lambda t: t.numpy().tolist(), next(iterator)) for _ in range(3)]
            checkpoint.restore(path)  # rewinds this iterator
            rewound = [tf.nest.map_structure(lambda t: t.numpy().tolist(), next(iterator)) for _ in range(3)]
            fresh = iter(make(tf))
            tf.train.Checkpoint(iterator=fresh).restore(path).assert_consumed()
            resumed = [tf.nest.map_structure(lambda t: t.numpy().tolist(), next(fresh)) for _ in range(3)]
        results.append([seen, after, rewound, resumed])
    assert results[1] == results[0]


def test_checkpoint_takes_iterators_as_tf():
    for tf in LIBS:
        checkpoint = tf.train.Checkpoint(data=iter(tf.data.Dataset.range(3)))
        assert type(checkpoint.data).__name__ == "OwnedIterator"


# -- optimizer slots restored inside a tf.function train step --------------------------------------------------------
def _momentum_losses(tf, folder, restore):
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
    y = x @ np.array([[1.0], [-0.5], [0.25]], np.float32)
    w = tf.Variable(tf.zeros([3, 1]))
    optimizer = tf.keras.optimizers.SGD(0.1, momentum=0.9)
    checkpoint = tf.train.Checkpoint(w=w, optimizer=optimizer)
    if restore:
        checkpoint.restore(tf.train.latest_checkpoint(folder))

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        optimizer.apply_gradients([(tape.gradient(loss, w), w)])
        return loss

    losses = [float(step()) for _ in range(3)]
    if not restore:
        checkpoint.save(os.path.join(folder, "ckpt"))
        losses += [float(step()) for _ in range(4)]
    return losses


@pytest.mark.parametrize("tf", LIBS, ids=["tf", "vfw"])
def test_optimizer_slots_restored_in_tf_function_continue_the_run(tf):
    with tempfile.TemporaryDirectory() as folder:
        uninterrupted = _momentum_losses(tf, folder, restore=False)
        resumed = _momentum_losses(tf, folder, restore=True)
    np.testing.assert_allclose(resumed, uninterrupted[3:6], rtol=1e-6)


def test_optimizer_slots_restored_in_tf_function_match_tf():
    results = []
    for tf in LIBS:
        with tempfile.TemporaryDirectory() as folder:
            results.append(_momentum_losses(tf, folder, False) + _momentum_losses(tf, folder, True))
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5)


# -- unused ops pruned from tf.function graphs -----------------------------------------------------------------------
def _gather_functions(tf):
    state = tf.Variable([0.0])

    @tf.function
    def unused(x):
        tf.gather(x, [1])
        return x

    @tf.function
    def unused_after(x):
        _ = tf.gather(x, [2, 0]) * 2.0  # (unused: pruned)
        return tf.gather(x, [0]) + 1.0, tf.reduce_sum(x)

    @tf.function
    def returned(x):
        return x, tf.gather(x, [1])

    @tf.function
    def assigned(x):
        state.assign(tf.gather(x, [1]))
        return x

    @tf.function
    def used_later(x):
        return tf.reduce_sum(tf.gather(x, [1]) * 3.0)

    return {"unused": unused, "unused_after": unused_after, "returned": returned, "assigned": assigned,
            "used_later": used_later}


@pytest.mark.parametrize("name", ["unused", "unused_after", "returned", "assigned", "used_later"])
def test_out_of_range_gather_in_tf_function_fails_only_when_used_as_tf(name):
    outcomes = []
    for tf in LIBS:
        fn = _gather_functions(tf)[name]
        outcome = []
        for value in ([1.0], [3.0], [4.0, 5.0]):
            try:
                result = fn(tf.constant(value))
                outcome.append([np.asarray(r).tolist() for r in tf.nest.flatten(result)])
            except tf.errors.InvalidArgumentError as e:
                outcome.append(("InvalidArgumentError", "indices[0] = 1 is not in [0, 1)" in str(e)))
        outcomes.append(outcome)
    assert outcomes[1] == outcomes[0]


# -- tf.saved_model with gathers at computed indices -----------------------------------------------------------------
def _labeler(tf):
    class Labeler(tf.Module):
        def __init__(self):
            super().__init__()
            self.vocab = tf.constant(["low", "mid", "high"])
            self.scale = tf.Variable([1.0, 2.0, 0.5])

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.int32)])
        def label(self, x, k):
            scores = x * self.scale
            best = tf.math.top_k(tf.reduce_sum(scores, axis=1), k=k)
            return {"name": tf.gather(self.vocab, tf.argmax(scores, axis=1)), "top": best.indices,
                    "picked": tf.gather(x, best.indices)}
    return Labeler()


def test_saved_model_with_computed_gathers_matches_tf():
    x = np.array([[0.1, 0.9, 0.3], [2.0, -1.0, 0.0], [0.0, 0.2, 5.0], [1.0, 1.0, 1.0]], np.float32)
    results = []
    for tf in LIBS:
        with tempfile.TemporaryDirectory() as folder:
            tf.saved_model.save(_labeler(tf), folder)
            loaded = tf.saved_model.load(folder)
        found = []
        for rows, k in ((4, 2), (3, 3), (1, 1)):
            out = loaded.label(tf.constant(x[:rows]), tf.constant(k))
            found.append({key: (value.dtype.name, value.numpy().tolist()) for key, value in out.items()})
        results.append(found)
    assert results[1] == results[0]
