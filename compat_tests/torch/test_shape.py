"""vfw.torch view and shape ops against real torch: values, dtypes, shared memory, errors, gradients."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compat_tests.torch.harness import arrays, check, check_grad, vt

DTYPES = ["float32", "float64", "float16", "int64", "int32", "bool"]

X34 = arrays((3, 4))
X234 = arrays((2, 3, 4), seed=1)
X2134 = arrays((2, 1, 3, 1), seed=2)
S0 = np.array(1.5, np.float32)
E03 = np.zeros((0, 3), np.float32)


def _quiet(fn):
    """``fn`` with torch's deprecation warnings (x.T on non-matrices, meshgrid without indexing) silenced."""
    def run(torch, *args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(torch, *args)
    return run


# -- view / reshape -------------------------------------------------------------------------------------------
VIEW_CASES = [
    lambda torch, x: x.view(4, 3),
    lambda torch, x: x.view(-1),
    lambda torch, x: x.view((2, -1)),
    lambda torch, x: x.view([2, 2, 3]),
    lambda torch, x: x.view(torch.Size([12, 1])),
    lambda torch, x: x.view(size=(6, 2)),
    lambda torch, x: x.view(12, 1, 1),
    lambda torch, x: x.view(5),
    lambda torch, x: x.view(-1, -1),
    lambda torch, x: x.view(-2, 6),
    lambda torch, x: x.view(2.0, 6),
    lambda torch, x: x.view(),
    lambda torch, x: x.t().view(12),
    lambda torch, x: x.t().view(2, 2, 3),
    lambda torch, x: x[:, 1:3].view(6),
    lambda torch, x: x[:, 1:3].view(3, 2, 1),
    lambda torch, x: x[::2].view(8),
    lambda torch, x: x[::2].view(2, 2, 2),
    lambda torch, x: x.view_as(torch.ones(6, 2)),
    lambda torch, x: x.view_as(torch.ones(5)),
    lambda torch, x: x.reshape(6, 2),
    lambda torch, x: x.reshape((-1,)),
    lambda torch, x: x.reshape(shape=(2, 6)),
    lambda torch, x: x.t().reshape(12),
    lambda torch, x: x.t().reshape(-1, 2),
    lambda torch, x: x.reshape(7),
    lambda torch, x: x.reshape(),
    lambda torch, x: torch.reshape(x, (3, 2, 2)),
    lambda torch, x: torch.reshape(x, shape=[-1]),
    lambda torch, x: torch.reshape(x, 12),
    lambda torch, x: torch.reshape(x.numpy(), (12,)),
    lambda torch, x: x.reshape_as(torch.ones(2, 6)),
    lambda torch, x: x.reshape_as(torch.ones(2, 5)),
]


@pytest.mark.parametrize("fn", VIEW_CASES)
def test_view_reshape(fn):
    check(fn, X34)


@pytest.mark.parametrize("dtype", DTYPES)
def test_view_reshape_dtypes(dtype):
    x = arrays((2, 3, 4), dtype=dtype)
    check(lambda torch, x: (x.view(6, 4), x.reshape(4, -1), x.transpose(0, 2).reshape(-1)), x)


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.view(()),
    lambda torch, x: x.view(1),
    lambda torch, x: x.view(-1),
    lambda torch, x: x.view(1, 1),
    lambda torch, x: x.reshape([]),
    lambda torch, x: x.reshape(2),
])
def test_view_zero_dim(fn):
    check(fn, S0)


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.view(-1),
    lambda torch, x: x.view(0, 5),
    lambda torch, x: x.view(-1, 0),
    lambda torch, x: x.view(3, -1),
    lambda torch, x: x.t().view(-1),
    lambda torch, x: x.reshape(0, 3, 0),
])
def test_view_empty(fn):
    check(fn, E03)


@pytest.mark.parametrize("target", ["int32", "float32", "int16", "float16", "bfloat16", "int8", "uint8", "bool",
                                    "float64", "int64"])
