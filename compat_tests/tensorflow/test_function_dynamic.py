"""tf.function with values read from tensors against TF 2.21: each function is traced once, then called with other
argument values, and must give each call's results (shapes from values, not the traced ones), at every engine
optimization level; Python values of traced tensors (``int(t)``...) raise TF's errors."""

import sys

import numpy as np
import pytest

import vfw.core.graph.function  # noqa: F401,E402  (the module: the package re-exports a function of that name)
from compat_tests.tensorflow.harness import check, vtf

_engine = sys.modules["vfw.core.graph.function"]
X = np.arange(24, dtype=np.float32).reshape(4, 6)


@pytest.fixture(params=[0, 1, 2, 3], autouse=True)
def opt_level(request):
    """Run each case with the engine's graphs optimized at this level (vfw's tf.function uses the default)."""
    before = _engine.get_default_opt_level()
    _engine.set_default_opt_level(request.param)
    yield request.param
    _engine.set_default_opt_level(before)


def _calls(body, values, dtype="int32", **options):
    """A case tracing ``body(tf, n)`` once (an int scalar argument) and calling it with each of ``values``."""
    def case(tf):
        f = tf.function(lambda n: body(tf, n), **options)
        out = [f(tf.constant(v, getattr(tf, dtype))) for v in values]
        return out, f.experimental_get_tracing_count()
    return case


