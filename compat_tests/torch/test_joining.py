"""vfw.torch expand, broadcast, cat/stack, split/chunk/unbind, meshgrid against real torch; gradients of the family."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compat_tests.torch.harness import arrays, check, check_grad

DTYPES = ["float32", "float64", "float16", "int64", "int32", "bool"]

X34 = arrays((3, 4))
X234 = arrays((2, 3, 4), seed=1)
V5 = arrays((5,), seed=3)
S0 = np.array(1.5, np.float32)
E03 = np.zeros((0, 3), np.float32)


def _quiet(fn):
    """``fn`` with torch's deprecation warnings (x.T on non-matrices, meshgrid without indexing) silenced."""
    def run(torch, *args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(torch, *args)
    return run


# -- expand / broadcast ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: x.expand(3, 4),
    lambda torch, x: x.expand(2, 3, 4),
    lambda torch, x: x.expand(-1, 4),
    lambda torch, x: x.expand(-1, -1),
    lambda torch, x: x.expand((3, 4)),
    lambda torch, x: x.expand([2, 3, 5]),
    lambda torch, x: x.expand(size=(3, 2)),
    lambda torch, x: x.expand(torch.Size([1, 3, 4])),
    lambda torch, x: x.expand(3, 0),
    lambda torch, x: x.expand(0, 3, 4),
    lambda torch, x: x.expand(-1, 3, 4),
    lambda torch, x: x.expand(4, 4),
    lambda torch, x: x.expand(4),
    lambda torch, x: x.expand(3, 2.0),
    lambda torch, x: x.expand_as(torch.ones(3, 5)),
    lambda torch, x: x.expand_as(torch.ones(5)),
    lambda torch, x: torch.broadcast_to(x, (2, 3, 5)),
    lambda torch, x: torch.broadcast_to(x, size=(3, -1)),
    lambda torch, x: x.broadcast_to((3, 3)),
    lambda torch, x: torch.broadcast_to(x, (5,)),
    lambda torch, x: x[0, 0].expand(2, 2),
    lambda torch, x: x[0, 0].expand(()),
    lambda torch, x: x[0, 0].expand(-1),
    lambda torch, x: x.expand(3, 4) + 1,
    lambda torch, x: x.expand(3, 4).sum(),
    lambda torch, x: x.expand(3, 4).contiguous().add_(1),
    lambda torch, x: x.expand(3, 4).clone().mul_(2),
])
def test_expand(fn):
    check(fn, arrays((3, 1)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_expand_dtypes(dtype):
    check(lambda torch, x: (x.expand(2, 3, 4), torch.broadcast_to(x[:1], (3, 4))), arrays((3, 1), dtype=dtype))


@pytest.mark.parametrize("fn", [
    lambda torch, x, y: torch.broadcast_tensors(x, y),
    lambda torch, x, y: torch.broadcast_tensors(x, y[0]),
    lambda torch, x, y: torch.broadcast_tensors(x),
    lambda torch, x, y: torch.broadcast_tensors(),
    lambda torch, x, y: torch.broadcast_tensors(x, y.long(), y[0, 0]),
    lambda torch, x, y: torch.broadcast_tensors(x, y.t()),
    lambda torch, x, y: torch.broadcast_tensors([x, y]),
    lambda torch, x, y: torch.broadcast_tensors(x, torch.ones(2)),
    lambda torch, x, y: torch.broadcast_tensors(x, torch.ones(0, 1)),
])
def test_broadcast_tensors(fn):
    check(fn, arrays((3, 1)), arrays((1, 4), seed=1))


@pytest.mark.parametrize("shapes", [
    ((3, 1), (4,)), (3, (2, 1)), (), ((2, 3),), ((0,), (1,)), ((1,), (0,)), ((2,), (0,)), ((3,), (2,)),
    ((-1,), (3,)), ((5, 1, 3), (4, 1), (1,)), ([2, 1], [1, 3]), (1, 1),
])
def test_broadcast_shapes(shapes):
    check(lambda torch: torch.broadcast_shapes(*shapes))
    check(lambda torch: torch.broadcast_shapes(*[torch.Size(s) if isinstance(s, tuple) else s for s in shapes]))


# -- cat / stack ----------------------------------------------------------------------------------------------
CAT_CASES = [
    lambda torch, x, y: torch.cat([x, y]),
    lambda torch, x, y: torch.cat((x, y), 1),
    lambda torch, x, y: torch.cat([x, y], dim=-1),
    lambda torch, x, y: torch.cat([x, y], axis=1),
    lambda torch, x, y: torch.cat([x]),
    lambda torch, x, y: torch.cat([x, x, x], -2),
    lambda torch, x, y: torch.concat([x, y], dim=1),
    lambda torch, x, y: torch.concatenate([x, y], axis=1),
    lambda torch, x, y: torch.concatenate([x, y], 0),
    lambda torch, x, y: torch.cat([x, y.t()]),
    lambda torch, x, y: torch.cat([x.t(), y.t()], 1),
    lambda torch, x, y: torch.cat([x, torch.empty(0)]),
    lambda torch, x, y: torch.cat([torch.empty(0), x, torch.empty(0)], 1),
    lambda torch, x, y: torch.cat([torch.empty(0), torch.empty(0)]),
    lambda torch, x, y: torch.cat([torch.empty(0), torch.empty(0)], 1),
    lambda torch, x, y: torch.cat([torch.empty(0, 4), x]),
    lambda torch, x, y: torch.cat([torch.empty(0, 2), x]),
    lambda torch, x, y: torch.cat([torch.empty(3, 0), x], 1),
    lambda torch, x, y: torch.cat([x, y], 1),
    lambda torch, x, y: torch.cat([x, x[0]]),
    lambda torch, x, y: torch.cat([x, x], 2),
    lambda torch, x, y: torch.cat([x[0, 0], x[0, 0]]),
    lambda torch, x, y: torch.cat([]),
    lambda torch, x, y: torch.cat(x),
    lambda torch, x, y: torch.cat([x, 1]),
    lambda torch, x, y: torch.cat([torch.empty(0), x], 2),
    lambda torch, x, y: torch.stack([x, x]),
    lambda torch, x, y: torch.stack((x, x, x), 1),
    lambda torch, x, y: torch.stack([x, x], dim=2),
    lambda torch, x, y: torch.stack([x, x], -1),
    lambda torch, x, y: torch.stack([x]),
    lambda torch, x, y: torch.stack([x[0, 0], x[1, 1]]),
    lambda torch, x, y: torch.stack([torch.empty(0), torch.empty(0)]),
    lambda torch, x, y: torch.stack([x, y]),
    lambda torch, x, y: torch.stack([x, x], 3),
    lambda torch, x, y: torch.stack([]),
    lambda torch, x, y: torch.hstack([x, x]),
    lambda torch, x, y: torch.hstack([x[0], y[0], x[0, 0]]),
    lambda torch, x, y: torch.hstack([x[0, 0], x[1, 1]]),
    lambda torch, x, y: torch.hstack([torch.empty(0), x[0]]),
    lambda torch, x, y: torch.hstack([]),
    lambda torch, x, y: torch.vstack([x, y]),
    lambda torch, x, y: torch.vstack([x[0], x[1]]),
    lambda torch, x, y: torch.vstack([x[0, 0], x[0, 1]]),
    lambda torch, x, y: torch.row_stack([x, x[0]]),
    lambda torch, x, y: torch.vstack([]),
    lambda torch, x, y: torch.dstack([x, x]),
    lambda torch, x, y: torch.dstack([x[0], x[1]]),
    lambda torch, x, y: torch.dstack([x[0, 0], x[0, 0]]),
    lambda torch, x, y: torch.dstack([x.unsqueeze(2), x]),
    lambda torch, x, y: torch.column_stack([x[0], x[1]]),
    lambda torch, x, y: torch.column_stack([x, x[:, 0], x[:, :2]]),
    lambda torch, x, y: torch.column_stack([x[0, 0], x[0, :1]]),
    lambda torch, x, y: torch.column_stack([]),
]


@pytest.mark.parametrize("fn", CAT_CASES)
def test_cat_stack(fn):
    check(fn, X34, arrays((3, 2), seed=1))


@pytest.mark.parametrize("a", DTYPES + ["uint8", "int8", "bfloat16"])
@pytest.mark.parametrize("b", DTYPES + ["int8"])
def test_cat_stack_promote(a, b):
    def fn(torch, x, y):
        x, y = x.to(getattr(torch, a)), y.to(getattr(torch, b))
        return torch.cat([x, y]), torch.stack([x, y], 1), torch.hstack([x, y]), torch.cat([torch.empty(0).to(
            getattr(torch, b)), x])
    check(fn, arrays((2, 3)), arrays((2, 3), seed=1))


@pytest.mark.parametrize("name", ["cat", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack"])
def test_joining_out(name):
    def fn(torch, x, y):
        out = torch.empty(0)
        r = getattr(torch, name)([x, y], out=out)
        wrong = torch.empty(7, dtype=torch.int64)
        return r is out, out, getattr(torch, name)([x, y], out=wrong) if name == "cat" else out
    check(fn, X34, arrays((3, 4), seed=1))
    check(lambda torch, x: torch.cat([x, x], out=torch.empty(2, dtype=torch.int32)), X34)
    check(lambda torch, x: torch.stack([x, x], out=torch.ones(2, 3, 4, dtype=torch.float64)), X34)


# -- split / chunk / unbind -----------------------------------------------------------------------------------
SPLIT_CASES = [
    lambda torch, x: x.split(2),
    lambda torch, x: x.split(2, 1),
    lambda torch, x: x.split(split_size=3),
    lambda torch, x: x.split([1, 4]),
    lambda torch, x: x.split((1, 0, 4)),
    lambda torch, x: x.split([1, 3]),
    lambda torch, x: x.split([1, -1, 5]),
    lambda torch, x: x.split(0),
    lambda torch, x: x.split(-1),
    lambda torch, x: x.split(10),
    lambda torch, x: x.split(2.0),
    lambda torch, x: x.split(torch.tensor(2)),
    lambda torch, x: x.split(1, dim=-1),
    lambda torch, x: x.split(1, 2),
    lambda torch, x: torch.split(x, 2),
    lambda torch, x: torch.split(x, [2, 2], 1),
    lambda torch, x: torch.split(x, split_size_or_sections=4, dim=0),
    lambda torch, x: x.split_with_sizes([1, 4]),
    lambda torch, x: torch.split_with_sizes(x, [2, 2], 1),
    lambda torch, x: torch.split_with_sizes(x, split_sizes=[3, 1], dim=-1),
    lambda torch, x: x.split_with_sizes([1, 3]),
    lambda torch, x: x.split_with_sizes(2),
    lambda torch, x: x.chunk(2),
    lambda torch, x: x.chunk(3),
    lambda torch, x: x.chunk(4, 1),
    lambda torch, x: x.chunk(6),
    lambda torch, x: x.chunk(3, dim=1),
    lambda torch, x: torch.chunk(x, chunks=2, dim=1),
    lambda torch, x: x.chunk(0),
    lambda torch, x: x.chunk(1, 2),
    lambda torch, x: x.tensor_split(3),
    lambda torch, x: x.tensor_split(7),
    lambda torch, x: x.tensor_split([1, 3]),
    lambda torch, x: x.tensor_split((1, 10)),
    lambda torch, x: x.tensor_split([3, 1]),
    lambda torch, x: x.tensor_split([-1]),
    lambda torch, x: x.tensor_split([-10, 2]),
    lambda torch, x: x.tensor_split([]),
    lambda torch, x: x.tensor_split(torch.tensor(2)),
    lambda torch, x: x.tensor_split(torch.tensor([1, 3])),
    lambda torch, x: x.tensor_split(2, dim=1),
    lambda torch, x: x.tensor_split(2, 1),
    lambda torch, x: torch.tensor_split(x, indices=[1]),
    lambda torch, x: torch.tensor_split(x, sections=2),
    lambda torch, x: torch.tensor_split(x, tensor_indices_or_sections=torch.tensor(2)),
    lambda torch, x: x.tensor_split(0),
    lambda torch, x: x.tensor_split(torch.tensor([[1]])),
    lambda torch, x: x.tensor_split(torch.tensor(2.0)),
    lambda torch, x: x.tensor_split(torch.tensor([1], dtype=torch.int32)),
    lambda torch, x: x.unbind(),
    lambda torch, x: x.unbind(1),
    lambda torch, x: torch.unbind(x, dim=-1),
    lambda torch, x: x.unbind(2),
    lambda torch, x: x.hsplit(2),
    lambda torch, x: x.hsplit([1]),
    lambda torch, x: x.hsplit(torch.tensor([1, 2])),
    lambda torch, x: x.hsplit(3),
    lambda torch, x: x[0].hsplit(2),
    lambda torch, x: torch.hsplit(x, 4),
    lambda torch, x: x.vsplit(5),
    lambda torch, x: x.vsplit([2, 3]),
    lambda torch, x: x.vsplit(0),
    lambda torch, x: torch.vsplit(x, 2),
    lambda torch, x: x[0].vsplit(2),
    lambda torch, x: x.view(5, 2, 2).dsplit(2),
    lambda torch, x: torch.dsplit(x.view(5, 2, 2), [1]),
    lambda torch, x: x.dsplit(2),
]


@pytest.mark.parametrize("fn", SPLIT_CASES)
def test_split_chunk_unbind(fn):
    check(fn, arrays((5, 4)))


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.split(1),
    lambda torch, x: x.chunk(1),
    lambda torch, x: x.tensor_split(1),
    lambda torch, x: x.unbind(),
    lambda torch, x: x.hsplit(1),
])
def test_split_zero_dim(fn):
    check(fn, S0)


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.split(2),
    lambda torch, x: x.split(0),
    lambda torch, x: x.split(2, 1),
    lambda torch, x: x.chunk(3),
    lambda torch, x: x.chunk(2, 1),
    lambda torch, x: x.tensor_split(2),
    lambda torch, x: x.tensor_split([1]),
    lambda torch, x: x.unbind(),
    lambda torch, x: x.unbind(1),
])
def test_split_empty(fn):
    check(fn, E03)


