"""vfw.torch random numbers against real torch.

rand, randn, normal, randint, random_, randperm, uniform_ and normal_ follow torch's own
algorithms on torch's Mersenne Twister stream, so seeded draws are compared value by value
(test_seeded_draws_match_torch), as are bernoulli with tensor probabilities, exponential_, cauchy_
and geometric_ (multinomial and in-place fills of views: test_random_multinomial.py,
test_random_views.py).  Other distributions (poisson, binomial: test_count_samplers.py) draw
differently: for them only what does not depend on the bit stream is compared (shapes,
dtypes, errors, zero gradients, fixed values), and distributions are checked statistically
against exact moments and CDFs on large fixed-seed samples (the same checks run on real
torch, which validates them). Seeding, states and generators are checked for
reproducibility.
"""

import copy
import math
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vfw
from compat_tests.torch.harness import check, real, vt

LIBS = pytest.mark.parametrize("lib", [real, vt], ids=["torch", "vfw"])
N = 200_000


def meta(t):
    """What of a sample torch and vfw must agree on."""
    return t.shape, t.dtype, t.requires_grad


def as_np(t):
    return t.detach().double().numpy()


# -- shapes, dtypes and errors ----------------------------------------------------------
@pytest.mark.parametrize("fn", ["rand", "randn"])
@pytest.mark.parametrize("call", [
    lambda f, torch: f(2, 3), lambda f, torch: f((2, 3)), lambda f, torch: f([2, 3]), lambda f, torch: f(size=(4,)),
    lambda f, torch: f(()), lambda f, torch: f(0, 3), lambda f, torch: f(torch.Size([3, 1])),
    lambda f, torch: f(torch.tensor(3)), lambda f, torch: f(2, dtype=torch.float64),
    lambda f, torch: f(2, dtype=torch.float16), lambda f, torch: f(2, dtype=torch.bfloat16),
    lambda f, torch: f(2, dtype=torch.int64), lambda f, torch: f(2, dtype=torch.int32),
    lambda f, torch: f(2, dtype=torch.bool), lambda f, torch: f(2, dtype=torch.uint8),
    lambda f, torch: f(2, requires_grad=True), lambda f, torch: f(2, dtype=torch.int64, requires_grad=True),
    lambda f, torch: f(2, device="cpu"), lambda f, torch: f(2, generator=torch.Generator()),
    lambda f, torch: f(), lambda f, torch: f(-1), lambda f, torch: f(2.0), lambda f, torch: f(2, generator=5),
    lambda f, torch: f((2,), torch.Generator()), lambda f, torch: f(2, size=(3,)),
])
def test_rand_randn_shapes_dtypes_errors(fn, call):
    check(lambda torch: meta(call(getattr(torch, fn), torch)))


@pytest.mark.parametrize("fn", ["rand", "randn"])
@pytest.mark.parametrize("out_dtype,dtype", [("float32", None), ("float64", None), ("float64", "float64"),
                                             ("float32", "float64"), ("int64", None)])
def test_rand_randn_out(fn, out_dtype, dtype):
    def f(torch):
        out = torch.empty(3, dtype=getattr(torch, out_dtype))
        kw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
        r = getattr(torch, fn)(2, 2, out=out, **kw)
        return r is out, meta(out)
    check(f)


@pytest.mark.parametrize("fn", ["rand_like", "randn_like"])
@pytest.mark.parametrize("dtype,kw", [("float32", {}), ("float64", {}), ("float16", {}), ("int64", {}),
                                      ("int64", {"dtype": "float32"}), ("float32", {"dtype": "float64"}),
                                      ("float32", {"requires_grad": True}), ("bool", {}),
                                      ("float32", {"dtype": "int32"})])
@pytest.mark.parametrize("shape", [(2, 3), (2, 0, 3)])
def test_like_shapes_dtypes_errors(fn, dtype, kw, shape):
    def f(torch):
        kw2 = {k: getattr(torch, v) if k == "dtype" else v for k, v in kw.items()}
        return meta(getattr(torch, fn)(torch.zeros(shape, dtype=getattr(torch, dtype)), **kw2))
    check(f)


@pytest.mark.parametrize("fn", ["rand_like", "randn_like"])
def test_like_of_grad_tensors_and_non_tensors(fn):
    check(lambda torch: meta(getattr(torch, fn)(torch.zeros((2, 3), requires_grad=True))))
    check(lambda torch: meta(getattr(torch, fn)(torch.zeros(()), dtype=torch.float64)))
    check(lambda torch: getattr(torch, fn)([1.0]))


@pytest.mark.parametrize("call", [
    lambda torch: torch.randint(10, (3,)), lambda torch: torch.randint(3, 10, (2, 2)),
    lambda torch: torch.randint(low=3, high=10, size=(3,)), lambda torch: torch.randint(high=10, size=(3,)),
    lambda torch: torch.randint(3, 10, size=(3,)), lambda torch: torch.randint(10, size=[2, 1]),
    lambda torch: torch.randint(torch.tensor(5), (3,)), lambda torch: torch.randint(5, ()),
    lambda torch: torch.randint(5, (0,)), lambda torch: torch.randint(3, (3,), dtype=torch.float32),
    lambda torch: torch.randint(2, (3,), dtype=torch.bool), lambda torch: torch.randint(3, (3,), dtype=torch.bool),
    lambda torch: torch.randint(-3, 128, (3,), dtype=torch.int8),
    lambda torch: torch.randint(300, (3,), dtype=torch.uint8),
    lambda torch: torch.randint(-3, 3, (3,), dtype=torch.uint8), lambda torch: torch.randint(-2**63, 2**63 - 1, (3,)),
    lambda torch: torch.randint(70000, (3,), dtype=torch.float16),
    lambda torch: torch.randint(3, (3,), dtype=torch.float32, requires_grad=True),
    lambda torch: torch.randint(3, (3,), requires_grad=True), lambda torch: torch.randint(3, 3, (3,)),
    lambda torch: torch.randint(5, 3, (3,)), lambda torch: torch.randint(0, (3,)),
    lambda torch: torch.randint(0.5, 3.7, (3,)), lambda torch: torch.randint(10, 3),
    lambda torch: torch.randint(10), lambda torch: torch.randint(3, (3,), generator=torch.Generator()),
    lambda torch: torch.randint(3, (-1,)), lambda torch: torch.randint(np.int64(3), (2,)),
    lambda torch: torch.randint(True, (2,)), lambda torch: torch.randint(3, (np.int64(2),)),
    lambda torch: torch.randint(3, (2,), device="cpu"),
])
def test_randint_shapes_dtypes_errors(call):
    check(lambda torch: meta(call(torch)))


def test_randint_out_and_half_warning():
    def f(torch):
        out = torch.empty(0)
        return torch.randint(5, (3,), out=out) is out, meta(out)
    check(f)
    for lib in (real, vt):
        with pytest.warns(UserWarning, match="out of bounds"):
            lib.randint(0, 5000, (3,), dtype=lib.float16)


