"""tf.test: TensorFlow's test case (unittest with array assertions), gradient checking, and build queries of a
CPU-only build."""

import contextlib
import functools
import logging
import os
import sys
import tempfile
import unittest

import numpy as np

from vfw.frontends.tensorflow import nest

_warned = set()


def _deprecated(name, instead):
    if name in _warned:
        return
    _warned.add(name)
    caller = sys._getframe(2)
    logging.getLogger("tensorflow").warning(
        "From %s:%d: %s (from tensorflow.python.framework.test_util) is deprecated and will be removed in a future "
        "version.\nInstructions for updating:\n%s", caller.f_code.co_filename, caller.f_lineno, name, instead)


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """bool: False (no GPU; deprecated in TF for ``tf.config.list_physical_devices('GPU')``)."""
    _deprecated("is_gpu_available", "Use `tf.config.list_physical_devices('GPU')` instead.")
    return False


def is_built_with_cuda():
    """bool: False (a CPU-only build)."""
    return False


def is_built_with_rocm():
    """bool: False (a CPU-only build)."""
    return False


def is_built_with_gpu_support():
    """bool: False (a CPU-only build)."""
    return False


def is_built_with_xla():
    """bool: True, as TF's CPU wheels report."""
    return True


def gpu_device_name():
    """str: the name of a GPU device, ``''`` when there is none (always here)."""
    return ""


def main(argv=None):
    """Run the test cases of ``__main__`` (unittest's runner)."""
    unittest.main(argv=argv)


def with_eager_op_as_function(cls=None, only_as_function=False):
    """A class decorator of TF's own test suites; the tests run as they are."""
    return cls if cls is not None else (lambda c: c)


