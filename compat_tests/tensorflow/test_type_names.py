"""TensorFlow's and Keras' class names for vfw.tensorflow's objects (``type(x)`` prints as under TF 2.21 / Keras 3.15),
with pickling and copying still finding vfw's classes."""

import copy
import importlib
import os
import pickle

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real_tf = pytest.importorskip("tensorflow")
real_keras = pytest.importorskip("keras")

import vfw.tensorflow as vtf  # noqa: E402

from vfw.frontends.tensorflow import _type_names  # noqa: E402
from vfw.frontends.tensorflow import keras as vkeras  # noqa: E402

# Objects built the same way in both libraries (``tf``, ``keras`` name the library's modules).
OBJECTS = {
    "eager tensor": "tf.constant([1.0, 2.0])",
    "op result": "tf.constant([1.0]) + tf.constant([2.0])",
    "variable": "tf.Variable(1.0)",
    "shape": "tf.TensorShape([2, None])",
    "dtype": "tf.float32",
    "tensor spec": "tf.TensorSpec([2], tf.int32)",
    "ragged spec": "tf.RaggedTensorSpec([2, None])",
    "sparse spec": "tf.SparseTensorSpec([2])",
    "ragged": "tf.ragged.constant([[1], [2, 3]])",
    "sparse": "tf.sparse.from_dense([[1, 0]])",
    "indexed slices": "tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]))",
    "module": "tf.Module()",
    "tape": "tf.GradientTape()",
    "function": "tf.function(lambda x: x)",
    "concrete function": "tf.function(lambda x: x).get_concrete_function(tf.TensorSpec([2]))",
    "generator": "tf.random.Generator.from_seed(1)",
    "tensor array": "tf.TensorArray(tf.float32, 1)",
    "checkpoint": "tf.train.Checkpoint()",
    "slices dataset": "tf.data.Dataset.from_tensor_slices([1, 2, 3])",
    "range dataset": "tf.data.Dataset.range(3)",
    "batch dataset": "tf.data.Dataset.range(3).batch(2)",
    "map dataset": "tf.data.Dataset.range(3).map(lambda x: x)",
    "shuffle dataset": "tf.data.Dataset.range(3).shuffle(2)",
    "prefetch dataset": "tf.data.Dataset.range(3).prefetch(1)",
    "zip dataset": "tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(3)))",
    "generator dataset": "tf.data.Dataset.from_generator(lambda: iter([1]), "
                         "output_signature=tf.TensorSpec([], tf.int32))",
    "iterator": "iter(tf.data.Dataset.range(3))",
    "numpy iterator": "tf.data.Dataset.range(3).as_numpy_iterator()",
    "dataset options": "tf.data.Options()",
    "keras variable": "keras.Variable(1.0)",
    "learning rate": "keras.optimizers.Adam(0.1).learning_rate",
    "dense": "keras.layers.Dense(2)",
    "conv": "keras.layers.Conv2D(2, 3)",
    "lstm": "keras.layers.LSTM(2)",
    "sequential": "keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])",
    "functional": "keras.Model(*(lambda i: (i, keras.layers.Dense(1)(i)))(keras.Input((2,))))",
    "keras tensor": "keras.Input((2,))",
    "adam": "keras.optimizers.Adam()",
    "sgd": "keras.optimizers.SGD()",
    "schedule": "keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)",
    "loss": "keras.losses.MeanSquaredError()",
    "metric": "keras.metrics.Mean()",
    "callback": "keras.callbacks.EarlyStopping()",
    "initializer": "keras.initializers.GlorotUniform()",
    "regularizer": "keras.regularizers.L2(0.1)",
    "constraint": "keras.constraints.MaxNorm()",
    "seed generator": "keras.random.SeedGenerator(1)",
}


def _build(expression, tf, keras):
    return eval(expression, {"tf": tf, "keras": keras})


def _names(cls):
    return repr(cls), cls.__module__, cls.__qualname__, cls.__name__


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_type_prints_as_in_tensorflow(name):
    want = _build(OBJECTS[name], real_tf, real_keras)
    got = _build(OBJECTS[name], vtf, vkeras)
    assert _names(type(got)) == _names(type(want))


@pytest.mark.parametrize("path", ["Tensor", "Variable", "TensorShape", "DType", "TensorSpec", "RaggedTensor",
                                  "SparseTensor", "IndexedSlices", "Module", "GradientTape", "data.Dataset",
                                  "keras.layers.Layer", "keras.Model", "keras.optimizers.Optimizer",
                                  "keras.losses.Loss", "keras.metrics.Metric", "keras.callbacks.Callback"])
def test_public_class_names(path):
    want, got = real_tf, vtf
    for part in path.split("."):
        want, got = getattr(want, part), getattr(got, part)
    assert _names(got) == _names(want)


def test_eager_tensor_is_a_tf_tensor():
    x = vtf.constant(1.0)
    assert isinstance(x, vtf.Tensor) and type(x) is not vtf.Tensor
    assert issubclass(type(x), vtf.Tensor)


