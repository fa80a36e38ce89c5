"""tf.function's trace selection for Python number arguments against TF 2.21: a trace is keyed by the literal's
value, so equal numbers of other types (``2`` and ``2.0``, ``1`` and ``True``) reuse the first one's trace (its
results, its tracing count, no second run of the Python function)."""

from compat_tests.tensorflow.harness import check


def test_equal_numbers_of_other_types_share_a_trace():
    def case(tf):
        traced = []

        @tf.function
        def scale(x, k):
            traced.append(type(k).__name__)
            return x * k, tf.constant(k)

        results = [scale(tf.constant(3.0), k) for k in (2, 2.0, True, 1, 1.0, 2.5, 0, False, 0.0)]
        return results, scale.experimental_get_tracing_count(), traced
    check(case)


def test_numbers_inside_nested_arguments():
    def case(tf):
        @tf.function
        def pack(pair, options):
            return tf.constant(pair) * options["gain"]

        results = [pack((1, 2), {"gain": 3}), pack((1.0, 2.0), {"gain": 3.0}), pack([1, 2], {"gain": 3}),
                   pack((1, 2), {"gain": 4})]
        return results, pack.experimental_get_tracing_count()
    check(case)