@pytest.mark.parametrize("call", [
    lambda torch, x: torch.randint_like(x, 5), lambda torch, x: torch.randint_like(x, 3, 5),
    lambda torch, x: torch.randint_like(x, low=3, high=5), lambda torch, x: torch.randint_like(x, high=5),
    lambda torch, x: torch.randint_like(x.int(), 5), lambda torch, x: torch.randint_like(x, 5, 5),
    lambda torch, x: torch.randint_like(x.int(), 5, dtype=torch.float64),
    lambda torch, x: torch.randint_like(x.bool(), 2),
    lambda torch, x: torch.randint_like(x, torch.tensor(5)), lambda torch, x: torch.randint_like(x.byte(), 256),
    lambda torch, x: torch.randint_like(x.byte(), 257),
    lambda torch, x: torch.randint_like(x, 5, generator=torch.Generator()),
])
def test_randint_like(call):
    check(lambda torch: meta(call(torch, torch.zeros(2, 3))))


@pytest.mark.parametrize("call", [
    lambda torch: torch.randperm(5), lambda torch: torch.randperm(0), lambda torch: torch.randperm(-1),
    lambda torch: torch.randperm(5, dtype=torch.float32), lambda torch: torch.randperm(3000, dtype=torch.float16),
    lambda torch: torch.randperm(2049, dtype=torch.float16), lambda torch: torch.randperm(300, dtype=torch.uint8),
    lambda torch: torch.randperm(256, dtype=torch.uint8), lambda torch: torch.randperm(129, dtype=torch.int8),
    lambda torch: torch.randperm(2, dtype=torch.bool), lambda torch: torch.randperm(3.0),
    lambda torch: torch.randperm(3, dtype=torch.float32, requires_grad=True),
    lambda torch: torch.randperm(3, requires_grad=True), lambda torch: torch.randperm(4, generator=torch.Generator()),
    lambda torch: torch.randperm(np.int64(3)), lambda torch: torch.randperm(torch.tensor(3)),
    lambda torch: torch.randperm(True), lambda torch: torch.randperm(3, device="cpu"),
])
def test_randperm_shapes_dtypes_errors(call):
    check(lambda torch: meta(call(torch)))


@pytest.mark.parametrize("out_dtype", ["int64", "int32", "float32"])
def test_randperm_out(out_dtype):
    def f(torch):
        out = torch.empty(0, dtype=getattr(torch, out_dtype))
        r = torch.randperm(6, out=out)
        return r is out, meta(out), sorted(out.tolist())
    check(f)


def z(torch, *shape, dtype="float32"):
    return torch.zeros(*shape, dtype=getattr(torch, dtype))


def o(torch, *shape, dtype="float32"):
    return torch.ones(*shape, dtype=getattr(torch, dtype))


@pytest.mark.parametrize("call", [
    lambda torch: torch.normal(z(torch, 2, 3), o(torch, 2, 3)), lambda torch: torch.normal(z(torch, 2, 3), o(torch, 3)),
    lambda torch: torch.normal(z(torch, 2, 1), o(torch, 3)), lambda torch: torch.normal(z(torch, 6), o(torch, 2, 3)),
    lambda torch: torch.normal(z(torch, 4), o(torch, 3)),
    lambda torch: torch.normal(z(torch, 2, dtype="float64"), o(torch, 2)),
    lambda torch: torch.normal(z(torch, 2), o(torch, 2, dtype="float64")),
    lambda torch: torch.normal(z(torch, 2, dtype="int64"), o(torch, 2)),
    lambda torch: torch.normal(z(torch, 2), o(torch, 2, dtype="int64")),
    lambda torch: torch.normal(z(torch, 2, dtype="float16"), o(torch, 2, dtype="float16")),
    lambda torch: torch.normal(z(torch, 2), torch.full((2,), -1.0)),
    lambda torch: torch.normal(z(torch, 2), torch.full((2,), math.nan)),
    lambda torch: torch.normal(torch.tensor(0.0), torch.tensor(1.0)),
    lambda torch: torch.normal(z(torch, 0), o(torch, 0)),
    lambda torch: torch.normal(z(torch, 2, 3), 2.0), lambda torch: torch.normal(z(torch, 2, 3), std=2.0),
    lambda torch: torch.normal(z(torch, 2, 3)), lambda torch: torch.normal(z(torch, 2, 3, dtype="int64"), 2.0),
    lambda torch: torch.normal(z(torch, 2, 3), -2.0), lambda torch: torch.normal(z(torch, 2, 3), torch.tensor(2.0)),
    lambda torch: torch.normal(2.0, o(torch, 2, 3)), lambda torch: torch.normal(2.0, o(torch, 2, dtype="int32")),
    lambda torch: torch.normal(2.0, torch.full((2, 3), -1.0)), lambda torch: torch.normal(mean=0.0, std=o(torch, 2)),
    lambda torch: torch.normal(torch.tensor(0.0, dtype=torch.float64), o(torch, 3)),
    lambda torch: torch.normal(2.0, 3.0, (2, 3)), lambda torch: torch.normal(2.0, 3.0, size=(2, 3)),
    lambda torch: torch.normal(2, 3, (2,)), lambda torch: torch.normal(2.0, 3.0, 4),
    lambda torch: torch.normal(2.0, 3.0),
    lambda torch: torch.normal(2.0, 3.0, (2,), dtype=torch.float64),
    lambda torch: torch.normal(2.0, 3.0, (2,), dtype=torch.int64),
    lambda torch: torch.normal(2.0, 3.0, (2,), requires_grad=True), lambda torch: torch.normal(2.0, -3.0, (2,)),
    lambda torch: torch.normal(0.0, 1.0, (0, 3)), lambda torch: torch.normal(z(torch, 2), o(torch, 2), (2,)),
    lambda torch: torch.normal(z(torch, 2), 1.0, (2,)),
    lambda torch: torch.normal(0.0, 1.0, (3,), generator=torch.Generator()),
    lambda torch: torch.normal(z(torch, 3), o(torch, 3), generator=torch.Generator()),
    lambda torch: torch.normal(True, 2.0, (2,)), lambda torch: torch.normal(np.float64(1), 2.0, (2,)),
    lambda torch: torch.normal(0.0, 1.0, (2,), device="cpu"), lambda torch: torch.normal(z(torch, 2), "1"),
])
def test_normal_overloads(call):
    check(lambda torch: meta(call(torch)))


@pytest.mark.parametrize("args,out_dtype", [("tt", "float64"), ("tt", "float32"), ("ff", "float64"),
                                            ("tt", "int64"), ("ft", "float32"), ("tf", "float16")])
def test_normal_out(args, out_dtype):
    def f(torch):
        out = torch.empty(0, dtype=getattr(torch, out_dtype))
        mean = z(torch, 2) if args[0] == "t" else 0.0
        std = o(torch, 2) if args[1] == "t" else 1.0
        r = torch.normal(mean, std, out=out) if args != "ff" else torch.normal(mean, std, (2,), out=out)
        return r is out, meta(out)
    check(f)