@pytest.mark.parametrize("dtype", DTYPES)
def test_split_dtypes(dtype):
    check(lambda torch, x: (x.split(2), x.chunk(2, 1), x.unbind(1), x.tensor_split([1], 1)),
          arrays((5, 3), dtype=dtype))


# -- meshgrid / atleast ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x, y: torch.meshgrid(x, y, indexing="ij"),
    lambda torch, x, y: torch.meshgrid(x, y, indexing="xy"),
    lambda torch, x, y: torch.meshgrid([x, y], indexing="ij"),
    lambda torch, x, y: torch.meshgrid((x, y, x[:2]), indexing="xy"),
    lambda torch, x, y: torch.meshgrid(x, y),
    lambda torch, x, y: torch.meshgrid(x, indexing="xy"),
    lambda torch, x, y: torch.meshgrid(x[0], y, indexing="ij"),
    lambda torch, x, y: torch.meshgrid(x[0], y[0], indexing="xy"),
    lambda torch, x, y: torch.meshgrid(x, torch.empty(0), indexing="ij"),
    lambda torch, x, y: torch.meshgrid(x, y, indexing="foo"),
    lambda torch, x, y: torch.meshgrid(x, y.view(2, 2), indexing="ij"),
    lambda torch, x, y: torch.meshgrid(x, y.long(), indexing="ij"),
    lambda torch, x, y: torch.meshgrid(indexing="ij"),
    lambda torch, x, y: [g.clone().add_(1) for g in torch.meshgrid(x, y, indexing="ij")],
])
def test_meshgrid(fn):
    check(_quiet(fn), arrays((3,)), arrays((4,), seed=1))


