"""tf.function with values whose shapes follow each call's values, against TF 2.21: static shapes (``x.shape``
has None for the dims that vary, ``tf.shape`` the dynamic ones), functions that read such shapes, gradients
through them, and Python values of tensors made inside the function.  Each function is traced once and called
with other argument values, at every engine optimization level (the ``opt_level`` fixture)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, vtf
from compat_tests.tensorflow.test_function_dynamic import X, _calls, opt_level  # noqa: F401  (the fixture)

VALUES = [2, 4, 0, 3]


def _static_and_dynamic(body, values=VALUES):
    """A case tracing ``body(tf, n)`` once: the static shape of its result seen while tracing, and its dynamic
    shape and value on each call."""
    def case(tf):
        seen = []

        def traced(n):
            y = body(tf, n)
            seen.append(y.shape)
            return tf.shape(y), y

        f = tf.function(traced, autograph=False)
        return [f(tf.constant(v)) for v in values], seen, f.experimental_get_tracing_count()
    return case


STATIC_SHAPES = {
    "zeros": lambda tf, n: tf.zeros([n, 3]),
    "elementwise": lambda tf, n: tf.zeros([n, 3]) * 2.0 + tf.range(3, dtype=tf.float32),
    "range": lambda tf, n: tf.range(n),
    "reduce_fixed_axis": lambda tf, n: tf.reduce_sum(tf.ones([n, 3]), 0),
    "reduce_varying_axis": lambda tf, n: tf.reduce_sum(tf.ones([n, 3]), 1),
    "matmul": lambda tf, n: tf.matmul(tf.ones([n, 3]), tf.ones([3, 2])),
    "concat": lambda tf, n: tf.concat([tf.zeros([n, 3]), tf.ones([2, 3])], 0),
    "expand_dims": lambda tf, n: tf.expand_dims(tf.zeros([n, 3]), 1),
    "transpose": lambda tf, n: tf.transpose(tf.zeros([n, 3])),
    "broadcast_to_values": lambda tf, n: tf.broadcast_to(tf.ones([1, 4]), tf.stack([n, 4])),
    "tensordot": lambda tf, n: tf.tensordot(tf.ones([n, 3]), tf.ones([3, 2]), 1),
    "diag": lambda tf, n: tf.linalg.diag(tf.range(tf.cast(n, tf.float32))),
    "diag_matmul": lambda tf, n: tf.linalg.diag(tf.ones([n])) @ tf.ones([n, 2]),
    "set_shape": lambda tf, n: (lambda y: (y.set_shape([None, 4]), y)[1])(tf.zeros(tf.stack([n, 4]))),
    "fill": lambda tf, n: tf.fill([2, n], 1.5),
    "reshape": lambda tf, n: tf.reshape(tf.zeros([n, 4]), [-1, 2]),
    "reshape_varying_dim": lambda tf, n: tf.reshape(tf.range(2 * n), [n, 2]),
    "mirror_pad": lambda tf, n: tf.pad(tf.zeros([n, 3]), [[0, 0], [1, 2]], "SYMMETRIC"),
    "mirror_pad_varying_paddings": lambda tf, n: tf.pad(tf.zeros([4, 3]), tf.stack([[0, n], [tf.minimum(n, 3), 0]]),
                                                        "SYMMETRIC"),
}


@pytest.mark.parametrize("name", sorted(STATIC_SHAPES))
def test_static_shapes_have_none_for_the_dims_that_follow_values(name):
    check(_static_and_dynamic(STATIC_SHAPES[name]))


# Functions that read the shape of a tensor whose shape follows the values (round 2 left them failing later calls).
READ_VALUE_SHAPES = {
    "diag": lambda tf, n: tf.linalg.diag(tf.range(tf.cast(n, tf.float32)) + 1.0),
    "diag_k": lambda tf, n: tf.linalg.diag(tf.range(tf.cast(n, tf.float32)) + 1.0, k=1, padding_value=-1.0),
    "diag_rows": lambda tf, n: tf.linalg.diag(tf.ones([2, n]), k=(-1, 0)),
    "tensordot_int": lambda tf, n: tf.tensordot(tf.ones([n, 3]), tf.ones([3, 2]), 1),
    "tensordot_pairs": lambda tf, n: tf.tensordot(tf.ones([2, n]), tf.reshape(tf.range(2 * n, dtype=tf.float32),
                                                                             [n, 2]), [[1], [0]]),
    "reduce_logsumexp": lambda tf, n: tf.reduce_logsumexp(tf.ones([n, 3]) * tf.range(3.0), 1),
    "reduce_logsumexp_keepdims": lambda tf, n: tf.reduce_logsumexp(tf.ones([n, 3]), 0, keepdims=True),
    "sparse_softmax_cross_entropy": lambda tf, n: tf.nn.sparse_softmax_cross_entropy_with_logits(
        tf.range(n) % 3, tf.ones([n, 3]) * tf.range(3.0)),
    "unsorted_segment_sum": lambda tf, n: tf.math.unsorted_segment_sum(tf.ones([n, 2]), tf.range(n) % 2, 3),
    "unsorted_segment_max": lambda tf, n: tf.math.unsorted_segment_max(tf.ones([2, n]), [1, 0], 2),
    "broadcast_to_fixed_target": lambda tf, n: tf.broadcast_to(tf.ones([tf.minimum(n, 1), 4]), [3, 4]),
}


@pytest.mark.parametrize("name", sorted(READ_VALUE_SHAPES))
def test_functions_of_value_shaped_tensors_follow_each_call(name):
    check(_calls(READ_VALUE_SHAPES[name], VALUES))


def test_labels_out_of_range_in_a_later_call_raise():
    check(_calls(lambda tf, n: tf.nn.sparse_softmax_cross_entropy_with_logits(tf.stack([0, n]), tf.ones([2, 3])),
                 [1, 5]))


def test_negative_paddings_in_a_later_call_raise():
    check(_calls(lambda tf, n: tf.pad(tf.constant(X), tf.stack([[n, 0], [0, 1]])), [1, -1]))


# MirrorPad (REFLECT / SYMMETRIC) of value-shaped inputs or by paddings from values (round 3 pinned its paddings).
MIRROR_PADS = {
    "reflect_value_shaped": (lambda tf, n: tf.pad(tf.reshape(tf.range(n * 3), [n, 3]), [[1, 1], [0, 2]], "REFLECT"),
                             [3, 4, 2]),
    "symmetric_value_shaped": (lambda tf, n: tf.pad(tf.reshape(tf.range(n * 2.0), [n, 2]), [[2, 1], [1, 0]],
                                                    "SYMMETRIC"), [3, 4, 2, 1]),
    "reflect_paddings": (lambda tf, n: tf.pad(tf.constant(X), tf.stack([[n, 0], [0, n + 1]]), "REFLECT"), [1, 2, 3, 0]),
    "symmetric_paddings": (lambda tf, n: tf.pad(tf.constant(X), tf.stack([[0, n], [n, 1]]), "symmetric"), [2, 4, 0]),
    "paddings_too_large_later": (lambda tf, n: tf.pad(tf.constant(X), tf.stack([[n, 0], [0, 0]]), "REFLECT"), [1, 4]),
    "empty_dim_later": (lambda tf, n: tf.pad(tf.zeros([n, 3]), [[0, 0], [1, 1]], "REFLECT"), [2, 0]),
}


@pytest.mark.parametrize("name", sorted(MIRROR_PADS))
def test_mirror_pads_follow_each_calls_shapes_and_paddings(name):
    check(_calls(*MIRROR_PADS[name]))


def test_broadcast_to_an_incompatible_shape_in_a_later_call_raises():
    check(_calls(lambda tf, n: tf.broadcast_to(tf.ones([n, 1]), [3, 4]), [3, 1, 2]))


# Arguments that round 2 read once per trace and that now follow each call's values.
FOLLOWED = {
    "num_segments": lambda tf, n: tf.math.unsorted_segment_sum(tf.constant(X), [0, 1, 1, 0], n),
    "num_segments_mean": lambda tf, n: tf.math.unsorted_segment_mean(tf.constant(X), [0, 1, 1, 0], n),
    "num_segments_prod": lambda tf, n: tf.math.unsorted_segment_prod(tf.constant(X), [0, 1, -1, 0], n),
    "paddings": lambda tf, n: tf.pad(tf.constant(X), tf.stack([[n, 0], [0, n + 1]]), constant_values=-1.0),
}


@pytest.mark.parametrize("name", sorted(FOLLOWED))
def test_arguments_follow_each_calls_value(name):
    check(_calls(FOLLOWED[name], [2, 3, 5, 1]))


# Losses over a tensor whose first dim follows the argument: gradients inside the function, traced at n=3.
GRADIENTS = {
    "mean": lambda tf, y: tf.reduce_sum(tf.reduce_mean(y, 1) ** 2),
    "sum_axis0": lambda tf, y: tf.reduce_sum(tf.reduce_sum(y, 0) ** 2),
    "logsumexp": lambda tf, y: tf.reduce_sum(tf.reduce_logsumexp(y, 0)),
    "max": lambda tf, y: tf.reduce_max(y),
    "max_axis1": lambda tf, y: tf.reduce_sum(tf.reduce_max(y, 1)),
    "matmul": lambda tf, y: tf.reduce_sum(tf.matmul(y, y, transpose_a=True)),
    "concat": lambda tf, y: tf.reduce_sum(tf.concat([y, y * 2.0], 0) ** 2),
    "reshape": lambda tf, y: tf.reduce_sum(tf.reshape(y, [-1]) ** 2),
    "l2_loss": lambda tf, y: tf.nn.l2_loss(y),
    "moments": lambda tf, y: tf.reduce_sum(tf.nn.moments(y, [0])[1]),
    "prod": lambda tf, y: tf.reduce_sum(tf.reduce_prod(y + 1.0, 0)),
    "stack": lambda tf, y: tf.reduce_sum(tf.stack([y, y]) ** 2),
    "expand_dims": lambda tf, y: tf.reduce_sum(tf.expand_dims(y, 0) ** 2),
    "elementwise": lambda tf, y: tf.reduce_sum(tf.exp(y * 0.1) - tf.tanh(y)),
}


def _gradient_case(loss, values):
    def case(tf):
        w = tf.Variable(np.arange(3, dtype=np.float32) / 3)

        def step(n):
            with tf.GradientTape() as tape:
                y = tf.ones([n, 3]) * tf.cast(tf.range(n), tf.float32)[:, None] * w
                value = loss(tf, y)
            return value, tape.gradient(value, w)

        f = tf.function(step, autograph=False)
        return [f(tf.constant(v)) for v in values]
    return case


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_through_value_shaped_tensors_follow_each_call(name):
    check(_gradient_case(GRADIENTS[name], [3, 1, 4, 0]), rtol=1e-4)


# Gradients whose makers round 3 guarded (an error on a later call with other shapes): now each call's.
MOVED_GRADIENTS = {
    "slice": lambda tf, y: tf.reduce_sum(y[1:, :2] ** 2),
    "slice_negative_step": lambda tf, y: tf.reduce_sum(y[::-2, 1:] ** 2),
    "slice_from_value": lambda tf, y: tf.reduce_sum(tf.slice(y, tf.stack([tf.shape(y)[0] // 2, 1]), [-1, 2]) ** 2),
    "pad": lambda tf, y: tf.reduce_sum(tf.pad(y, [[1, 0], [0, 1]]) ** 2),
    "pad_from_value": lambda tf, y: tf.reduce_sum(tf.pad(y, tf.stack([[tf.shape(y)[0], 0], [0, 1]])) ** 2),
    "pad_symmetric": lambda tf, y: tf.reduce_sum(tf.pad(y, [[1, 0], [0, 1]], "SYMMETRIC") ** 2),
    "gather": lambda tf, y: tf.reduce_sum(tf.gather(y, [0, 2, 2], axis=1) ** 2),
    "gather_rows": lambda tf, y: tf.reduce_sum(tf.gather(y, tf.range(tf.shape(y)[0]) // 2) ** 2),
    "tile": lambda tf, y: tf.reduce_sum(tf.tile(y, [2, 3]) ** 2 * tf.range(9.0)),
    "tile_from_value": lambda tf, y: tf.reduce_sum(tf.tile(y[:1], tf.stack([tf.shape(y)[0], 1])) ** 2),
    "softmax": lambda tf, y: tf.reduce_sum(tf.nn.softmax(y) * tf.range(3.0)),
    "softmax_axis0": lambda tf, y: tf.reduce_sum(tf.nn.softmax(y, axis=0) ** 2),
    "log_softmax": lambda tf, y: tf.reduce_sum(tf.nn.log_softmax(y) * tf.range(3.0)),
    "softmax_cross_entropy": lambda tf, y: tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(
        tf.nn.softmax(y * 2.0), y)),
    "sparse_softmax_cross_entropy": lambda tf, y: tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(
        tf.range(tf.shape(y)[0]) % 3, y)),
    "where": lambda tf, y: tf.reduce_sum(tf.where(y > 0.5, y, y * y)),
    "where_broadcast": lambda tf, y: tf.reduce_sum(tf.where(y > 0.5, y, tf.ones([1, 3]))),
}


@pytest.mark.parametrize("name", sorted(MOVED_GRADIENTS))
def test_gradients_of_slices_pads_gathers_tiles_softmax_where_follow_each_call(name):
    check(_gradient_case(MOVED_GRADIENTS[name], [3, 1, 4, 0]), rtol=1e-4)


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
def test_gradients_of_mirror_pads_follow_each_call(mode):
    check(_gradient_case(lambda tf, y: tf.reduce_sum(tf.pad(y, [[1, 1], [2, 0]], mode) ** 2 * tf.range(5.0)),
                         [3, 2, 4]), rtol=1e-4)


def test_gradients_vfw_computes_for_traced_shapes_raise_for_other_shapes():
    """Where a gradient maker keeps the traced shapes (TF computes them at each call), a later call with other shapes
    raises InvalidArgumentError: never a gradient computed silently for the traced shapes."""
    loss = GRADIENTS["moments"]
    check(_gradient_case(loss, [1]))  # the traced call: TF's results
    with pytest.raises(vtf.errors.InvalidArgumentError, match="traced for shape"):
        _gradient_case(loss, [1, 3])(vtf)


def _seeded_case(target_rows, seed, values):
    """Gradients with ``output_gradients=seed(tf, n)`` of a target of ``target_rows(tf, n)`` rows, traced once."""
    def case(tf):
        w = tf.Variable([1.0, 2.0, 3.0])

        def step(n):
            with tf.GradientTape() as tape:
                y = tf.ones(tf.stack([target_rows(tf, n), 3])) * w * w
            return tape.gradient(y, w, output_gradients=seed(tf, n))

        f = tf.function(step, autograph=False)
        return [f(tf.constant(v)) for v in values]
    return case


SEEDS = {
    "scalar_value_shaped_target": (lambda tf, n: n, lambda tf, n: tf.constant(2.0)),
    "row_value_shaped_target": (lambda tf, n: n, lambda tf, n: tf.constant([[1.0, 2.0, 3.0]])),
    "column_value_shaped_both": (lambda tf, n: n, lambda tf, n: tf.ones(tf.stack([n, 1])) * 0.5),
    "value_shaped_seed_fixed_target": (lambda tf, n: 2, lambda tf, n: tf.ones(tf.stack([tf.minimum(n, 2), 3]))),
}


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_output_gradients_broadcast_to_each_calls_target_shape(name):
    """Round 3 broadcast output gradients to the traced target shape: a later call silently used that shape."""
    check(_seeded_case(*SEEDS[name], [2, 3, 1, 0]))


def test_output_gradients_that_do_not_broadcast_in_a_later_call_raise():
    check(_seeded_case(lambda tf, n: 2, lambda tf, n: tf.ones(tf.stack([n, 3])), [2, 3]))


PYTHON_VALUES = {
    "int_of_constant": lambda tf, x: int(tf.constant(3)),
    "float_of_constant": lambda tf, x: float(tf.constant(3.0)),
    "index_of_constant": lambda tf, x: [1, 2, 3][tf.constant(1)],
    "asarray_of_constant": lambda tf, x: np.asarray(tf.constant([1, 2])),
    "asarray_of_shape": lambda tf, x: np.asarray(tf.shape(x)),
    "int_of_captured_eager_tensor": lambda tf, x: tf.constant(int(x)) * 2,
}

VARIABLE_PYTHON_VALUES = {
    "int": lambda v: int(v),
    "float": lambda v: float(v),
    "complex": lambda v: complex(v),
}


@pytest.mark.parametrize("name", sorted(VARIABLE_PYTHON_VALUES))
def test_python_values_of_variables_inside_a_function_raise(name):
    """Round 3 gave the traced value (which every later call kept); TF's reads of a variable are symbolic there."""
    def case(tf):
        v = tf.Variable(3)
        eager = VARIABLE_PYTHON_VALUES[name](v)
        return eager, tf.function(lambda: VARIABLE_PYTHON_VALUES[name](v), autograph=False)()
    check(case)


@pytest.mark.parametrize("name", sorted(PYTHON_VALUES))
def test_python_values_of_tensors_made_inside_raise_captured_ones_do_not(name):
    def case(tf):
        captured = tf.constant(4)
        return tf.function(lambda: PYTHON_VALUES[name](tf, captured), autograph=False)()
    check(case)