@pytest.mark.parametrize("form", ["tt", "tf", "ft"])
def test_normal_gradients_are_zero(form):
    def f(torch):
        m = z(torch, 3).requires_grad_() if "t" in form[0] else 1.0
        s = o(torch, 3).requires_grad_() if "t" in form[1] else 2.0
        r = torch.normal(m, s)
        r.backward(torch.ones_like(r))
        return r.requires_grad, [x.grad for x in (m, s) if not isinstance(x, float)]
    check(f)


@pytest.mark.parametrize("call", [
    lambda torch: torch.bernoulli(torch.full((5,), 0.5)), lambda torch: torch.bernoulli(torch.full((5,), 0.5), 0.9),
    lambda torch: torch.bernoulli(torch.full((5,), 0.5), p=0.9), lambda torch: torch.bernoulli(o(torch, 5), p=1.9),
    lambda torch: torch.bernoulli(o(torch, 5), p=-0.1), lambda torch: torch.bernoulli(o(torch, 5), torch.tensor(0.3)),
    lambda torch: torch.bernoulli(torch.full((5,), 1.5)), lambda torch: torch.bernoulli(torch.full((5,), -0.5)),
    lambda torch: torch.bernoulli(torch.full((5,), math.nan)),
    lambda torch: torch.bernoulli(o(torch, 5, dtype="int64")), lambda torch: torch.bernoulli(o(torch, 5, dtype="bool")),
    lambda torch: torch.bernoulli(o(torch, 5, dtype="float16")),
    lambda torch: torch.bernoulli(torch.full((5,), 0.5, dtype=torch.float64)),
    lambda torch: torch.bernoulli(torch.tensor(0.5)),
    lambda torch: torch.bernoulli(z(torch, 0, 2)), lambda torch: torch.bernoulli(z(torch, 3, dtype="int64"), 0.5),
    lambda torch: torch.bernoulli(z(torch, 3, dtype="bool"), 0.5), lambda torch: torch.bernoulli([0.5]),
    lambda torch: torch.bernoulli(z(torch, 3), torch.Generator()), lambda torch: o(torch, 5).bernoulli(0.3),
    lambda torch: torch.full((5,), 0.5).bernoulli(),
    lambda torch: torch.bernoulli(z(torch, 3), generator=torch.Generator()),
])
def test_bernoulli(call):
    check(lambda torch: meta(call(torch)))


@pytest.mark.parametrize("out_dtype", ["int64", "float64", "float32", "bool"])
def test_bernoulli_out(out_dtype):
    def f(torch):
        out = torch.empty(0, dtype=getattr(torch, out_dtype))
        return torch.bernoulli(torch.full((5,), 0.5), out=out) is out, meta(out)
    check(f)
    check(lambda torch: torch.bernoulli(z(torch, 3), 0.5, out=torch.empty(3)))


def test_bernoulli_and_poisson_gradients_are_zero():
    def f(torch):
        p = torch.full((4,), 0.5).requires_grad_()
        rate = o(torch, 4).requires_grad_()
        b, q = torch.bernoulli(p), torch.poisson(rate)
        b.backward(torch.ones_like(b))
        q.backward(torch.ones_like(q))
        return b.requires_grad, q.requires_grad, p.grad, rate.grad
    check(f)


W = [0.1, 0.2, 0.7]


@pytest.mark.parametrize("call", [
    lambda torch: torch.multinomial(torch.tensor(W), 2), lambda torch: torch.multinomial(torch.tensor(W), 10, True),
    lambda torch: torch.multinomial(torch.tensor(W), num_samples=10, replacement=True),
    lambda torch: torch.multinomial(torch.tensor(W), 4), lambda torch: torch.multinomial(torch.tensor(W), 3),
    lambda torch: torch.multinomial(torch.tensor(W), 0), lambda torch: torch.multinomial(torch.tensor(W), -1),
    lambda torch: torch.multinomial(torch.tensor([-0.1, 1.0]), 1),
    lambda torch: torch.multinomial(torch.tensor([math.inf, 1.0]), 1),
    lambda torch: torch.multinomial(torch.tensor([math.nan, 1.0]), 1),
    lambda torch: torch.multinomial(torch.tensor([0.0, 0.0]), 1),
    lambda torch: torch.multinomial(torch.tensor([0.0, 0.0]), 1, True),
    lambda torch: torch.multinomial(torch.rand(4, 5), 3), lambda torch: torch.multinomial(torch.rand(4, 5), 7, True),
    lambda torch: torch.multinomial(torch.tensor([[1.0, 1.0], [0.0, 0.0]]), 1),
    lambda torch: torch.multinomial(torch.rand(2, 4, 5), 3), lambda torch: torch.multinomial(torch.tensor(1.0), 1),
    lambda torch: torch.multinomial(z(torch, 0), 1), lambda torch: torch.multinomial(z(torch, 0, 3), 1),
    lambda torch: torch.multinomial(z(torch, 0), 1, True), lambda torch: torch.multinomial(z(torch, 2, 0), 1, True),
    lambda torch: torch.multinomial(torch.tensor([1, 2]), 1),
    lambda torch: torch.multinomial(torch.tensor([1.0, 2.0], dtype=torch.float64), 1),
    lambda torch: torch.multinomial(torch.tensor([1.0, 2.0], dtype=torch.float16), 1),
    lambda torch: torch.multinomial(torch.tensor([1.0, 2.0], dtype=torch.bfloat16), 1),
    lambda torch: torch.multinomial(torch.tensor(W), 1.0), lambda torch: torch.tensor(W).multinomial(2),
    lambda torch: torch.multinomial(torch.tensor(W).requires_grad_(), 2),
    lambda torch: torch.multinomial(torch.tensor(W), 2, generator=torch.Generator()),
])
def test_multinomial(call):
    check(lambda torch: meta(call(torch)))


@pytest.mark.parametrize("out_dtype", ["int64", "int32", "float32"])
def test_multinomial_out(out_dtype):
    def f(torch):
        out = torch.empty(0, dtype=getattr(torch, out_dtype))
        return torch.multinomial(torch.tensor(W), 2, out=out) is out, meta(out)
    check(f)


@LIBS
def test_multinomial_with_zero_weights(lib):
    lib.manual_seed(0)
    w = lib.tensor([[0.0, 1.0, 0.0, 2.0, 0.0]] * 50)
    with_repl = lib.multinomial(w, 40, True).numpy()
    without = lib.multinomial(w, 5).numpy()
    # zero-weight categories are never drawn with replacement and come last without
    assert np.isin(with_repl, [1, 3]).all()
    assert np.isin(without[:, :2], [1, 3]).all()
    assert (np.sort(without, 1) == np.arange(5)).all()