@pytest.mark.parametrize("fn", [
    lambda torch, s, v, m, b: torch.atleast_1d(s),
    lambda torch, s, v, m, b: torch.atleast_1d(v, s),
    lambda torch, s, v, m, b: torch.atleast_1d([v, s]),
    lambda torch, s, v, m, b: torch.atleast_1d((m,)),
    lambda torch, s, v, m, b: torch.atleast_1d(),
    lambda torch, s, v, m, b: torch.atleast_2d(s),
    lambda torch, s, v, m, b: torch.atleast_2d(v),
    lambda torch, s, v, m, b: torch.atleast_2d(s, v, m, b),
    lambda torch, s, v, m, b: torch.atleast_3d(s),
    lambda torch, s, v, m, b: torch.atleast_3d(v),
    lambda torch, s, v, m, b: torch.atleast_3d(m),
    lambda torch, s, v, m, b: torch.atleast_3d([s, v, m, b]),
    lambda torch, s, v, m, b: torch.atleast_3d(b) is b,
    lambda torch, s, v, m, b: torch.atleast_1d(v) is v,
    lambda torch, s, v, m, b: torch.atleast_1d(1),
    lambda torch, s, v, m, b: torch.atleast_2d(torch.empty(0)),
])
def test_atleast(fn):
    check(fn, S0, V5, X34, X234)


