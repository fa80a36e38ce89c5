"""tf.DeviceSpec, tf.AggregationMethod, tf.timestamp, tf.grad_pass_through, tf.hessians and
tf.register_tensor_conversion_function against real TF 2.21."""

import time

import numpy as np
import pytest

from compat_tests.tensorflow.harness import LIBS, check

SPECS = ["/job:worker/replica:0/task:1/device:GPU:3", "/gpu:*", "/device:cpu:0", "gpu", "/job:w/task:2",
         "/device:TPU_SYSTEM:0", "/job:a/job:b", "/replica:1/cpu:2", "job:a", "/task:-1", "/device:xla_gpu:0",
         "//job:a", "/GPU:0/job:b", "", "/device:GPU", "/foo:1", "/job:w/replica:x", "/device:CPU:0/device:GPU:1"]


def described(spec):
    return (spec.to_string(), repr(spec), spec.job, spec.replica, spec.task, spec.device_type, spec.device_index)


@pytest.mark.parametrize("text", SPECS)
def test_device_spec_from_string(text):
    check(lambda tf: described(tf.DeviceSpec.from_string(text)))


def test_device_spec_construction_and_updates():
    check(lambda tf: described(tf.DeviceSpec(job="a", replica="1", task=2.0)))
    check(lambda tf: described(tf.DeviceSpec(device_type="gpu")))
    check(lambda tf: described(tf.DeviceSpec(job="a", device_index=0)))
    check(lambda tf: described(tf.DeviceSpec.from_string(SPECS[0]).replace(job="ps", device_index=1)))
    check(lambda tf: described(tf.DeviceSpec.from_string(SPECS[0]).make_merged_spec(tf.DeviceSpec(job="x",
                                                                                                    device_index=5))))
    check(lambda tf: described(tf.DeviceSpec(job="a").parse_from_string("/task:3/gpu:1")))
    check(lambda tf: tf.DeviceSpec().replace(foo=1))
    check(lambda tf: (tf.DeviceSpec(job="a") == tf.DeviceSpec.from_string("/job:a"), tf.DeviceSpec(job="a") == "x",
                      hash(tf.DeviceSpec(job="a")) == hash(tf.DeviceSpec.from_string("/job:a"))))

    def set_job(tf):
        tf.DeviceSpec(job="a").job = "b"
    check(set_job)


def test_aggregation_method_and_timestamp():
    check(lambda tf: (tf.AggregationMethod.ADD_N, tf.AggregationMethod.DEFAULT, tf.AggregationMethod.EXPERIMENTAL_TREE,
                      tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N))
    for lib in LIBS:
        before = time.time()
        stamp = lib.timestamp()
        assert stamp.dtype == lib.float64 and stamp.shape == ()
        assert before - 1e-3 <= float(stamp.numpy()) <= time.time() + 1e-3


def test_grad_pass_through():
    def rounded(tf, x):
        v = tf.Variable(x)
        with tf.GradientTape() as tape:
            y = tf.grad_pass_through(lambda t: tf.round(t * 3.3))(v) * 2.0
        return y, tape.gradient(y, v)

    check(rounded, np.array([0.2, 1.7, -2.4], np.float32))

    def assigned(tf, x):
        x = tf.constant(x)
        target = tf.Variable(tf.zeros_like(x))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.grad_pass_through(target.assign)(x) * x
        return y, tape.gradient(y, x)

    check(assigned, np.array([1.0, -3.0], np.float32))


def test_hessians_is_graph_only():
    check(lambda tf: tf.hessians(tf.constant([1.0, 2.0]) ** 2, tf.constant([1.0, 2.0])))


class _Pair:
    def __init__(self, values):
        self.values = values


class _Wrong:
    pass


class _Declined:
    pass


@pytest.fixture(scope="module")
def registered():
    for lib in LIBS:
        lib.register_tensor_conversion_function(_Pair, lambda v, dtype=None, name=None, as_ref=False, lib=lib:
                                                lib.constant(v.values, dtype=dtype))
        lib.register_tensor_conversion_function(_Wrong, lambda v, dtype=None, name=None, as_ref=False, lib=lib:
                                                lib.constant([1]))
        lib.register_tensor_conversion_function(_Declined, lambda v, dtype=None, name=None, as_ref=False:
                                                NotImplemented)


def test_register_tensor_conversion_function(registered):
    check(lambda tf: tf.convert_to_tensor(_Pair([1, 2])))
    check(lambda tf: tf.convert_to_tensor(_Pair([1, 2]), dtype=tf.float32))
    check(lambda tf: tf.add(_Pair([1.0, 2.0]), 1.0))
    check(lambda tf: tf.reduce_sum(_Pair([[1, 2], [3, 4]]), axis=1))
    check(lambda tf: tf.convert_to_tensor(_Wrong(), dtype=tf.float32))  # RuntimeError: incompatible dtype
    check(lambda tf: tf.convert_to_tensor(_Declined()))  # ValueError: unsupported type


@pytest.mark.parametrize("base_type", [int, float, np.ndarray, np.float32, 3])
def test_register_refuses(base_type):
    check(lambda tf: tf.register_tensor_conversion_function(base_type, lambda v, **k: v))
    check(lambda tf: tf.register_tensor_conversion_function(_Pair, 3))


@pytest.mark.parametrize("make", [lambda tf: tf.constant([1, 2]), lambda tf: np.zeros([2, 3]), lambda tf: [1, 2],
                                  lambda tf: 3, lambda tf: 2.5, lambda tf: "s", lambda tf: (1, 2),
                                  lambda tf: tf.ragged.constant([[1], [2, 3]]), lambda tf: tf.TensorShape([2]),
                                  lambda tf: tf.sparse.from_dense([[1, 0]]), lambda tf: {"a": 1}])
def test_type_spec_from_value(make):
    def spec(tf):
        result = tf.type_spec_from_value(make(tf))
        return repr(result), isinstance(result, tf.TypeSpec)

    check(spec)


def test_type_spec_is_abstract_base():
    check(lambda tf: tf.TypeSpec())  # TypeError: abstract methods
    check(lambda tf: [isinstance(s, tf.TypeSpec) for s in (tf.TensorSpec([1]), tf.SparseTensorSpec([2, 2], tf.int32),
                                                            tf.RaggedTensorSpec([2, None], tf.int32), 3)])