def test_values_in_a_trace_are_symbolic_tensors():
    def types(tf):
        seen = []

        @tf.function
        def f(x):
            seen.extend(repr(type(v)) for v in (x, x * 2.0, tf.constant(3.0), tf.constant(3.0) + 1.0))
            return x + 1.0, tf.constant(2)

        results = f(tf.constant(1.0))
        return seen, [repr(type(r)) for r in results], [repr(type(r)) for r in f(tf.constant(1.0))]

    assert types(vtf) == types(real_tf)


def test_argument_of_a_trace_is_eager_again_after_it():
    x = vtf.constant([1.0, 2.0])
    vtf.function(lambda v: v * 2.0)(x)
    assert repr(type(x)) == repr(type(real_tf.constant([1.0])))
    assert float(vtf.reduce_sum(x + x)) == 6.0


def test_every_name_in_the_tables_is_a_real_class():
    for vfw_module, qualname, module, name_qualname in _type_names.entries():
        found = importlib.import_module(module)
        for part in name_qualname.split("."):
            found = getattr(found, part)
        assert isinstance(found, type), (vfw_module, qualname)
        vfw_class = importlib.import_module(vfw_module)
        for part in qualname.split("."):
            vfw_class = getattr(vfw_class, part)
        assert (vfw_class.__module__, vfw_class.__qualname__) == (found.__module__, found.__qualname__)


def _same_value(a, b):
    if isinstance(a, (vtf.Tensor, vtf.Variable)):
        return np.array_equal(np.asarray(a), np.asarray(b)) and a.dtype == b.dtype
    if isinstance(a, vtf.RaggedTensor):
        return a.to_list() == b.to_list()
    if isinstance(a, vtf.SparseTensor):
        return np.array_equal(vtf.sparse.to_dense(a).numpy(), vtf.sparse.to_dense(b).numpy())
    if isinstance(a, vtf.IndexedSlices):
        return np.array_equal(a.values.numpy(), b.values.numpy()) and np.array_equal(a.indices.numpy(),
                                                                                   b.indices.numpy())
    if isinstance(a, vkeras.Variable):
        return np.array_equal(a.numpy(), b.numpy()) and a.name == b.name
    if isinstance(a, (vkeras.layers.Layer, vkeras.losses.Loss, vkeras.initializers.Initializer,
                      vkeras.regularizers.Regularizer, vkeras.optimizers.Optimizer, vkeras.metrics.Metric)):
        return a.get_config() == b.get_config()
    return a == b


# Objects real TF / Keras pickle; vfw pickles these too (its Keras layers, models and optimizers do not pickle yet).
PICKLED = ["eager tensor", "variable", "shape", "dtype", "tensor spec", "ragged spec", "sparse spec", "ragged",
           "sparse", "indexed slices", "keras variable", "loss", "initializer", "regularizer"]
COPIED = PICKLED + ["dense", "adam", "sequential", "metric", "dataset options"]


@pytest.mark.parametrize("name", PICKLED)
def test_pickle_round_trip(name):
    original = _build(OBJECTS[name], vtf, vkeras)
    loaded = pickle.loads(pickle.dumps(original))
    assert type(loaded) is type(original)  # vfw's class, not real TF's of the same name
    assert _same_value(original, loaded)


@pytest.mark.parametrize("name", COPIED)
def test_deepcopy_round_trip(name):
    original = _build(OBJECTS[name], vtf, vkeras)
    copied = copy.deepcopy(original)
    assert type(copied) is type(original)
    assert _same_value(original, copied)


def test_pickle_in_a_trace_gives_an_eager_tensor():
    @vtf.function
    def f(x):
        return vtf.constant(pickle.dumps(x * 2.0))

    restored = pickle.loads(f(vtf.constant(1.5)).numpy())
    assert repr(type(restored)) == repr(type(real_tf.constant(1.0))) and float(restored) == 3.0


@pytest.mark.parametrize("expression", ["keras.layers.Dense(2)", "keras.optimizers.Adam()", "keras.losses.Huber()",
                                        "keras.initializers.GlorotUniform()", "keras.metrics.Mean()",
                                        "keras.regularizers.L1L2(0.1, 0.2)", "keras.constraints.NonNeg()"])
def test_serialized_names_match_keras(expression):
    def names(keras):
        config = keras.saving.serialize_keras_object(_build(expression, None, keras))
        return config["module"], config["class_name"], config["registered_name"]

    assert names(vkeras) == names(real_keras)


def test_functional_model_config_round_trip():
    def build(keras):
        inputs = keras.Input((3,))
        return keras.Model(inputs, keras.layers.Dense(2, name="out")(keras.layers.Dense(4, name="hidden")(inputs)))

    model = build(vkeras)
    config = vkeras.saving.serialize_keras_object(model)
    want = real_keras.saving.serialize_keras_object(build(real_keras))
    assert (config["module"], config["class_name"]) == (want["module"], want["class_name"])
    rebuilt = vkeras.saving.deserialize_keras_object(config)
    assert type(rebuilt) is type(model)
    assert [type(layer) for layer in rebuilt.layers] == [type(layer) for layer in model.layers]