def disable_with_predicate(pred, skip_message):
    """Skip the decorated test when ``pred()`` is true."""
    def decorator(func):
        @functools.wraps(func)
        def wrapper(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            return func(self, *args, **kwargs)
        return wrapper
    return decorator


# ------------------------------------------------------------------------------------- gradient check


def compute_gradient(f, x, delta=None):
    """The theoretical and numeric Jacobians of ``f`` at the arguments ``x``.

    Parameters
    ----------
    f : callable
        ``f(*x)`` returns one tensor.
    x : list or tuple
        The arguments (values convertible to tensors).
    delta : float, optional
        The perturbation of the central differences (default ``1 / 1024``).

    Returns
    -------
    tuple
        ``(theoretical, numeric)``: tuples with one ``(y_size, x_size)`` numpy array per argument (complex values
        count as two real entries each).
    """
    from vfw.frontends.tensorflow import _gradients, convert_to_tensor

    if not isinstance(x, (list, tuple)):
        raise ValueError("`x` must be a list or tuple of values convertible to a Tensor (arguments to `f`), not a "
                         f"{type(x)}")
    delta = 1.0 / 1024 if delta is None else delta
    xs = [convert_to_tensor(v) for v in x]
    y = f(*xs)
    pairs = [(_theoretical(f, y, xs, i, _gradients.GradientTape, convert_to_tensor),
              _numeric(f, y, xs, i, delta, convert_to_tensor)) for i in range(len(xs))]
    return tuple(zip(*pairs))


def _real_view(array):
    """The elements of the C-contiguous ``array`` as a flat view, complex ones as (real, imaginary) pairs."""
    flat = array.reshape(-1)
    return flat.view(flat.real.dtype) if np.iscomplexobj(flat) else flat


def _theoretical(f, y, xs, param, tape_class, convert):
    """Row ``r`` of the Jacobian: the gradient of ``f`` for an output gradient with one 1 at (real) entry ``r``."""
    x = xs[param]
    x_size = int(np.prod(x.shape)) * (2 if x.dtype.is_complex else 1)
    y_size = int(np.prod(y.shape)) * (2 if y.dtype.is_complex else 1)
    jacobian = np.zeros((y_size, x_size), x.dtype.real_dtype.as_numpy_dtype)
    dy = np.zeros(tuple(y.shape), y.dtype.as_numpy_dtype)
    flat = _real_view(dy)
    for row in range(y_size):
        flat[row] = 1
        with tape_class() as tape:
            tape.watch(x)
            out = f(*xs)
        grad = tape.gradient(out, x, output_gradients=convert(dy))
        if grad is not None:
            jacobian[row, :] = _real_view(np.ascontiguousarray(convert(grad).numpy()))
        flat[row] = 0
    return jacobian


def _numeric(f, y, xs, param, delta, convert):
    """Column ``c`` of the Jacobian: central differences of ``f`` moving (real) entry ``c`` of the argument."""
    arrays = [np.array(v.numpy()) for v in xs]  # copies, perturbed in place
    flat = _real_view(arrays[param])
    scale = np.asarray(2 * delta, y.dtype.real_dtype.as_numpy_dtype)[()]
    y_size = int(np.prod(y.shape)) * (2 if y.dtype.is_complex else 1)
    jacobian = np.zeros((y_size, flat.size), flat.dtype)
    for col in range(flat.size):
        original = flat[col]
        flat[col] += delta
        positive = np.asarray(f(*[convert(a) for a in arrays]).numpy())
        flat[col] = original
        flat[col] -= delta
        negative = np.asarray(f(*[convert(a) for a in arrays]).numpy())
        flat[col] = original
        jacobian[:, col] = _real_view(np.ascontiguousarray((positive - negative) / scale))
    return jacobian


# ------------------------------------------------------------------------------------------ test case


def _ndarray(value):
    if hasattr(value, "numpy"):
        value = value.numpy()
    return np.asarray(value)


_HALF_TOLERANCE = {"float16": 1e-3, "bfloat16": 1e-2}


class TestCase(unittest.TestCase):
    """``unittest.TestCase`` with TensorFlow's array assertions; tensors are compared by value (eager)."""

    def get_temp_dir(self):
        """str: a temporary directory for this test."""
        if not hasattr(self, "_tempdir"):
            self._tempdir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        return self._tempdir

    def evaluate(self, tensors):
        """The numpy values of ``tensors`` (any nested structure)."""
        return nest.map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else t, tensors)

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A context with no session (TF 2 runs eagerly): ``self.evaluate`` reads values."""
        yield None

    session = test_session = cached_session

    # -- closeness ------------------------------------------------------------------------------
    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Assert that the (nested) values ``a`` and ``b`` have equal structure, shapes and close values."""
        self._assert_close_recursive(a, b, rtol, atol, [], msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,
                                      half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        """``assertAllClose`` with the looser tolerances of the less precise of the two dtypes."""
        a, b = _ndarray(a), _ndarray(b)
        names = {str(a.dtype), str(b.dtype)}
        if names & {"float32", "complex64"}:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if "float16" in names:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if "bfloat16" in names:
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Assert that ``a`` and ``b`` are not all close."""
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are close at all elements")

    def _assert_close_recursive(self, a, b, rtol, atol, path, msg):
        where = "[" + "][".join(str(p) for p in path) + "]" if path else ""
        if isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)):
                raise AssertionError(f"Can't compare dict to non-dict, a{where} vs b{where}. {msg or ''}")
            self.assertEqual(set(a), set(b), f"mismatched keys: a{where} has keys {sorted(a)}, but b{where} has "
                                             f"keys {sorted(b)}. {msg or ''}")
            for key in a:
                self._assert_close_recursive(a[key], b[key], rtol, atol, path + [key], msg)
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and not _numeric_sequence(a, b):
            self.assertEqual(len(a), len(b), f"Length of a{where} is {len(a)} but length of b{where} is {len(b)}. "
                                             f"{msg or ''}")
            for i, (x, y) in enumerate(zip(a, b)):
                self._assert_close_recursive(x, y, rtol, atol, path + [i], msg)
            return
        x, y = _ndarray(a), _ndarray(b)
        self.assertEqual(x.shape, y.shape, f"Shape mismatch: expected {x.shape}, got {y.shape} with contents {y}.")
        if x.dtype.kind in "fc" or y.dtype.kind in "fc":
            x, y = x.astype(np.result_type(x.dtype, np.float32)), y.astype(np.result_type(y.dtype, np.float32))
        np.testing.assert_allclose(y, x, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=f"Mismatched value: a{where} is different from b{where}. {msg or ''}")

    # -- equality -------------------------------------------------------------------------------
    def assertAllEqual(self, a, b, msg=None):
        """Assert that ``a`` and ``b`` have the same shape and elements (NaNs in the same places count as equal)."""
        x, y = _ndarray(a), _ndarray(b)
        if x.shape != y.shape and x.size and y.size:
            raise AssertionError(f"Shape mismatch: expected {x.shape}, got {y.shape} with contents {y}. {msg or ''}")
        same = x == y
        if x.dtype.kind in "fc" and y.dtype.kind in "fc":
            same = np.logical_or(same, np.logical_and(np.isnan(x), np.isnan(y)))
        if not np.all(same):
            np.testing.assert_array_equal(x, y, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None):
        """Assert that ``a`` and ``b`` differ somewhere."""
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are equal at all elements")

    def assertShapeEqual(self, input_a, input_b, msg=None):
        """Assert that a numpy array and a tensor have the same shape."""
        self.assertEqual(tuple(_ndarray(input_a).shape), tuple(input_b.shape), msg)

    def assertDTypeEqual(self, target, expected_dtype):
        """Assert that every element of ``target`` has ``expected_dtype``."""
        expected = np.dtype(getattr(expected_dtype, "as_numpy_dtype", expected_dtype))
        for value in nest.flatten(target):
            self.assertEqual(_ndarray(value).dtype, expected)

    # -- comparisons ----------------------------------------------------------------------------
    def _assert_all(self, a, ok, text):
        values = _ndarray(a)
        if not np.all(ok(values)):
            raise AssertionError(f"{values} {text}")

    def assertAllGreater(self, a, comparison_target):
        """Assert that every element of ``a`` is greater than ``comparison_target``."""
        self._assert_all(a, lambda v: v > comparison_target, f"is not all greater than {comparison_target}")

    def assertAllGreaterEqual(self, a, comparison_target):
        """Assert that every element of ``a`` is at least ``comparison_target``."""
        self._assert_all(a, lambda v: v >= comparison_target, f"is not all >= {comparison_target}")

    def assertAllLess(self, a, comparison_target):
        """Assert that every element of ``a`` is less than ``comparison_target``."""
        self._assert_all(a, lambda v: v < comparison_target, f"is not all less than {comparison_target}")

    def assertAllLessEqual(self, a, comparison_target):
        """Assert that every element of ``a`` is at most ``comparison_target``."""
        self._assert_all(a, lambda v: v <= comparison_target, f"is not all <= {comparison_target}")

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False, open_upper_bound=False):
        """Assert that every element of ``target`` lies between the bounds (closed unless said open)."""
        def ok(v):
            low = v > lower_bound if open_lower_bound else v >= lower_bound
            high = v < upper_bound if open_upper_bound else v <= upper_bound
            return low & high
        self._assert_all(target, ok, f"is not all in range {'(' if open_lower_bound else '['}{lower_bound}, "
                                     f"{upper_bound}{')' if open_upper_bound else ']'}")

    def assertAllInSet(self, target, expected_set):
        """Assert that every element of ``target`` is in ``expected_set``."""
        values = _ndarray(target)
        missing = set(np.unique(values).tolist()) - set(expected_set)
        if missing:
            raise AssertionError(f"{len(missing)} unique element(s) are not in the set {expected_set}: {missing}")

    def assertNear(self, f1, f2, err, msg=None):
        """Assert that the floats ``f1`` and ``f2`` are within ``err`` of each other."""
        if not (f1 == f2 or abs(f1 - f2) <= err):
            raise AssertionError(f"{f1} != {f2} +/- {err}{' (' + msg + ')' if msg else ''}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        """Assert that two float lists are elementwise within ``err``."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):
        """Assert that two arrays are within ``err`` of each other (both ways of ``allclose``)."""
        self.assertTrue(np.linalg.norm(_ndarray(ndarray1) - _ndarray(ndarray2)) <= err, msg=msg)

    # -- errors ---------------------------------------------------------------------------------
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
        """A context asserting that ``exception_type`` is raised with a message matching the regex (or the
        predicate holding for the exception)."""
        import re

        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(error):
                return re.search(expected_err_re_or_predicate, str(error)) is not None
        return _RaisesMatching(self, exception_type, predicate, expected_err_re_or_predicate)

    def assertRaisesOpError(self, expected_err_re_or_predicate):
        """A context asserting that a ``tf.errors.OpError`` matching the regex is raised."""
        from vfw.frontends.tensorflow import errors

        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)


def _numeric_sequence(a, b):
    """Whether two lists/tuples are plain numbers (compared as arrays, not element by element)."""
    def plain(seq):
        return all(isinstance(v, (int, float, complex, np.number, bool)) for v in seq)
    return plain(a) and plain(b)


class _RaisesMatching:
    def __init__(self, case, exception_type, predicate, expected):
        self.case, self.exception_type, self.predicate, self.expected = case, exception_type, predicate, expected

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            raise AssertionError(f"Exception of type {self.exception_type} not raised")
        if not issubclass(kind, self.exception_type) or not self.predicate(value):
            raise AssertionError(f"Exception of type {kind}: {value} does not match {self.expected!r}")
        return True