@pytest.mark.parametrize("layout", ["plain", "t", "cols", "rows", "scalar"])
def test_view_dtype(target, layout):
    def fn(torch, x):
        x = {"plain": x, "t": x.t(), "cols": x[:, :2], "rows": x[1:], "scalar": x[0, 0]}[layout]
        v = x.view(getattr(torch, target))
        if v.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
            v = v.view(torch.int8)  # reinterpreted floats may hold NaN payloads: compare the bytes
        return v
    check(fn, np.arange(12, dtype=np.float32).reshape(3, 4) / 7)
    check(lambda torch, x: x.view(dtype=getattr(torch, target)).view(torch.uint8), arrays((2, 8), dtype="int32"))


def test_view_dtype_odd_sizes():
    check(lambda torch, x: x.view(torch.float64), arrays((3, 3)))
    check(lambda torch, x: x[:, 1:3].view(torch.float64), X34)
    check(lambda torch, x: x[:, 1:].view(torch.float64), X34)


@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.integers(0, 1000), st.data())
@settings(max_examples=60, deadline=None)
def test_view_compatibility_hypothesis(shape, seed, data):
    """view succeeds exactly where torch's strides allow it, on permuted and sliced inputs."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    perm = tuple(rng.permutation(len(shape)).tolist())
    step = int(rng.integers(1, 3))
    size = int(np.prod(shape[1:])) * len(range(0, shape[0], step))
    target = data.draw(st.sampled_from([(-1,), (size, 1), (1, size, 1)] +
                                       [(d, -1) for d in (1, 2, 3, 4) if size % d == 0]))

    def fn(torch, x):
        y = x[::step].permute(*perm)
        v = y.view(*target)
        v.mul_(2)
        return v, x

    check(fn, x)


# -- views share memory: writes show both ways -----------------------------------------------------------------
VIEW_OPS = [
    lambda torch, x: x.view(4, 3),
    lambda torch, x: x.view(-1),
    lambda torch, x: x.reshape(2, 6),
    lambda torch, x: x.view_as(torch.ones(12)),
    lambda torch, x: x.reshape_as(torch.ones(6, 2)),
    lambda torch, x: x.permute(1, 0),
    lambda torch, x: x.transpose(0, 1),
    lambda torch, x: torch.swapaxes(x, 0, 1),
    lambda torch, x: x.t(),
    lambda torch, x: x.T,
    lambda torch, x: x.mT,
    lambda torch, x: x.movedim(0, 1),
    lambda torch, x: x.unsqueeze(0),
    lambda torch, x: x.unsqueeze(1).squeeze(1),
    lambda torch, x: x.view(3, 1, 4).squeeze(),
    lambda torch, x: x.flatten(),
    lambda torch, x: x.ravel(),
    lambda torch, x: x.unflatten(1, (2, 2)),
    lambda torch, x: x.expand(1, 3, 4),
    lambda torch, x: x.expand_as(x),
    lambda torch, x: x.narrow(1, 1, 2),
    lambda torch, x: x.select(0, 1),
    lambda torch, x: x.select(1, -1),
    lambda torch, x: x.diagonal(),
    lambda torch, x: x.diagonal(1),
    lambda torch, x: x.diagonal(-1, 1, 0),
    lambda torch, x: x.tensor_split([1, 3], 1)[1],
    lambda torch, x: x.hsplit(2)[1],
    lambda torch, x: torch.atleast_3d(x),
    lambda torch, x: x.t().view(2, 2, 3),
    lambda torch, x: x.t().T.view(12),
    lambda torch, x: x.view(torch.int32),  # last: left out where gradients flow
]

# Pieces of ops that return several views: torch refuses to use them in autograd after their base was written
# in place, so they are kept out of test_views_under_autograd.
MULTI_VIEW_OPS = [
    lambda torch, x: x.split(2, 1)[1],
    lambda torch, x: x.split([1, 2])[1],
    lambda torch, x: x.chunk(2, 1)[0],
    lambda torch, x: x.unbind(1)[2],
]


@pytest.mark.parametrize("fn", VIEW_OPS + MULTI_VIEW_OPS)
def test_write_through_view_shows_in_base(fn):
    def write(torch, x):
        v = fn(torch, x)
        v.fill_(7) if v.dtype == torch.int32 else v.add_(1)
        return x, v, x._version, v._version
    check(write, X34)


@pytest.mark.parametrize("fn", VIEW_OPS + MULTI_VIEW_OPS)
def test_write_into_base_shows_in_view(fn):
    def write(torch, x):
        v = fn(torch, x)
        x.mul_(2)
        x[0].zero_()
        return v, v._version
    check(write, X34)


@pytest.mark.parametrize("fn", VIEW_OPS + MULTI_VIEW_OPS)
def test_view_of_view_chain(fn):
    def write(torch, x):
        v = fn(torch, x.view(3, 4)[:, :])
        v.copy_(torch.zeros_like(v))
        return x
    check(write, X34)


@pytest.mark.parametrize("fn", VIEW_OPS + MULTI_VIEW_OPS)
def test_setitem_through_views(fn):
    def write(torch, x):
        v = fn(torch, x)
        v[..., :1] = 5
        x[1] = -1
        return x, v
    check(write, X34)


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.reshape(6, 2).clone(),
    lambda torch, x: x.t().reshape(12),
    lambda torch, x: x.t().flatten(),
    lambda torch, x: x.t().ravel(),
    lambda torch, x: x.flip(0),
    lambda torch, x: x.roll(1, 0),
    lambda torch, x: x.rot90(),
    lambda torch, x: x.rot90(0),
    lambda torch, x: x.repeat(1, 1),
    lambda torch, x: x.tile((1,)),
    lambda torch, x: x.repeat_interleave(1, 0),
    lambda torch, x: x.diag(),
    lambda torch, x: x.tril(),
    lambda torch, x: x.triu(-5),
    lambda torch, x: torch.cat([x]),
    lambda torch, x: torch.stack([x]),
    lambda torch, x: x.flip(()),
    lambda torch, x: x.roll(0, 0),
])
def test_copies_do_not_alias(fn):
    def write(torch, x):
        y = fn(torch, x)
        y.add_(1)
        return x, y
    check(write, X34)


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.expand(3, 4).add_(1),
    lambda torch, x: x.expand(3, 4).mul_(2),
    lambda torch, x: x.expand(2, 3, 4).copy_(torch.zeros(2, 3, 4)),
])
def test_write_into_expanded_raises(fn):
    check(fn, arrays((3, 1)))


def test_write_into_expand_without_repeats():
    check(lambda torch, x: (x.expand(1, 3, 4).add_(1), x.expand(-1, -1).mul_(2), x), X34)


@pytest.mark.parametrize("fn", VIEW_OPS[:-1])
def test_views_under_autograd(fn):
    """With autograd recording, results still share memory with (and show writes to) the base."""
    def run(torch, x):
        x.requires_grad_()
        y = x * 1
        v = fn(torch, y)
        with torch.no_grad():
            y.mul_(2)
        out = v * 3
        out.sum().backward()
        return v.detach(), x.grad, v.requires_grad, v.is_leaf
    check(run, X34)


def test_inplace_and_views_under_autograd():
    def leaf_view_write(torch, x):
        x.requires_grad_()
        x.view(12).add_(1)
    check(leaf_view_write, X34)

    def view_write(torch, x):
        x.requires_grad_()
        y = x * 1
        y.view(12).add_(1)
        y[0].mul_(x[1])
        (y * y).sum().backward()
        return y, x.grad
    check(view_write, X34)

    def write_view_of_constant(torch, x):
        x.requires_grad_()
        out = torch.zeros(3, 4)
        out[1].copy_(x[0] * 2)
        out.t()[2].mul_(x[2, 2])
        (out ** 2).sum().backward()
        return out, x.grad, out.requires_grad
    check(write_view_of_constant, X34)

    def zero_part(torch, x):
        x.requires_grad_()
        y = x.exp()
        y[:, 1:3].zero_()
        y.sum().backward()
        return y, x.grad
    check(zero_part, X34)


def test_view_used_after_inplace_write_into_base():
    def fn(torch, x):
        x.requires_grad_()
        y = x * 1
        v = y.view(4, 3)
        row = y[1]
        y.mul_(2)
        (v * 1).sum().backward(retain_graph=True)
        (row * x[0]).sum().backward()
        return x.grad, v, row.grad_fn is not None
    check(fn, X34)

    def detached_alias_sees_write(torch, x):
        x.requires_grad_()
        y = x * 1
        d = y.detach()
        y.mul_(2)
        y.sum().backward()
        return d, x.grad
    check(detached_alias_sees_write, X34)


# -- permutations ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: x.permute(2, 0, 1),
    lambda torch, x: x.permute((2, 0, 1)),
    lambda torch, x: x.permute([-1, 0, 1]),
    lambda torch, x: x.permute(dims=(1, 2, 0)),
    lambda torch, x: torch.permute(x, (2, 1, 0)),
    lambda torch, x: torch.permute(x, dims=[0, 2, 1]),
    lambda torch, x: x.permute(2, 0),
    lambda torch, x: x.permute(2, 0, 0),
    lambda torch, x: x.permute(2, 0, 3),
    lambda torch, x: x.permute(0, 1, 2.0),
    lambda torch, x: x.transpose(0, 2),
    lambda torch, x: x.transpose(-1, 1),
    lambda torch, x: x.transpose(1, 1),
    lambda torch, x: torch.transpose(x, 0, 1),
    lambda torch, x: torch.transpose(x, dim0=2, dim1=0),
    lambda torch, x: x.transpose(0, 3),
    lambda torch, x: torch.swapaxes(x, axis0=0, axis1=2),
    lambda torch, x: torch.swapdims(x, dim0=1, dim1=2),
    lambda torch, x: x.swapaxes(0, 1),
    lambda torch, x: x.swapdims(-1, -3),
    lambda torch, x: x.t(),
    lambda torch, x: x.mT,
    lambda torch, x: x.mH,
    lambda torch, x: x.adjoint(),
    lambda torch, x: torch.adjoint(x),
    lambda torch, x: x.H,
    lambda torch, x: x.T,
    lambda torch, x: x.movedim(0, 2),
    lambda torch, x: x.movedim((0, 1), (2, 0)),
    lambda torch, x: x.movedim([-1], [0]),
    lambda torch, x: torch.movedim(x, source=[0], destination=[1]),
    lambda torch, x: torch.moveaxis(x, 0, -1),
    lambda torch, x: x.moveaxis((0, 2), (2, 0)),
    lambda torch, x: x.movedim((0, 0), (1, 2)),
    lambda torch, x: x.movedim((0, 1), (1, 1)),
    lambda torch, x: x.movedim((0, 1), (2,)),
    lambda torch, x: x.movedim(0, (1,)),
    lambda torch, x: x.movedim(3, 0),
    lambda torch, x: torch.t(torch.ones(3)),
    lambda torch, x: torch.t(x[0]),
    lambda torch, x: x[0, 0].t(),
    lambda torch, x: x[0].T,
    lambda torch, x: x[0, 0].T,
    lambda torch, x: x[0, 0].mT,
    lambda torch, x: x[0, 0].mH,
    lambda torch, x: x[0, 0].H,
    lambda torch, x: x[0, 0].adjoint(),
    lambda torch, x: x[0, 0].permute(()),
    lambda torch, x: x[0, 0].transpose(0, -1),
    lambda torch, x: x[0, 0].transpose(0, 1),
    lambda torch, x: x[0, 0].movedim(0, 0),
    lambda torch, x: x[0, 0, 0].mT,
    lambda torch, x: x[0, 0, 0].mH,
    lambda torch, x: x[0, 0, 0].H,
    lambda torch, x: x[0, 0, 0].adjoint(),
])
def test_permutations(fn):
    check(_quiet(fn), X234)


def test_transpose_warnings():
    # torch warns once per process (TORCH_WARN_ONCE), as vfw: compat_tests/torch/test_warn_once.py counts them
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert vt.ones(2, 3).T.shape == (3, 2)


# -- squeeze / unsqueeze / flatten / unflatten ------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: x.squeeze(),
    lambda torch, x: x.squeeze(1),
    lambda torch, x: x.squeeze(0),
    lambda torch, x: x.squeeze(-1),
    lambda torch, x: x.squeeze((1, 3)),
    lambda torch, x: x.squeeze([0, 1]),
    lambda torch, x: x.squeeze(dim=(3,)),
    lambda torch, x: x.squeeze(()),
    lambda torch, x: torch.squeeze(x),
    lambda torch, x: torch.squeeze(x, 1),
    lambda torch, x: torch.squeeze(x, dim=-3),
    lambda torch, x: x.squeeze(4),
    lambda torch, x: x.squeeze((1, 1)),
    lambda torch, x: x.squeeze(None),
    lambda torch, x: x.unsqueeze(0),
    lambda torch, x: x.unsqueeze(4),
    lambda torch, x: x.unsqueeze(-1),
    lambda torch, x: x.unsqueeze(-5),
    lambda torch, x: torch.unsqueeze(x, dim=2),
    lambda torch, x: x.unsqueeze(5),
    lambda torch, x: x.unsqueeze(-6),
    lambda torch, x: x.unsqueeze(1.0),
    lambda torch, x: x.unsqueeze((0,)),
    lambda torch, x: x.flatten(),
    lambda torch, x: x.flatten(1),
    lambda torch, x: x.flatten(1, 2),
    lambda torch, x: x.flatten(-2, -1),
    lambda torch, x: x.flatten(start_dim=0, end_dim=1),
    lambda torch, x: torch.flatten(x, 2),
    lambda torch, x: x.flatten(2, 2),
    lambda torch, x: x.flatten(2, 1),
    lambda torch, x: x.flatten(0, 4),
    lambda torch, x: x.transpose(0, 2).flatten(),
    lambda torch, x: x.transpose(0, 2).flatten(2),
    lambda torch, x: x.unflatten(2, (3, 1)),
    lambda torch, x: x.unflatten(-2, (-1, 1)),
    lambda torch, x: x.unflatten(0, [1, 2]),
    lambda torch, x: x.unflatten(0, torch.Size([2, 1])),
    lambda torch, x: torch.unflatten(x, 2, (1, 3, 1)),
    lambda torch, x: x.unflatten(2, (2, 2)),
    lambda torch, x: x.unflatten(2, (-1, 2)),
    lambda torch, x: x.unflatten(2, ()),
    lambda torch, x: x.unflatten(2, (-1, -1)),
    lambda torch, x: x.unflatten(4, (1,)),
    lambda torch, x: x.transpose(0, 2).unflatten(0, (3, 1)),
    lambda torch, x: x.ravel(),
    lambda torch, x: torch.ravel(x.transpose(0, 2)),
])
def test_squeeze_unsqueeze_flatten(fn):
    check(fn, X2134)


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.squeeze(),
    lambda torch, x: x.squeeze(0),
    lambda torch, x: x.squeeze(-1),
    lambda torch, x: x.squeeze(1),
    lambda torch, x: x.squeeze(()),
    lambda torch, x: x.unsqueeze(0),
    lambda torch, x: x.unsqueeze(-1),
    lambda torch, x: x.unsqueeze(1),
    lambda torch, x: x.flatten(),
    lambda torch, x: x.flatten(0, 0),
    lambda torch, x: x.flatten(0, -1),
    lambda torch, x: x.flatten(1),
    lambda torch, x: x.unflatten(0, (1,)),
    lambda torch, x: x.ravel(),
])
def test_squeeze_unsqueeze_flatten_zero_dim(fn):
    check(fn, S0)


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.squeeze(),
    lambda torch, x: x.unsqueeze(1),
    lambda torch, x: x.flatten(),
    lambda torch, x: x.unflatten(0, (-1, 0)),
    lambda torch, x: x.unflatten(1, (-1, 3)),
    lambda torch, x: x.unflatten(1, (3, 1)),
])
def test_squeeze_flatten_empty(fn):
    check(fn, E03)


def test_flatten_returns_self_when_nothing_merges():
    check(lambda torch, x: (x.flatten(1, 1) is x, x[0].flatten() is x[0], x.ravel() is x), X34)


# -- in-place shape changes -------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: x.squeeze_(),
    lambda torch, x: x.squeeze_(1),
    lambda torch, x: x.squeeze_((1, 3)),
    lambda torch, x: x.squeeze_(0),
    lambda torch, x: x.unsqueeze_(0),
    lambda torch, x: x.unsqueeze_(-1),
    lambda torch, x: x.unsqueeze_(9),
    lambda torch, x: x.transpose_(0, 2),
    lambda torch, x: x.swapaxes_(0, 1),
    lambda torch, x: x.swapdims_(1, 3),
    lambda torch, x: x.squeeze_().t_(),
    lambda torch, x: x.t_(),
])
def test_inplace_shape_changes(fn):
    def run(torch, x):
        before = x
        y = fn(torch, x)
        return y is before, x, x.shape, x._version, x.is_contiguous()
    check(run, X2134)


def test_inplace_shape_change_keeps_sharing_memory():
    def run(torch, x):
        v = x.view(3, 4)
        v.unsqueeze_(0).transpose_(1, 2)
        v.add_(1)
        x.mul_(2)
        return x, v, v._version
    check(run, arrays((12,)))


def test_inplace_shape_change_autograd():
    def run(torch, x):
        y = x * 2
        y.unsqueeze_(0).transpose_(1, 2)
        return y
    check_grad(run, X34)
    check(lambda torch, x: x.requires_grad_().unsqueeze_(0), X34)
    check(lambda torch, x: x.requires_grad_().t_(), X34)

    def no_grad(torch, x):
        x.requires_grad_()
        with torch.no_grad():
            x.squeeze_()
        return x.detach()
    check(no_grad, X2134)


# -- keyword names ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    "x.tile(dims=(2,))", "torch.cat(tensors=[x, x])", "torch.stack(tensors=[x, x])", "x.unflatten(dim=1, sizes=(2, 2))",
    "torch.flatten(input=x, start_dim=0, end_dim=1)", "torch.squeeze(input=x)", "x.hsplit(sections=2)",
    "x.hsplit(indices=[1])", "torch.hsplit(x, sections=2)", "x.diag_embed(offset=1)",
    "torch.broadcast_to(input=x, size=(2, 3, 4))", "x.expand_as(other=x)", "x.view_as(other=x)",
    "torch.meshgrid(tensors=[x[0], x[1]], indexing='ij')", "x.repeat_interleave(repeats=2)",
    "torch.narrow(x, 0, start=1, length=1)", "torch.swapaxes(input=x, axis0=0, axis1=1)", "torch.t(input=x)",
    "torch.ravel(input=x)", "torch.diagonal(input=x, offset=1)", "torch.trace(input=x)", "torch.tril(input=x)",
    "torch.roll(input=x, shifts=1)", "torch.rot90(input=x)", "torch.fliplr(input=x)",
    "torch.split(tensor=x, split_size_or_sections=1)", "torch.chunk(input=x, chunks=2)", "torch.unbind(input=x)",
    "torch.tensor_split(input=x, sections=2)", "torch.vsplit(x, indices=[1])",
    "torch.dsplit(x.view(3, 2, 2), sections=2)", "torch.movedim(input=x, source=0, destination=1)",
    "torch.diag(input=x)", "torch.diagflat(input=x)", "torch.diag_embed(input=x)",
    "torch.repeat_interleave(input=x, repeats=2)", "torch.tile(input=x, dims=(2,))", "torch.flip(input=x, dims=(0,))",
    "torch.permute(input=x, dims=(1, 0))", "torch.reshape(input=x, shape=(12,))", "torch.unsqueeze(input=x, dim=0)",
    "torch.select(input=x, dim=0, index=0)", "torch.concat(tensors=[x])", "torch.hstack(tensors=[x])",
    "torch.column_stack(tensors=[x])", "torch.split_with_sizes(input=x, split_sizes=[1, 2])",
    "torch.adjoint(input=x)", "x.squeeze_(dim=0)", "x.unsqueeze_(dim=0)", "x.transpose_(dim0=0, dim1=1)",
    "x.tril_(diagonal=1)", "x.triu_(diagonal=-1)", "x.flip(dims=[0])", "x.permute(dims=[1, 0])",
    "x.repeat(repeats=[1, 2])", "x.roll(shifts=(1,), dims=(0,))", "x.select(dim=1, index=-1)",
    "x.narrow(1, 1, length=2)",
    "x.movedim(source=(0,), destination=(1,))", "x.split(split_size=2, dim=1)", "x.chunk(chunks=2, dim=1)",
    "x.diagonal(offset=-1, dim1=1, dim2=0)", "x.rot90(k=-1, dims=[1, 0])", "x.squeeze(dim=(0, 1))",
])
def test_keyword_arguments(call):
    check(lambda torch, x: eval(call, {"torch": torch, "x": x}), X34)
