"""tf.test against real TF: compute_gradient's Jacobians (real and complex arguments), TestCase's array assertions
passing and failing on the same inputs, the build queries; and GradientTape watching complex tensors."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import real, vtf

BOTH = [real, vtf]


def _jacobians(tf, f, args, delta=None):
    theoretical, numeric = tf.test.compute_gradient(lambda *a: f(tf, *a), args, delta)
    return theoretical, numeric


GRADIENT_CASES = {
    "sum-of-squares": (lambda tf, x, y: tf.reduce_sum(x * x, axis=1) * y,
                       [np.array([[1., 2.], [3., 4.]], np.float32), np.float32(3.)]),
    "exp-float64": (lambda tf, x: tf.exp(x), [np.array([0.5, -1.0])]),
    "matmul": (lambda tf, a, b: tf.matmul(a, b), [np.arange(6, dtype=np.float32).reshape(2, 3) / 7,
                                                 np.ones((3, 2), np.float32)]),
    "complex": (lambda tf, z: z * tf.math.conj(z) + z * z, [np.array([1 + 2j, 0.5 - 1j], np.complex64)]),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_compute_gradient_gives_tfs_jacobians(name):
    f, args = GRADIENT_CASES[name]
    expected = _jacobians(real, f, args)
    got = _jacobians(vtf, f, args)
    for kind in range(2):
        assert len(got[kind]) == len(expected[kind])
        for g, e in zip(got[kind], expected[kind]):
            assert g.shape == e.shape and g.dtype == e.dtype
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("tf", BOTH, ids=["real", "vfw"])
def test_compute_gradient_refuses_a_bare_argument(tf):
    with pytest.raises(ValueError, match="must be a list or tuple"):
        tf.test.compute_gradient(tf.exp, np.ones(2))


@pytest.mark.parametrize("tf", BOTH, ids=["real", "vfw"])
def test_build_queries_of_a_cpu_build(tf):
    assert (tf.test.is_built_with_cuda(), tf.test.is_built_with_rocm(), tf.test.is_built_with_gpu_support(),
            tf.test.gpu_device_name(), tf.test.is_built_with_xla()) == (False, False, False, "", True)
    assert tf.test.is_gpu_available() is False


ASSERTIONS = [
    ("assertAllClose", ([1.0, 2.0], np.array([1.0, 2.0 + 1e-7]))),
    ("assertAllClose", ([1.0, 2.0], [1.0, 2.1])),
    ("assertAllClose", ({"a": [1.0], "b": (2.0, [3.0])}, {"a": [1.0], "b": (2.0, [3.0])})),
    ("assertAllClose", ({"a": [1.0]}, {"b": [1.0]})),
    ("assertAllClose", (np.ones((2, 1)), np.ones((1, 2)))),
    ("assertAllClose", ([float("nan")], [float("nan")])),
    ("assertNotAllClose", ([1.0], [1.5])),
    ("assertNotAllClose", ([1.0], [1.0])),
    ("assertAllEqual", ([1, 2], np.array([1, 2]))),
    ("assertAllEqual", ([1, 2], [1, 3])),
    ("assertAllEqual", ([[1, 2]], [1, 2])),
    ("assertNotAllEqual", ([1, 2], [1, 3])),
    ("assertAllGreater", ([2, 3], 1)),
    ("assertAllGreater", ([2, 3], 2)),
    ("assertAllLessEqual", ([2, 3], 3)),
    ("assertAllInRange", ([0.0, 1.0], 0.0, 1.0)),
    ("assertAllInRange", ([0.0, 1.0], 0.0, 1.0, True)),
    ("assertAllInSet", ([1, 2, 2], {1, 2})),
    ("assertAllInSet", ([1, 5], [1, 2])),
    ("assertNear", (1.0, 1.05, 0.1)),
    ("assertNear", (1.0, 1.5, 0.1)),
    ("assertArrayNear", ([1.0, 2.0], [1.01, 2.0], 0.05)),
    ("assertAllCloseAccordingToType", (np.array([1.0], np.float16), np.array([1.0005], np.float16))),
]


def _outcome(tf, name, args):
    case = tf.test.TestCase()
    converted = tuple(tf.constant(a) if isinstance(a, np.ndarray) else a for a in args)
    try:
        getattr(case, name)(*converted)
        return "passed"
    except AssertionError:
        return "failed"


@pytest.mark.parametrize("index", range(len(ASSERTIONS)), ids=[f"{n}-{i}" for i, (n, _) in enumerate(ASSERTIONS)])
def test_test_case_assertions_pass_and_fail_as_tfs(index):
    name, args = ASSERTIONS[index]
    assert _outcome(vtf, name, args) == _outcome(real, name, args)


@pytest.mark.parametrize("tf", BOTH, ids=["real", "vfw"])
def test_test_case_evaluates_nested_tensors_and_matches_op_errors(tf):
    case = tf.test.TestCase()
    values = case.evaluate({"a": tf.constant([1, 2]), "b": [tf.constant(3.0)]})
    assert values["a"].tolist() == [1, 2] and values["b"][0] == 3.0
    with case.assertRaisesOpError("Incompatible shapes|must be broadcastable"):
        tf.constant([1, 2]) + tf.constant([1, 2, 3])


def test_tape_watches_complex_tensors_and_variables_as_tf():
    data = np.array([1 + 2j, 0.5 - 1j], np.complex128)
    results = []
    for tf in BOTH:
        v = tf.Variable(data)
        z = tf.constant(data.astype(np.complex64))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(z)
            y = tf.reduce_sum(v * v + tf.exp(v))
            w = tf.reduce_sum(z * tf.math.conj(z))
        results.append((tape.gradient(y, v).numpy(), tape.gradient(w, z).numpy()))
    for got, expected in zip(results[1], results[0]):
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-6)