@pytest.mark.parametrize("call", [
    lambda torch: torch.poisson(torch.tensor([1.0, 5.0, 0.0])), lambda torch: torch.poisson(torch.tensor([-1.0, 5.0])),
    lambda torch: torch.poisson(torch.tensor([math.nan, 5.0])), lambda torch: torch.poisson(torch.tensor([1, 5])),
    lambda torch: torch.poisson(torch.tensor([1.0, 5.0], dtype=torch.float64)),
    lambda torch: torch.poisson(torch.tensor([1.0, 5.0], dtype=torch.float16)),
    lambda torch: torch.poisson(torch.tensor([1.0, 5.0]), generator=torch.Generator()),
    lambda torch: torch.poisson(torch.tensor([1.0, 5.0]), torch.Generator()),
    lambda torch: torch.poisson(torch.tensor([1.0, 5.0]), out=torch.empty(2)),
    lambda torch: torch.poisson(z(torch, 0, 3)), lambda torch: torch.poisson(torch.tensor(0.0)),
])
def test_poisson(call):
    check(lambda torch: meta(call(torch)))


@pytest.mark.parametrize("call", [
    lambda torch, e: torch.rand(0, dtype=torch.int64), lambda torch, e: torch.randn(0, dtype=torch.int64),
    lambda torch, e: torch.rand_like(e), lambda torch, e: torch.randn_like(e), lambda torch, e: e.normal_(),
    lambda torch, e: torch.normal(0.0, 1.0, (0,), dtype=torch.int64), lambda torch, e: torch.normal(e, 1.0),
    lambda torch, e: e.uniform_(), lambda torch, e: torch.bernoulli(e), lambda torch, e: torch.poisson(e),
    lambda torch, e: e.exponential_(), lambda torch, e: e.exponential_(-1), lambda torch, e: e.cauchy_(),
    lambda torch, e: e.log_normal_(), lambda torch, e: e.bool().geometric_(0.5), lambda torch, e: e.geometric_(2),
    lambda torch, e: e.bool().random_(0, 3), lambda torch, e: e.float().bernoulli_(e),
    lambda torch, e: torch.multinomial(e.reshape(0, 1) if hasattr(e, "reshape") else e, 1),
])
def test_empty_tensors_skip_some_dtype_checks(call):
    # torch validates the dtype only in the kernels it runs on non-empty tensors for some samplers
    check(lambda torch: meta(call(torch, torch.zeros(0, dtype=torch.int64))))


def test_poisson_of_zero_rate_is_zero():
    check(lambda torch: torch.poisson(z(torch, 4, 3, dtype="float64")))


# -- in-place samplers -------------------------------------------------------------------
INPLACE = [("uniform_", ()), ("uniform_", (2, 3)), ("normal_", ()), ("normal_", (1, 2)), ("bernoulli_", ()),
           ("bernoulli_", (0.3,)), ("random_", ()), ("random_", (10,)), ("random_", (3, 10)), ("exponential_", ()),
           ("exponential_", (2,)), ("geometric_", (0.5,)), ("cauchy_", ()), ("cauchy_", (1, 2)), ("log_normal_", ()),
           ("log_normal_", (0, 0.5))]
INPLACE_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("method,args", INPLACE)
@pytest.mark.parametrize("dtype", INPLACE_DTYPES)
def test_inplace_dtypes_and_identity(method, args, dtype):
    def f(torch):
        x = torch.zeros(3, 2, dtype=getattr(torch, dtype))
        return getattr(x, method)(*args) is x, meta(x)
    check(f)


@pytest.mark.parametrize("call", [
    lambda x: x.uniform_(3, 2), lambda x: x.uniform_(3, 3), lambda x: x.uniform_(**{"from": 1, "to": 2}),
    lambda x: x.uniform_(a=1, b=2), lambda x: x.uniform_(0, math.inf), lambda x: x.uniform_(math.nan, 1),
    lambda x: x.uniform_(-3.4e38, 3.4e38), lambda x: x.half().uniform_(0, 1e5), lambda x: x.uniform_(0, 1, 2),
    lambda x: x.normal_(0, -1), lambda x: x.normal_(mean=1, std=0), lambda x: x.normal_(0, math.nan),
    lambda x: x.normal_(math.nan, 1), lambda x: x.bernoulli_(1.5), lambda x: x.bernoulli_(-0.5),
    lambda x: x.bernoulli_(torch_full(x, (2,), 0.5)), lambda x: x.bernoulli_(torch_full(x, (3, 2), 1.5)),
    lambda x: x.bernoulli_(torch_full(x, (2, 3, 2), 0.5)), lambda x: x.bernoulli_(torch_full(x, (2,), 1).long()),
    lambda x: x.long().bernoulli_(torch_full(x, (2,), 0.5)), lambda x: x.bernoulli_(p=0.2),
    lambda x: x.random_(-10), lambda x: x.random_(0), lambda x: x.random_(10, 3), lambda x: x.random_(to=10),
    lambda x: x.random_(**{"from": 3}), lambda x: x.random_(**{"from": 3, "to": 5}), lambda x: x.random_(2.5),
    lambda x: x.byte().random_(0, 257), lambda x: x.byte().random_(0, 256), lambda x: x.char().random_(-128, 0),
    lambda x: x.bool().random_(0, 2), lambda x: x.bool().random_(0, 3), lambda x: x.char().random_(3, None),
    lambda x: x.half().random_(0, 70000), lambda x: x.long().random_(-2**63, 2**63 - 1),
    lambda x: x.exponential_(0), lambda x: x.exponential_(-1), lambda x: x.exponential_(math.nan),
    lambda x: x.exponential_(lambd=2), lambda x: x.exponential_(1, x), lambda x: x.geometric_(0),
    lambda x: x.geometric_(1), lambda x: x.geometric_(1.5), lambda x: x.geometric_(), lambda x: x.geometric_(p=0.2),
    lambda x: x.cauchy_(0, 0), lambda x: x.cauchy_(0, -1), lambda x: x.cauchy_(median=1, sigma=2),
    lambda x: x.log_normal_(0, 0), lambda x: x.log_normal_(0, -1), lambda x: x.log_normal_(mean=1, std=2),
    lambda x: x.uniform_(generator=5), lambda x: x.uniform_(x.new_tensor(0.5), 1), lambda x: x.uniform_(True, 2),
    lambda x: x.uniform_("0", 1), lambda x: x.normal_(np.float32(2)), lambda x: x.exponential_(x.new_tensor(2.0)),
    lambda x: x.geometric_(x.new_tensor(0.5)), lambda x: x.random_(x.new_tensor(5).long()), lambda x: x.random_(True),
    lambda x: x.random_(np.int64(4)), lambda x: x.bernoulli_(np.float64(0.5)), lambda x: x.bernoulli_(1),
])
def test_inplace_arguments_and_errors(call):
    check(lambda torch: meta(call(torch.zeros(3, 2))))


def torch_full(x, shape, value):
    return x.new_full(shape, value)