CASES = {
    "zeros": lambda tf, n: tf.zeros([n, 2]) + 1.0,
    "ones_int64": lambda tf, n: tf.ones(tf.stack([n, n + 1]), tf.int64),
    "fill": lambda tf, n: tf.fill([2, n], tf.cast(n, tf.float32) * 0.5),
    "zeros_like_shape_size": lambda tf, n: (lambda z: (tf.ones_like(z), tf.shape(z), tf.size(z)))(tf.zeros([n, 3])),
    "reshape": lambda tf, n: tf.reshape(tf.constant(X), [n, -1]) * 2.0,
    "reshape_varying_source": lambda tf, n: tf.reshape(tf.zeros([n, 2]), [-1]) + 1.0,
    "eye": lambda tf, n: tf.eye(n, n + 1),
    "eye_batch": lambda tf, n: tf.eye(2, batch_shape=[n], dtype=tf.int32),
    "tile": lambda tf, n: tf.tile(tf.constant(X[:1]), [n, 1]) + 1.0,
    "one_hot": lambda tf, n: tf.one_hot([0, 1, 3, -1], n),
    "slice": lambda tf, n: tf.slice(tf.constant(X), [1, n], [-1, 2]) * 1.0,
    "slice_size": lambda tf, n: tf.reduce_sum(tf.slice(tf.constant(X), [0, 0], [n, -1]), 0),
    "strided_slice": lambda tf, n: tf.strided_slice(tf.constant(X), [0, n], [4, 6], [2, 1]) + 0.0,
    "getitem": lambda tf, n: tf.constant(X)[:n] * 3.0,
    "range": lambda tf, n: tf.range(n) * 2,
    "chained": lambda tf, n: tf.reduce_sum(tf.reshape(tf.zeros([n, 4]) + tf.range(4, dtype=tf.float32), [2, -1]), 1),
    "split_sizes": lambda tf, n: tf.split(tf.constant(X), [n, -1, 1], axis=1),
    "split_varying_source": lambda tf, n: [p * 2.0 for p in tf.split(tf.zeros([2 * n, 3]) + 1.0, 2)],
    "linspace": lambda tf, n: tf.linspace(-1.0, 2.0, n) * 1.0,
    "linspace_axis": lambda tf, n: tf.linspace([0.0, 1.0], tf.constant([1.0, 3.0]), n, axis=1),
    "stateless_uniform": lambda tf, n: tf.random.stateless_uniform([n, 2], seed=[1, 2]),
    "stateless_uniform_int": lambda tf, n: tf.random.stateless_uniform(tf.stack([n]), [3, 4], 0, 9, tf.int32),
    "stateless_normal": lambda tf, n: tf.random.stateless_normal([2, n], seed=[5, 6], mean=1.0) + 0.0,
    "stateless_full_int": lambda tf, n: tf.random.stateless_uniform([n], [7, 8], None, None, tf.int64),
    "top_k": lambda tf, n: tuple(tf.math.top_k(tf.constant(X[:, ::-1]), n)),
    "broadcast_dynamic_shape": lambda tf, n: tf.broadcast_dynamic_shape(tf.stack([n, 1]), [1, 3]),
    # Python bounds and whole-axis ops on a tensor whose shape follows the values
    "getitem_of_value_shaped": lambda tf, n: (tf.range(n)[1:], tf.range(n)[-2:], tf.range(n)[::-2],
                                              tf.reshape(tf.range(2 * n), [n, 2])[..., -1]),
    "sort_of_value_shaped": lambda tf, n: (tf.sort(tf.range(n) % 3), tf.argsort(-tf.range(n), direction="DESCENDING")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shapes_follow_each_calls_values(name):
    check(_calls(CASES[name], [2, 4, 0, 3] if name not in ("reshape", "slice") else [2, 4, 1, 3]))


STATEFUL_DRAWS = {
    "uniform": lambda tf, rng, n, seed: rng.uniform([n, 2], maxval=3.0, **seed),
    "uniform_int": lambda tf, rng, n, seed: rng.uniform(tf.stack([n]), 0, 50, tf.int64, **seed),
    "normal": lambda tf, rng, n, seed: rng.normal([n], mean=2.0, **seed),
    "truncated_normal": lambda tf, rng, n, seed: rng.truncated_normal([2, n], **seed),
}


@pytest.mark.parametrize("source", ["tf.random", "Generator"])
@pytest.mark.parametrize("draw", sorted(STATEFUL_DRAWS))
def test_stateful_draws_follow_each_calls_shape(draw, source):
    """The kernel's stream (an op seed) or the generator's state moves on by each call's number of draws."""
    def case(tf):
        tf.random.set_seed(11)
        rng, seed = (tf.random, {"seed": 7}) if source == "tf.random" else (tf.random.Generator.from_seed(3), {})
        f = tf.function(lambda n: STATEFUL_DRAWS[draw](tf, rng, n, seed))
        return [f(tf.constant(v)) for v in [2, 4, 0, 3]], f.experimental_get_tracing_count()
    check(case)


@pytest.mark.parametrize("name", ["zeros", "eye", "tile", "one_hot", "slice", "split_sizes", "split_varying_source",
                                  "linspace", "stateless_uniform", "top_k"])
def test_invalid_values_in_a_later_call_raise_tfs_error(name):
    def case(tf):
        f = tf.function(lambda n: CASES[name](tf, n))
        f(tf.constant(2))
        f(tf.constant(-9))
    check(case)


def test_reshape_with_sizes_that_do_not_divide_raises_in_a_later_call():
    def case(tf):
        f = tf.function(lambda n: tf.reshape(tf.constant(X), [n, -1]))
        return f(tf.constant(3)), f(tf.constant(5))
    check(case)


@pytest.mark.parametrize("convert", ["int", "float", "index"])
def test_python_values_of_traced_tensors_raise_typeerror(convert):
    use = {"int": int, "float": float, "index": lambda t: [1, 2, 3][t]}[convert]
    check(_calls(lambda tf, n: use(n), [1], autograph=False))


def test_bool_of_a_traced_tensor_raises_operator_not_allowed():
    check(_calls(lambda tf, n: bool(n > 0), [1], autograph=False))


def test_len_of_a_value_shaped_tensor_raises_typeerror():
    check(_calls(lambda tf, n: len(tf.zeros([n])), [1], autograph=False))


def test_values_read_in_python_are_checked_on_each_call():
    """Arguments vfw still reads once per trace (an axis, a permutation) raise an error when a call changes them
    (TF computes with each call's value: vfw must never return the traced one silently)."""
    x = vtf.constant(X)
    for f, value, other, want in ((vtf.function(lambda x, axis: vtf.reduce_sum(x, axis)), [0], [1], X.sum(0)),
                                  (vtf.function(lambda x, perm: vtf.transpose(x, perm) + 0), [0, 1], [1, 0], X)):
        np.testing.assert_array_equal(f(x, vtf.constant(value)).numpy(), want)
        np.testing.assert_array_equal(f(x, vtf.constant(value)).numpy(), want)
        with pytest.raises(vtf.errors.InvalidArgumentError, match="when this tf.function was traced"):
            f(x, vtf.constant(other))


# Values a later call gives that TF's kernels refuse: each run checks them (the traced values were valid).
LATER_CALL_ERRORS = {
    "gather": lambda tf, n: tf.gather(tf.constant(X), tf.stack([0, n])),
    "gather_nd": lambda tf, n: tf.gather_nd(tf.constant(X), tf.stack([[0, n]])),
    "unsorted_segment_ids": lambda tf, n: tf.math.unsorted_segment_sum(tf.constant(X), tf.stack([0, 1, n, 0]), 3),
    "dynamic_partition": lambda tf, n: tf.dynamic_partition(tf.constant(X), tf.stack([0, 1, n, 0]), 2),
    "reverse_sequence": lambda tf, n: tf.reverse_sequence(tf.constant(X), tf.stack([1, 2, n, 0]), seq_axis=1),
    "unravel_index": lambda tf, n: tf.unravel_index(tf.stack([n]), [2, 3]),
    "confusion_matrix": lambda tf, n: tf.math.confusion_matrix([0, 1], tf.stack([0, n]), num_classes=3),
}


@pytest.mark.parametrize("name", sorted(LATER_CALL_ERRORS))
def test_values_checked_by_kernels_are_checked_on_each_call(name):
    def case(tf):
        f = tf.function(lambda n: LATER_CALL_ERRORS[name](tf, n))
        first = f(tf.constant(1))
        return first, f(tf.constant(-1 if name in ("gather", "gather_nd", "dynamic_partition") else 9))
    check(case)


@pytest.mark.parametrize("convert", ["numpy", "asarray", "ufunc"])
def test_numpy_values_of_traced_tensors_raise_tfs_errors(convert):
    """``t.numpy()`` is an AttributeError and numpy conversions a NotImplementedError on a traced tensor, as in TF."""
    use = {"numpy": lambda n: n.numpy(), "asarray": lambda n: np.asarray(n * 2), "ufunc": lambda n: np.add(n, 1)}
    check(_calls(lambda tf, n: use[convert](n), [1], autograph=False))


# Arguments vfw reads once per trace: (function of an argument, the traced value, another value).
PINNED = {
    "sorted_segments": (lambda tf, n: tf.math.segment_sum(tf.constant(X), tf.stack([0, 0, 1, n])), 1, 2),
    "num_samples": (lambda tf, n: tf.random.stateless_categorical(tf.zeros([1, 3]), n, [1, 2]), 1, 2),
    "band_part": (lambda tf, n: tf.linalg.band_part(tf.constant(X), tf.cast(n, tf.int64), -1), 0, 1),
    "tensordot_axes": (lambda tf, n: tf.tensordot(tf.constant(X), tf.constant(X), tf.stack([[n], [n]])), 0, 1),
    "cumsum_axis": (lambda tf, n: tf.cumsum(tf.constant(X), n), 0, 1),
    "argmax_axis": (lambda tf, n: tf.argmax(tf.constant(X), n), 0, 1),
    "diag_k": (lambda tf, n: tf.linalg.diag_part(tf.constant(X), k=n), 0, 1),
    "uniform_int_bounds": (lambda tf, n: tf.random.stateless_uniform([3], [1, 2], 0, n, tf.int32), 5, 100),
    "dynamic_stitch": (lambda tf, n: tf.dynamic_stitch([tf.stack([0, n])], [tf.constant(X[:2])]), 1, 3),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_values_read_once_per_trace_match_tf_then_refuse_other_values(name):
    """TF computes with each call's value; vfw gives TF's result for the traced value and an error (never the traced
    result) for another one."""
    body, value, other = PINNED[name]
    check(_calls(body, [value, value]))
    f = vtf.function(lambda n: body(vtf, n))
    f(vtf.constant(value))
    with pytest.raises(vtf.errors.InvalidArgumentError, match="when this tf.function was traced"):
        f(vtf.constant(other))