# -- gradients ------------------------------------------------------------------------------------------------
GRAD_CASES = [
    lambda torch, x: x.view(4, 6),
    lambda torch, x: x.view(-1).view(2, 12),
    lambda torch, x: x.reshape(6, 4),
    lambda torch, x: x.transpose(0, 2).reshape(-1),
    lambda torch, x: x.view_as(torch.ones(24)),
    lambda torch, x: x.permute(2, 0, 1),
    lambda torch, x: x.transpose(0, 1),
    lambda torch, x: x.mT,
    lambda torch, x: x[0].t(),
    lambda torch, x: x[0].T,
    lambda torch, x: x.movedim((0, 1), (2, 0)),
    lambda torch, x: x.unsqueeze(1).squeeze(),
    lambda torch, x: x[:1].squeeze(0),
    lambda torch, x: x.flatten(1),
    lambda torch, x: x.unflatten(2, (2, 2)),
    lambda torch, x: x.ravel(),
    lambda torch, x: x.t().ravel() if x.dim() == 2 else x.transpose(0, 2).ravel(),
    lambda torch, x: x[:, :1].expand(2, 3, 4),
    lambda torch, x: x.expand(2, 2, 3, 4),
    lambda torch, x: torch.broadcast_tensors(x, x[:1, :1]),
    lambda torch, x: torch.cat([x, x * 2], 1),
    lambda torch, x: torch.cat([x, torch.ones(2, 1, 4)], 1),
    lambda torch, x: torch.cat([x, torch.empty(0), x.double()], 2),
    lambda torch, x: torch.stack([x, x[::-1] if False else x * 3], 2),
    lambda torch, x: torch.hstack([x, x]),
    lambda torch, x: torch.vstack([x[0], x[1]]),
    lambda torch, x: torch.dstack([x[0], x[1]]),
    lambda torch, x: torch.column_stack([x[0, 0], x[0].t()]),
    lambda torch, x: x.split(2, 2),
    lambda torch, x: x.split([1, 2], 1),
    lambda torch, x: x.chunk(3, 2),
    lambda torch, x: x.tensor_split([1, 3, 1], 2),
    lambda torch, x: x.unbind(1),
    lambda torch, x: x.hsplit(3),
    lambda torch, x: x.narrow(2, 1, 2),
    lambda torch, x: x.select(1, -1),
    lambda torch, x: x.diagonal(),
    lambda torch, x: x.diagonal(1, 2, 1),
    lambda torch, x: x.diagonal(-1, 0, 2),
    lambda torch, x: x[0].diag(1),
    lambda torch, x: x[0, 0].diag(-1),
    lambda torch, x: x.diag_embed(1, 0, 2),
    lambda torch, x: x[0].diagflat(-1),
    lambda torch, x: x[0].trace(),
    lambda torch, x: x.tril(),
    lambda torch, x: x.triu(1),
    lambda torch, x: x.flip(0, 2),
    lambda torch, x: x.fliplr(),
    lambda torch, x: x.roll((1, -1), (1, 2)),
    lambda torch, x: x.roll(5),
    lambda torch, x: x.rot90(1, (1, 2)),
    lambda torch, x: x.rot90(2),
    lambda torch, x: x.rot90(-1),
    lambda torch, x: x.repeat(2, 1, 1, 2),
    lambda torch, x: x.tile((2,)),
    lambda torch, x: x.repeat_interleave(2, 1),
    lambda torch, x: x.repeat_interleave(torch.tensor([0, 2, 1]), dim=1),
    lambda torch, x: x.repeat_interleave(2),
    lambda torch, x: torch.meshgrid(x[0, 0], x[1, 1], indexing="xy"),
    lambda torch, x: torch.atleast_3d(x[0, 0]),
]