def test_inplace_exact_values():
    check(lambda torch: (torch.zeros(4).uniform_(3, 3), torch.zeros(4).normal_(1.5, 0.0),
                         torch.zeros(4).bernoulli_(1.0), torch.ones(4).bernoulli_(0.0),
                         torch.zeros(4, dtype=torch.int32).random_(7, 8), torch.zeros(4).exponential_(math.inf)))


@pytest.mark.parametrize("method,args", INPLACE)
def test_inplace_autograd(method, args):
    def leaf(torch):
        return getattr(torch.zeros(3, requires_grad=True), method)(*args)

    def non_leaf(torch):
        x = torch.zeros(3, requires_grad=True)
        y = x.clone()
        getattr(y, method)(*args)
        y.backward(torch.ones_like(y))
        return y.requires_grad, x.grad

    def no_grad(torch):
        x = torch.zeros(3, requires_grad=True)
        with torch.no_grad():
            getattr(x, method)(*args)
        return meta(x)
    check(leaf)
    check(non_leaf)
    check(no_grad)


# -- distributions ---------------------------------------------------------------------
def assert_moments(x, mean, var, fourth, sigmas=5.0):
    """Sample mean and variance within ``sigmas`` standard errors of the exact values.

    ``fourth`` is the exact fourth central moment (the variance of the sample variance is
    ``(fourth - var**2) / n``).
    """
    x = np.asarray(x, np.float64).ravel()
    n = x.size
    assert abs(x.mean() - mean) <= sigmas * math.sqrt(var / n), (x.mean(), mean)
    assert abs(x.var() - var) <= sigmas * math.sqrt((fourth - var ** 2) / n), (x.var(), var)


def assert_mean(x, mean, var, sigmas=5.0):
    """Sample mean within ``sigmas`` standard errors (for two-valued samples, whose variance follows)."""
    x = np.asarray(x, np.float64).ravel()
    assert abs(x.mean() - mean) <= sigmas * math.sqrt(var / x.size), (x.mean(), mean)


def assert_ks(x, cdf, alpha_coef=1.95, slack=0.0):
    """Kolmogorov-Smirnov distance to ``cdf`` below its 0.1% critical value (``alpha_coef / sqrt(n)``).

    ``slack`` allows for samples rounded to a grid (low precision dtypes).
    """
    x = np.sort(np.asarray(x, np.float64).ravel())
    n = x.size
    f = cdf(x)
    d = max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))
    assert d < alpha_coef / math.sqrt(n) + slack, d


def assert_chi2(counts, probs, z=5.0):
    """Chi-square statistic of category counts within ``z`` standard deviations of its mean (dof)."""
    counts = np.asarray(counts, np.float64)
    expected = counts.sum() * np.asarray(probs, np.float64)
    keep = expected > 0
    assert counts[~keep].sum() == 0
    stat = np.sum((counts[keep] - expected[keep]) ** 2 / expected[keep])
    dof = keep.sum() - 1
    assert stat < dof + z * math.sqrt(2 * dof), (stat, dof)


def normal_cdf(x):
    return real.special.ndtr(real.from_numpy(x)).numpy()


@LIBS
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_rand_is_uniform_in_unit_interval(lib, dtype):
    g = lib.Generator().manual_seed(1)
    x = lib.rand(N, dtype=getattr(lib, dtype), generator=g)
    a = as_np(x)
    assert a.min() >= 0 and a.max() < 1
    # half precision values are rounded (to spacings of at most 2**-11 / 2**-8 below 1)
    slack = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}.get(dtype, 0.0)
    assert_ks(a, lambda v: v, slack=slack)
    if not slack:
        assert_moments(a, 0.5, 1 / 12, fourth=1 / 80)


@LIBS
def test_uniform_range(lib):
    x = lib.zeros(N, dtype=lib.float64).uniform_(-2, 5, generator=lib.Generator().manual_seed(2))
    a = as_np(x)
    assert a.min() >= -2 and a.max() < 5
    assert_moments(a, 1.5, 49 / 12, fourth=7 ** 4 / 80)
    assert_ks(a, lambda v: (v + 2) / 7)


@LIBS
@pytest.mark.parametrize("n,dtype", [(N, "float32"), (N, "float64"), (N + 1, "float32"), (1000, "float32"),
                                     (N, "float16")])
def test_randn_is_standard_normal(lib, n, dtype):
    g = lib.Generator().manual_seed(3)
    a = as_np(lib.randn(n, dtype=getattr(lib, dtype), generator=g))
    assert_moments(a, 0.0, 1.0, fourth=3.0)
    # float16 rounding moves the CDF by at most pdf * spacing: below 1e-3 everywhere
    assert_ks(a, normal_cdf, slack=1e-3 if dtype == "float16" else 0.0)


@LIBS
def test_randn_complex(lib):
    x = lib.randn(N, dtype=lib.complex64, generator=lib.Generator().manual_seed(4))
    a = x.numpy()
    assert_moments(a.real, 0.0, 0.5, fourth=0.75)
    assert_moments(a.imag, 0.0, 0.5, fourth=0.75)
    u = lib.rand(N, dtype=lib.complex128, generator=lib.Generator().manual_seed(4)).numpy()
    assert_moments(u.real, 0.5, 1 / 12, fourth=1 / 80)
    assert_moments(u.imag, 0.5, 1 / 12, fourth=1 / 80)


