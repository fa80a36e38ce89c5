"""vfw.torch against real torch for what the round-5 programs (compat_tests/programs/torch_more4) found broken:
a backward marked @once_differentiable under create_graph=True; quantile ranks rounded in the input's dtype (a
float32 rank that rounds to a whole number gives a data value, which bucketize then finds); lerp, add/sub with
alpha and addcmul rounded once, as torch's fused multiply-add, and addcdiv as torch orders it (value * tensor1
first, the value in float32 for 2-byte floats): an EMA update ``p.add_(q - p, alpha=1 - d)`` is then torch's bit
for bit."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt

X4 = arrays((4,), dtype="float64", seed=3)


def _square_function(torch):
    """x * x with a backward that is not itself differentiable."""

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return 2 * x * grad_out

    return Square


def _first_grad(torch, x, weighted):
    """The gradient of sum(Square(x)) (weighted by x: the incoming gradient then requires grad) with its graph."""
    y = _square_function(torch).apply(x)
    loss = (y * x).sum() if weighted else y.sum()
    (g,) = torch.autograd.grad(loss, x, create_graph=True)
    return g


def _grad_flags(torch, x, weighted, create_graph):
    y = _square_function(torch).apply(x)
    loss = (y * x).sum() if weighted else y.sum()
    (g,) = torch.autograd.grad(loss, x, create_graph=create_graph)
    return g, g.requires_grad, g.is_leaf


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
def test_once_differentiable_first_gradient(weighted, create_graph):
    check(lambda torch, x: _grad_flags(torch, x.requires_grad_(), weighted, create_graph), X4)


def test_once_differentiable_refuses_a_second_differentiation():
    def second(torch, x):
        _first_grad(torch, x.requires_grad_(), weighted=True).sum().backward()

    check(second, X4)  # both raise RuntimeError
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        second(vt, vt.tensor(X4))


def test_once_differentiable_without_a_graph_of_the_gradient_backward_has_no_input():
    def second(torch, x):
        _first_grad(torch, x.requires_grad_(), weighted=False).sum().backward()

    check(second, X4)  # the gradient does not require grad: torch's "does not require grad" RuntimeError
    with pytest.raises(RuntimeError, match="does not require grad"):
        second(vt, vt.tensor(X4))


def test_once_differentiable_other_paths_still_differentiate():
    """Second derivatives along paths that avoid the once-differentiable backward are unaffected."""
    def second(torch, x):
        x.requires_grad_()
        y = _square_function(torch).apply(x.detach()) + x.sin() * x
        (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
        return torch.autograd.grad(g.sum(), x)[0]

    check(second, X4)
    assert real.is_grad_enabled() and vt.is_grad_enabled()


# -- quantile and lerp, bit for bit ----------------------------------------------------------------------------

COLUMNS = arrays((96, 4), seed=5)
RANDOM_Q = np.concatenate([np.random.default_rng(6).uniform(0, 1, 40), [0.2, 0.4, 0.6, 0.8, 0.3, 1 / 3]])


@pytest.mark.parametrize("q", [0.2, 0.3, 0.7, "tensor"])
def test_quantile_ranks_round_in_the_input_dtype(q):
    def fn(torch, x):
        qs = torch.tensor(RANDOM_Q, dtype=x.dtype) if q == "tensor" else q
        edges = torch.quantile(x, qs, dim=0)
        on_data = (x.unsqueeze(0) == edges.unsqueeze(1)).sum()  # whole float32 ranks land on data values
        buckets = torch.bucketize(x[:, 0].contiguous(), edges.reshape(-1, 4)[:, 0].sort().values)
        return edges, on_data, buckets

    check(fn, COLUMNS, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_quantile_gradient(dtype):
    check_grad(lambda torch, x: torch.quantile(x, torch.tensor([0.2, 0.55, 0.9], dtype=x.dtype), dim=1),
               arrays((3, 21), dtype=dtype, seed=8))


START, END, WEIGHT = arrays((5000,), (5000,), (5000,), seed=9, low=-1.5, high=1.5)


@pytest.mark.parametrize("weight", [0.3, 0.7, 0.123456, "tensor"])
def test_lerp_float32_rounds_once(weight):
    def fn(torch, a, b, w):
        return torch.lerp(a, b, w if weight == "tensor" else weight)

    check(fn, START, END, WEIGHT, rtol=0, atol=0)


def test_lerp_gradient_and_in_place():
    check_grad(lambda torch, a, b, w: torch.lerp(a, b, w), START[:50], END[:50], WEIGHT[:50])
    check(lambda torch, a, b: a.clone().lerp_(b, 0.9), START, END, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("fn", ["add", "sub", "add_", "sub_", "number"])
def test_add_sub_with_alpha_round_once(dtype, fn):
    def run(torch, a, b):
        a, b = a.to(getattr(torch, dtype)), b.to(getattr(torch, dtype))
        if fn == "number":  # torch rounds twice in the last n % 16 elements here: 4096 elements have none such
            return torch.add(a[:4096], 2.5, alpha=0.3), torch.rsub(a[:4096], 1.5, alpha=0.7)
        if fn.endswith("_"):
            return getattr(a.clone(), fn)(b, alpha=-0.37)
        return getattr(torch, fn)(a, b, alpha=0.1)

    check(run, START, END, rtol=0, atol=0)


def test_add_with_alpha_gradient():
    check_grad(lambda torch, a, b: torch.add(a, b, alpha=0.3) * torch.sub(b, a, alpha=2.5), START[:40], END[:40])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("fn", ["addcmul", "addcdiv", "addcmul_", "addcdiv_"])
@pytest.mark.parametrize("value", [1, 0.3])
def test_addcmul_addcdiv_round_as_torch(dtype, fn, value):
    def run(torch, a, b, c):
        a, b, c = (t.to(getattr(torch, dtype)) for t in (a, b, c))
        if fn.endswith("_"):
            return getattr(a.clone(), fn)(b, b, value=value)
        return getattr(torch, fn)(a, b, c, value=value)

    check(run, START, END, WEIGHT + 2.0, rtol=0, atol=0)


def test_addcmul_addcdiv_gradients():
    check_grad(lambda torch, a, b, c: torch.addcmul(a, b, c, value=0.3) * torch.addcdiv(c, a, c + 3, value=-2),
               START[:40], END[:40], WEIGHT[:40])
