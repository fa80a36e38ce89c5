"""Small torch.* functions, legacy Tensor methods and window functions against real torch 2.13."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt

X = arrays((2, 3), seed=11)

CASES = [
    ("fill_number", lambda t, x: t.fill(x, 2.5)),
    ("fill_tensor", lambda t, x: t.fill(x, t.tensor(3, dtype=t.int64))),
    ("fill_1d_value", lambda t, x: t.fill(x, t.tensor([3.0]))),
    ("fill_", lambda t, x: t.fill_(x.clone(), -1)),
    ("fill__1d_value", lambda t, x: t.fill_(x.clone(), t.tensor([1.0, 2.0]))),
    ("zero_", lambda t, x: t.zero_(x.clone())),
    ("detach", lambda t, x: (t.detach(x), t.detach(x).requires_grad)),
    ("detach_", lambda t, x: t.detach_(x.clone())),
    ("queries", lambda t, x: (t.is_conj(x), t.is_neg(x), t.is_inference(x), t.is_signed(x),
                              t.is_signed(x.to(t.uint8)), t.is_same_size(x, x.T), t.is_same_size(x, x * 2),
                              t.get_device(x), x.is_conj(), x.is_neg())),
    ("is_conj_not_tensor", lambda t, x: t.is_conj(1.0)),
    ("resize_as_", lambda t, x: t.resize_as_(x.clone(), t.ones(3))),
    ("constant_pad_nd", lambda t, x: t.constant_pad_nd(x, [1, 2], 5.0)),
    ("constant_pad_nd_crop", lambda t, x: t.constant_pad_nd(x, [1, 2, -1, 0])),
    ("warn_always", lambda t, x: _warn_always(t)),
    ("apply_", lambda t, x: x.clone().apply_(lambda v: v * 2 + 1)),
    ("apply_int", lambda t, x: (x * 10).long().apply_(lambda v: v // 3)),
    ("apply_requires_grad", lambda t, x: x.clone().requires_grad_().apply_(lambda v: v)),
    ("map_", lambda t, x: x.clone().map_(x[0], lambda a, b: a * b - 1)),
    ("map2_", lambda t, x: x.clone().map2_(x, x[:, :1], lambda a, b, c: a + b * c)),
    ("new_empty", lambda t, x: x.new().shape),
    ("new_sizes", lambda t, x: (x.new(2, 3).shape, x.new(2, 3).dtype, x.long().new(4).dtype)),
    ("new_size", lambda t, x: x.new(t.Size([4, 1])).shape),
    ("new_data", lambda t, x: (x.new([1, 2]), x.long().new([[1.7, 2]]))),
    ("new_tensor_same_dtype", lambda t, x: x.new(x)),
    ("new_tensor_other_dtype", lambda t, x: x.new(x.long())),
    ("resize_same_count", lambda t, x: x.resize(3, 2)),
    ("resize_other_count", lambda t, x: x.resize(4)),
    ("resize_as_method", lambda t, x: x.resize_as(t.ones(6))),
    ("set_", lambda t, x: _set(t, x)),
    ("set_empty", lambda t, x: t.ones(3).set_()),
    ("set_other_dtype", lambda t, x: t.ones(3).set_(x.long())),
]


def _warn_always(torch):
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    during = torch.is_warn_always_enabled()
    torch.set_warn_always(False)
    return before, during, torch.is_warn_always_enabled(), torch.set_flush_denormal(False)


def _set(torch, x):
    target = torch.ones(3)
    target.set_(x)
    x[0, 0] = 100.0  # shares memory with x
    return target, target.shape


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_misc(name, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(fn, X)


def test_fill_with_tensor_value_is_differentiable():
    check_grad(lambda t, x, v: t.fill(x, v[0, 0]) * x, X, arrays((1, 1), seed=2))


def test_deprecated_resize_warns():
    for torch in (real, vt):
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            torch.ones(2, 2).resize(4)


def test_set_default_tensor_type():
    results = []
    for torch in (real, vt):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                torch.set_default_tensor_type(torch.DoubleTensor)
                double = torch.ones(1).dtype
                torch.set_default_tensor_type("torch.FloatTensor")
            errors = []
            for bad in (torch.LongTensor, "torch.Foo"):
                try:
                    torch.set_default_tensor_type(bad)
                except (TypeError, AttributeError) as e:
                    errors.append(type(e).__name__)
            results.append((str(double), str(torch.ones(1).dtype), errors,
                            [str(w.message).split(" (Triggered internally")[0] for w in caught]))
        finally:
            torch.set_default_dtype(torch.float32)
    assert results[0] == results[1]


WINDOWS = ["hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("length", [0, 1, 2, 5, 8, 33])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, length, periodic):
    check(lambda t: getattr(t, name)(length, periodic))
    check(lambda t: getattr(t, name)(length, periodic=periodic, dtype=t.float64))


@pytest.mark.parametrize("call", [
    lambda t: t.hamming_window(9, False, 0.5, 0.3), lambda t: t.hamming_window(6, True, alpha=0.6),
    lambda t: t.kaiser_window(9, beta=5.0), lambda t: t.kaiser_window(10, False, 0.5, dtype=t.float64),
    lambda t: t.hann_window(4, dtype=t.float16), lambda t: t.blackman_window(7, dtype=t.bfloat16),
    lambda t: t.hann_window(3, requires_grad=True).requires_grad,
    lambda t: t.hann_window(-1), lambda t: t.hann_window(3, dtype=t.int64), lambda t: t.bartlett_window(3.0),
])
def test_window_options_and_errors(call):
    check(call)


def test_windows_agree_with_numpy():
    for torch_name, numpy_fn in (("hann_window", np.hanning), ("hamming_window", np.hamming),
                                 ("bartlett_window", np.bartlett), ("blackman_window", np.blackman)):
        np.testing.assert_allclose(getattr(vt, torch_name)(12, False, dtype=vt.float64).numpy(), numpy_fn(12),
                                   atol=1e-15)
    np.testing.assert_allclose(vt.kaiser_window(12, False, 3.0, dtype=vt.float64).numpy(), np.kaiser(12, 3.0),
                               rtol=1e-14)