@pytest.mark.parametrize("fn", GRAD_CASES)
def test_gradients(fn):
    check_grad(fn, X234)


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.view(6, 4) * x.view(6, 4),
    lambda torch, x: x.diagonal(0, 1, 2) ** 2,
    lambda torch, x: torch.cat([x, x * x]).exp(),
    lambda torch, x: x.unbind(0)[1] * x.select(0, 1),
])
def test_second_order_gradients(fn):
    def grad_of_grad(torch, x):
        x.requires_grad_()
        y = fn(torch, x).sum()
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        (gg,) = torch.autograd.grad((g * g).sum(), x)
        return g.detach(), gg
    check(grad_of_grad, arrays((2, 3, 3), dtype="float64"))


# -- dtypes / shapes sweep with hypothesis ----------------------------------------------------------------------
@given(st.lists(st.integers(0, 3), min_size=1, max_size=4), st.sampled_from(DTYPES), st.integers(-4, 4))
@settings(max_examples=40, deadline=None)
def test_random_shapes(shape, dtype, k):
    x = arrays(tuple(shape), dtype=dtype, seed=abs(k))
    ndim = len(shape)
    d = k % ndim

    def fn(torch, x):
        out = [x.flatten(), x.unsqueeze(d), x.squeeze(), x.transpose(0, d), x.flip(d), x.roll(k, d),
               x.repeat_interleave(2, d), torch.cat([x, x], d), torch.stack([x, x], d), x.chunk(2, d),
               x.tensor_split(3, d), x.unbind(d), x.movedim(0, d), x.expand(2, *x.shape), x.split(2, d)]
        if ndim >= 2:
            out += [x.diagonal(k, 0, -1), x.tril(k), x.triu(k), x.rot90(k, (0, -1)), x.diag_embed(k)]
        return out
    check(fn, x)
