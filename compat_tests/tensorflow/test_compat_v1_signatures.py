"""tf.compat.v1's TF 1 signatures of TF 2 functions (reduction_indices, keep_dims, dimension, dim, squeeze_dims,
to_float, random_normal, assign_add...) against real TF 2.21."""

import inspect

import pytest

from compat_tests.tensorflow.harness import arrays, check, real, vtf
from vfw.frontends.tensorflow.compat.v1 import _tf1_signatures

X = arrays((3, 4), seed=3)
REDUCTIONS = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp",
              "count_nonzero"]


@pytest.mark.parametrize("namespace", sorted(_tf1_signatures.NAMESPACES))
def test_signatures_and_namespaces_are_tfs(namespace):
    real_module = getattr(real.compat.v1, namespace) if namespace else real.compat.v1
    vfw_module = getattr(vtf.compat.v1, namespace) if namespace else vtf.compat.v1
    for name in _tf1_signatures.NAMESPACES[namespace]:
        want = inspect.signature(getattr(real_module, name))
        assert str(inspect.signature(getattr(vfw_module, name))) == str(want), name


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("kwargs", [{}, {"reduction_indices": 1}, {"axis": 0, "keep_dims": True},
                                    {"reduction_indices": [0, 1], "keepdims": True}, {"axis": 1, "keepdims": None},
                                    {"axis": 0, "reduction_indices": 0}, {"keepdims": True, "keep_dims": True}])
def test_reductions_tf1_arguments(name, kwargs):
    check(lambda tf, x: getattr(tf.compat.v1, name)(x, **kwargs), X)
    check(lambda tf, x: getattr(tf.compat.v1.math, name)(x, **kwargs), X)


@pytest.mark.parametrize("name", ["reduce_any", "reduce_all"])
def test_boolean_reductions(name):
    check(lambda tf, x: getattr(tf.compat.v1, name)(x > 0, reduction_indices=0, keep_dims=True), X)


def test_count_nonzero_input_alias_and_dtype():
    check(lambda tf, x: tf.compat.v1.count_nonzero(input=x - x[0], dtype=tf.int32), X)
    check(lambda tf, x: tf.compat.v1.count_nonzero(x, input=x), X)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("kwargs", [{"dimension": 1}, {"axis": 0}, {}, {"dimension": 0, "output_type": "int32"},
                                    {"axis": 0, "dimension": 0}])
def test_arg_reductions(name, kwargs):
    def run(tf, x):
        options = dict(kwargs)
        if "output_type" in options:
            options["output_type"] = tf.as_dtype(options["output_type"])
        return getattr(tf.compat.v1, name)(x, **options)
    check(run, X)


def test_expand_dims_squeeze_shape_size():
    check(lambda tf, x: tf.compat.v1.expand_dims(x, dim=1), X)
    check(lambda tf, x: tf.compat.v1.expand_dims(x, -1), X)
    check(lambda tf, x: tf.compat.v1.expand_dims(x), X)
    check(lambda tf, x: tf.compat.v1.expand_dims(x, axis=0, dim=0), X)
    check(lambda tf, x: tf.compat.v1.squeeze(x[None, :, None], squeeze_dims=[0]), X)
    check(lambda tf, x: tf.compat.v1.squeeze(x[None], axis=0, squeeze_dims=0), X)
    check(lambda tf, x: (tf.compat.v1.shape(x), tf.compat.v1.shape(x, out_type=tf.int64), tf.compat.v1.size(x)), X)


@pytest.mark.parametrize("name", ["to_float", "to_double", "to_int32", "to_int64"])
def test_casts(name):
    check(lambda tf, x: getattr(tf.compat.v1, name)(x * 3), X)
    check(lambda tf: getattr(tf.compat.v1, name)([1, 2]))


def test_random_draws_are_tfs_own_functions():
    for name, tf2_name in [("random_normal", "normal"), ("random_uniform", "uniform"),
                           ("truncated_normal", "truncated_normal")]:
        assert getattr(real.compat.v1, name) is getattr(real.random, tf2_name)
        assert getattr(vtf.compat.v1, name) is getattr(vtf.random, tf2_name)


def test_seeded_random_draws():
    def draws(tf):
        tf.compat.v1.set_random_seed(5)
        return (tf.compat.v1.random_normal([4], seed=1), tf.compat.v1.truncated_normal([2, 3], seed=2, stddev=2.0),
                tf.compat.v1.random_uniform([3], seed=3, maxval=4.0),
                tf.compat.v1.random_uniform([3], seed=3, maxval=9, dtype=tf.int32),
                tf.compat.v1.random.truncated_normal([2], seed=4))
    check(draws)


def test_assign_ops():
    def assigns(tf, x):
        variable = tf.Variable(x)
        added = tf.compat.v1.assign_add(variable, x)
        subtracted = tf.compat.v1.assign_sub(variable, x * 0.5)
        assigned = tf.compat.v1.assign(variable, x * 4)
        return (repr(added), subtracted.numpy(), variable.numpy(), repr(assigned)[:40])
    check(assigns, X[:1, :2])