@LIBS
def test_normal_tensor_parameters(lib):
    g = lib.Generator().manual_seed(5)
    mean = lib.from_numpy(np.linspace(-3, 3, N))
    std = lib.from_numpy(np.linspace(0.5, 2, N))
    x = lib.normal(mean, std, generator=g)
    standardized = (as_np(x) - mean.numpy()) / std.numpy()
    assert_moments(standardized, 0.0, 1.0, fourth=3.0)
    assert_ks(standardized, normal_cdf)
    y = as_np(lib.normal(2.0, 3.0, (N,), generator=g))
    assert_moments(y, 2.0, 9.0, fourth=3 * 81.0)
    w = as_np(lib.zeros(N).normal_(-1, 0.5, generator=g))
    assert_moments(w, -1.0, 0.25, fourth=3 * 0.0625)
    broadcast = as_np(lib.normal(lib.zeros(N // 1000, 1), lib.full((1000,), 2.0), generator=g))
    assert_moments(broadcast, 0.0, 4.0, fourth=48.0)


@LIBS
@pytest.mark.parametrize("low,high,dtype", [(0, 10, "int64"), (-5, 3, "int8"), (0, 2, "bool"), (3, 9, "float32"),
                                            (0, 256, "uint8"), (-7, 1000, "int32")])
def test_randint_is_uniform(lib, low, high, dtype):
    x = lib.randint(low, high, (N,), dtype=getattr(lib, dtype), generator=lib.Generator().manual_seed(6))
    a = x.numpy().astype(np.int64)
    assert a.min() >= low and a.max() < high
    assert_chi2(np.bincount(a - low, minlength=high - low), np.full(high - low, 1 / (high - low)))


@LIBS
def test_randint_wide_range(lib):
    a = lib.randint(-2**62, 2**62, (N,), generator=lib.Generator().manual_seed(7)).numpy()
    assert_moments(a / 2.0**62, 0.0, 1 / 3, fourth=1 / 5)


@LIBS
def test_randperm_is_uniform(lib):
    g = lib.Generator().manual_seed(8)
    perms = np.stack([lib.randperm(5, generator=g).numpy() for _ in range(6000)])
    assert (np.sort(perms, axis=1) == np.arange(5)).all()
    for value in range(5):
        positions = np.argmax(perms == value, axis=1)
        assert_chi2(np.bincount(positions, minlength=5), np.full(5, 0.2))
    big = lib.randperm(100_000, generator=g).numpy()
    assert (np.sort(big) == np.arange(100_000)).all()


@LIBS
def test_bernoulli_frequencies(lib):
    g = lib.Generator().manual_seed(9)
    p = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    x = lib.bernoulli(lib.from_numpy(np.tile(p, (N // 5, 1))), generator=g).numpy()
    assert (x[:, 0] == 0).all() and (x[:, -1] == 1).all()
    assert np.isin(x, [0, 1]).all()
    for j in (1, 2, 3):
        assert_mean(x[:, j], p[j], p[j] * (1 - p[j]))
    y = lib.zeros(N, dtype=lib.int64).bernoulli_(0.3, generator=g).numpy()
    assert_mean(y, 0.3, 0.21)
    f = lib.zeros(N).bernoulli_(0.3, generator=g).numpy()
    assert np.isin(f, [0, 1]).all()
    assert_mean(f, 0.3, 0.21)
    w = lib.bernoulli(lib.zeros(N), 0.7, generator=g).numpy()
    assert_mean(w, 0.7, 0.21)
    v = lib.zeros(N // 5, 5).bernoulli_(lib.from_numpy(p.astype(np.float32)), generator=g).numpy()
    assert (v[:, 0] == 0).all() and (v[:, -1] == 1).all()
    assert_mean(v[:, 2], 0.5, 0.25)


@LIBS
def test_multinomial_frequencies(lib):
    g = lib.Generator().manual_seed(10)
    w = np.array([1.0, 0.0, 2.0, 3.0, 4.0])
    p = w / w.sum()
    draws = lib.multinomial(lib.from_numpy(w), N, True, generator=g).numpy()
    assert_chi2(np.bincount(draws, minlength=5), p)
    rows = lib.multinomial(lib.from_numpy(np.tile(w, (20_000, 1))), 3, generator=g).numpy()
    assert (np.sort(rows, 1)[:, 1:] != np.sort(rows, 1)[:, :-1]).all()  # distinct within a row
    assert_chi2(np.bincount(rows[:, 0], minlength=5), p)
    # the second draw: P(j) = sum_i p_i * w_j / (W - w_i)
    second = np.array([sum(p[i] * w[j] / (w.sum() - w[i]) for i in range(5) if i != j) for j in range(5)])
    assert_chi2(np.bincount(rows[:, 1], minlength=5), second)
    # many short rows (vfw compares against the whole cdf at once there)
    small = lib.multinomial(lib.from_numpy(np.tile(w, (1000, 1))), 10, True, generator=g).numpy()
    assert_chi2(np.bincount(small.ravel(), minlength=5), p)
    two_d = lib.multinomial(lib.from_numpy(np.array([[0.0, 1.0, 3.0], [5.0, 0.0, 5.0]])), N // 4, True,
                            generator=g).numpy()
    assert_chi2(np.bincount(two_d[0], minlength=3), [0, 0.25, 0.75])
    assert_chi2(np.bincount(two_d[1], minlength=3), [0.5, 0, 0.5])


@LIBS
@pytest.mark.parametrize("rate", [0.5, 3.0, 50.0])
def test_poisson_moments(lib, rate):
    x = lib.poisson(lib.full((N,), rate, dtype=lib.float64), generator=lib.Generator().manual_seed(11))
    a = x.numpy()
    assert (a == np.round(a)).all() and a.min() >= 0
    assert_moments(a, rate, rate, fourth=rate * (1 + 3 * rate))


@LIBS
def test_exponential_geometric_cauchy_lognormal(lib):
    g = lib.Generator().manual_seed(12)
    e = as_np(lib.zeros(N, dtype=lib.float64).exponential_(2.0, generator=g))
    assert e.min() >= 0
    assert_moments(e, 0.5, 0.25, fourth=9 / 16)
    assert_ks(e, lambda v: 1 - np.exp(-2 * v))
    e32 = as_np(lib.zeros(N).exponential_(0.5, generator=g))
    assert_moments(e32, 2.0, 4.0, fourth=9 * 16)
    p = 0.25
    k = as_np(lib.zeros(N, dtype=lib.int64).geometric_(p, generator=g))
    assert k.min() >= 1
    var = (1 - p) / p**2
    assert_moments(k, 1 / p, var, fourth=var**2 * (9 + p**2 / (1 - p)))
    c = as_np(lib.zeros(N, dtype=lib.float64).cauchy_(1.0, 2.0, generator=g))
    assert_ks(c, lambda v: 0.5 + np.arctan((v - 1.0) / 2.0) / np.pi)
    ln = as_np(lib.zeros(N, dtype=lib.float64).log_normal_(0.5, 0.75, generator=g))
    assert ln.min() > 0
    assert_ks((np.log(ln) - 0.5) / 0.75, normal_cdf)


@LIBS
@pytest.mark.parametrize("dtype,top", [("float32", 2**24), ("float64", 2**53), ("float16", 2**11), ("bfloat16", 2**8),
                                       ("int64", 2**63 - 1), ("int32", 2**31 - 1), ("int16", 2**15 - 1),
                                       ("int8", 127), ("uint8", 255), ("bool", 1)])
def test_random_default_range(lib, dtype, top):
    x = lib.zeros(N, dtype=getattr(lib, dtype)).random_(generator=lib.Generator().manual_seed(13))
    a = x.float().numpy().astype(np.float64) if dtype == "bfloat16" else x.numpy().astype(np.float64)
    assert a.min() >= 0 and a.max() <= top
    if top < 2**16:  # every value of 0..top equally likely
        counts = np.bincount(a.astype(np.int64), minlength=top + 1)
        assert_chi2(counts, np.full(top + 1, 1 / (top + 1)))
    else:  # moments of the discrete uniform distribution on 0..top, scaled to [0, 1]
        n = float(top + 1)
        assert_moments(a / top, 0.5, (n * n - 1) / 12 / top**2, fourth=(n * n - 1) * (3 * n * n - 7) / 240 / top**4)


@LIBS
def test_random_ranges(lib):
    g = lib.Generator().manual_seed(14)
    a = lib.zeros(N, dtype=lib.int32).random_(7, generator=g).numpy()
    assert_chi2(np.bincount(a, minlength=7), np.full(7, 1 / 7))
    b = lib.zeros(N).random_(-3, 4, generator=g).numpy().astype(np.int64)
    assert_chi2(np.bincount(b + 3, minlength=7), np.full(7, 1 / 7))
    c = lib.zeros(N, dtype=lib.int8).random_(100, None, generator=g).numpy().astype(np.int64)
    assert_chi2(np.bincount(c - 100, minlength=28), np.full(28, 1 / 28))


# -- seeding, generators and states ----------------------------------------------------------
def draws(lib, generator=None):
    kw = {} if generator is None else {"generator": generator}
    x = lib.zeros(5)
    w = lib.tensor([[1.0, 2.0, 3.0]])
    return [lib.rand(5, **kw), lib.randn(5, **kw), lib.randint(0, 100, (5,), **kw), lib.randperm(5, **kw),
            lib.normal(lib.zeros(5), lib.ones(5), **kw), lib.bernoulli(lib.full((5,), 0.5), **kw),
            lib.multinomial(w, 2, **kw), lib.multinomial(w, 5, True, **kw), lib.poisson(lib.full((5,), 3.0), **kw),
            x.clone().uniform_(**kw), x.clone().normal_(**kw), x.clone().bernoulli_(**kw), x.clone().random_(**kw),
            x.clone().exponential_(**kw), x.clone().geometric_(0.5, **kw), x.clone().cauchy_(**kw),
            x.clone().log_normal_(**kw), lib.rand_like(x, **kw), lib.randn_like(x, **kw),
            lib.randint_like(x, 10, **kw)]


def same(a, b):
    return all(np.array_equal(x.numpy(), y.numpy()) for x, y in zip(a, b))


@LIBS
def test_manual_seed_reproduces_every_sampler(lib):
    assert lib.manual_seed(123) is lib.default_generator
    first = draws(lib)
    lib.manual_seed(123)
    assert same(first, draws(lib))
    lib.manual_seed(124)
    assert not np.array_equal(first[0].numpy(), lib.rand(5).numpy())


@LIBS
def test_generators_reproduce_and_are_independent(lib):
    g1 = lib.Generator().manual_seed(7)
    first = draws(lib, g1)
    lib.manual_seed(0)
    default_first = lib.rand(5)
    g2 = lib.Generator()
    assert g2.manual_seed(7) is g2
    lib.manual_seed(0)
    interleaved = []
    for t in draws(lib, g2):
        interleaved.append(t)
        lib.rand(3)  # draws from the default generator do not disturb g2
    assert same(first, interleaved)
    lib.manual_seed(0)
    draws(lib, lib.Generator().manual_seed(1))  # nor do g's draws disturb the default stream
    assert np.array_equal(default_first.numpy(), lib.rand(5).numpy())
    # a generator seeded like the default generator gives the same stream
    lib.manual_seed(42)
    assert same(draws(lib), draws(lib, lib.Generator().manual_seed(42)))
    # successive draws differ
    g = lib.Generator()
    assert not np.array_equal(lib.rand(5, generator=g).numpy(), lib.rand(5, generator=g).numpy())


@LIBS
def test_state_round_trips(lib):
    lib.manual_seed(5)
    state = lib.get_rng_state()
    assert state.dtype == lib.uint8 and state.dim() == 1
    a = draws(lib)
    lib.manual_seed(99)
    lib.set_rng_state(state)
    assert same(a, draws(lib))
    assert lib.initial_seed() == 5  # the state carries the seed
    g = lib.Generator().manual_seed(3)
    lib.rand(7, generator=g)  # a state mid-stream
    s = g.get_state()
    b = draws(lib, g)
    g.manual_seed(8)
    assert g.set_state(s) is g and g.initial_seed() == 3
    assert same(b, draws(lib, g))
    assert same(b, draws(lib, lib.Generator().set_state(s)))
    g.set_state(s)
    assert same(b, draws(lib, g.clone_state()))
    assert same(b, draws(lib, g))  # cloning left g where it was


@LIBS
def test_odd_draw_counts_keep_the_state_exact(lib):
    g = lib.Generator().manual_seed(15)
    lib.randn(3, generator=g)
    s = g.get_state()
    x = lib.randn(5, generator=g)
    assert np.array_equal(x.numpy(), lib.randn(5, generator=lib.Generator().set_state(s)).numpy())


@LIBS
def test_generator_copy_and_pickle(lib):
    g = lib.Generator().manual_seed(21)
    lib.rand(3, generator=g)
    for h in (copy.deepcopy(g), pickle.loads(pickle.dumps(g))):
        assert h.initial_seed() == 21
        assert np.array_equal(lib.rand(4, generator=h).numpy(), lib.rand(4, generator=copy.deepcopy(g)).numpy())
    assert g.clone_state().initial_seed() == 21


@LIBS
def test_fork_rng(lib):
    lib.manual_seed(3)
    with lib.random.fork_rng():
        inside = lib.rand(4)
    assert np.array_equal(inside.numpy(), lib.rand(4).numpy())
    with lib.random.fork_rng(enabled=False):
        a = lib.rand(4)
    assert not np.array_equal(a.numpy(), lib.rand(4).numpy())
    with lib.random.fork_rng(devices=[]):
        lib.rand(2)


def test_seed_functions():
    check(lambda torch: (torch.manual_seed(-1).initial_seed(), torch.manual_seed(-2**63).initial_seed(),
                         torch.manual_seed(1.5).initial_seed(), torch.manual_seed("5").initial_seed(),
                         torch.manual_seed(True).initial_seed(), torch.manual_seed(2**64 - 1).initial_seed(),
                         torch.random.manual_seed(9).initial_seed(), torch.initial_seed(),
                         torch.random.initial_seed()))
    for bad in (2**64, -2**63 - 1, None, "x"):
        check(lambda torch, bad=bad: torch.manual_seed(bad))
    for seed in (-1, 2**64 - 1, 5):
        check(lambda torch, seed=seed: torch.Generator().manual_seed(seed).initial_seed())
    for bad in (1.5, "5", True, 2**64, None):
        check(lambda torch, bad=bad: torch.Generator().manual_seed(bad))
    check(lambda torch: (torch.Generator().initial_seed(), torch.Generator().device, torch.Generator("cpu").device,
                         torch.Generator(device=torch.device("cpu")).device, torch.default_generator.device,
                         torch.random.default_generator is torch.default_generator))
    check(lambda torch: torch.Generator(device="cuda"))
    check(lambda torch: torch.Generator(device="foo"))
    check(lambda torch: torch.random.fork_rng(devices=[0]).__enter__())
    for lib in (real, vt):
        s = lib.seed()
        assert isinstance(s, int) and 0 <= s < 2**64 and lib.initial_seed() == s
        g = lib.Generator()
        s = g.seed()
        assert g.initial_seed() == s and lib.random.seed() != s


@pytest.mark.parametrize("bad", [lambda torch: torch.zeros(10, dtype=torch.uint8), lambda torch: torch.zeros(10),
                                 lambda torch: torch.zeros(10, dtype=torch.int64), lambda torch: [1, 2],
                                 lambda torch: None])
def test_set_state_errors(bad):
    check(lambda torch: torch.set_rng_state(bad(torch)))
    check(lambda torch: torch.Generator().set_state(bad(torch)))


def test_an_invalid_state_of_the_right_size_is_refused():
    check(lambda torch: torch.set_rng_state(torch.zeros(torch.get_rng_state().numel(), dtype=torch.uint8)))


def test_manual_seed_seeds_engine_random_ops():
    x = vfw.Tensor(np.ones((4, 50), np.float32))
    ratio, training = np.array(0.5, np.float32), np.array(True)

    def engine_draws():
        return (vfw.execute("Dropout", x, ratio, training)[1].array, vfw.execute("RandomNormal", shape=[6]).array,
                vt.rand(3).numpy())
    vt.manual_seed(77)
    first = engine_draws()
    vt.manual_seed(77)
    second = engine_draws()
    for a, b in zip(first, second):
        assert np.array_equal(a, b)
    vt.manual_seed(78)
    assert not np.array_equal(first[0], engine_draws()[0])


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 4), max_size=3), fn=st.sampled_from(["rand", "randn"]),
       dtype=st.sampled_from(["float32", "float64", "float16"]))
def test_factory_shapes_property(shape, fn, dtype):
    check(lambda torch: meta(getattr(torch, fn)(*shape, dtype=getattr(torch, dtype))))
    check(lambda torch: meta(torch.randint(-3, 4, tuple(shape))))
    check(lambda torch: meta(torch.normal(torch.zeros(shape), 1.0)))


def test_no_warning_in_plain_use():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vt.rand(3)
        vt.randint(0, 2048, (3,), dtype=vt.float16)
        vt.zeros(3, dtype=vt.float16).random_()


# -- torch's own streams ---------------------------------------------------------------------
def _seeded(draw, seed=0):
    def run(torch):
        torch.manual_seed(seed)
        return draw(torch)
    return run


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 5, -3])
@pytest.mark.parametrize("draw", [
    lambda torch: torch.rand(5),
    lambda torch: torch.rand(3, 4, dtype=torch.float64),
    lambda torch: torch.rand(6, dtype=torch.float16),
    lambda torch: [torch.randn(n) for n in (1, 3, 15, 16, 17, 33)],
    lambda torch: (torch.randn(4, 5), torch.randn(2, 9, dtype=torch.float64), torch.randn(3, dtype=torch.float64)),
    lambda torch: (torch.randn(3), torch.randn(3), torch.randn(20), torch.randn(1), torch.randn(2)),
    lambda torch: (torch.randint(0, 10, (8,)), torch.randint(-5, 5, (2, 3)), torch.randint(2**40, (3,)),
                   torch.randint(3, 9, (4,), dtype=torch.float32)),
    lambda torch: (torch.randperm(1), torch.randperm(6), torch.randperm(1000), torch.randperm(5, dtype=torch.int32)),
    lambda torch: (torch.empty(5).uniform_(-2, 3), torch.empty(40, dtype=torch.float64).uniform_(0.1, 0.7),
                   torch.empty(3, 3).uniform_()),
    lambda torch: (torch.empty(5).normal_(1.5, 2.0), torch.empty(40).normal_(-1, 0.5),
                   torch.empty(17, dtype=torch.float64).normal_()),
    lambda torch: (torch.normal(2.0, 3.0, size=(20,)), torch.normal(torch.arange(4.0), torch.ones(4)),
                   torch.normal(torch.zeros(18), 2.0)),
    lambda torch: (torch.rand_like(torch.ones(2, 2)), torch.randn_like(torch.ones(3)),
                   torch.randint_like(torch.ones(4), 0, 100)),
    lambda torch: (torch.empty(4, dtype=torch.int64).random_(0, 50), torch.empty(3).random_(10)),
    lambda torch: (torch.bernoulli(torch.linspace(0.05, 0.95, 20)),
                   torch.bernoulli(torch.linspace(0, 1, 9, dtype=torch.float64))),
    lambda torch: (torch.empty(30).exponential_(2.0), torch.empty(5, dtype=torch.float64).exponential_()),
])
def test_seeded_draws_match_torch(draw, seed):
    check(_seeded(draw, seed))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("draw", [
    lambda torch, d: torch.rand(5000, dtype=d),
    lambda torch, d: torch.empty(3000, dtype=d).uniform_(0.1, 0.7),
    lambda torch, d: torch.empty(3000, dtype=d).uniform_(-0.3, 1e-3),
    lambda torch, d: torch.empty(3000, dtype=d).uniform_(-6e4, 3.7),
    lambda torch, d: torch.empty(3000, dtype=d).uniform_(1.0, 1.0 + 2.0 ** -20),  # draws rounding up to `to`
    lambda torch, d: torch.empty(30, 100, dtype=d).t().uniform_(1.3, 7.9),
    lambda torch, d: torch.empty(3000, dtype=d).exponential_(),
    lambda torch, d: torch.empty(3000, dtype=d).exponential_(1.5),
    lambda torch, d: torch.empty(30, 100, dtype=d).t().exponential_(0.01),
    lambda torch, d: torch.empty(3000, dtype=d).cauchy_(1.5, 2.0),
    lambda torch, d: torch.empty(30, 100, dtype=d).t().cauchy_(),
    lambda torch, d: torch.empty(3000, dtype=d).geometric_(0.3),
    lambda torch, d: torch.empty(30, 100, dtype=d).t().geometric_(0.01),
], ids=["rand", "uniform", "uniform_narrow", "uniform_wide", "uniform_to", "uniform_view", "exponential",
        "exponential_rate", "exponential_view", "cauchy", "cauchy_view", "geometric", "geometric_view"])
def test_uniform_and_exponential_draws_are_torchs_to_the_last_bit(draw, dtype):
    for seed in (0, 5):
        want, got = (_seeded(lambda torch: draw(torch, getattr(torch, dtype)), seed)(lib) for lib in (real, vt))
        np.testing.assert_array_equal(got.double().numpy(), want.double().numpy())


def test_generators_follow_torch_streams():
    def fn(torch):
        g = torch.Generator().manual_seed(3)
        fresh = torch.Generator()
        return (torch.rand(4, generator=g), torch.randn(20, generator=g), torch.randperm(7, generator=g),
                fresh.initial_seed(), torch.rand(3, generator=fresh), torch.randn(5, generator=fresh))
    check(fn)


def test_state_keeps_the_cached_normal():
    for lib in (real, vt):
        lib.manual_seed(11)
        lib.randn(3)  # leaves the second value of a pair cached
        state = lib.get_rng_state()
        first = lib.randn(2)
        lib.set_rng_state(state)
        np.testing.assert_array_equal(lib.randn(2).numpy(), first.numpy())
