"""vfw.torch narrow, select, diagonals, triangles, flips, rolls and repeats against real torch."""


import pytest

from compat_tests.torch.harness import arrays, check

DTYPES = ["float32", "float64", "float16", "int64", "int32", "bool"]

X34 = arrays((3, 4))
X234 = arrays((2, 3, 4), seed=1)


# -- narrow / select / diagonal -------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: x.narrow(0, 1, 2),
    lambda torch, x: x.narrow(1, -1, 1),
    lambda torch, x: x.narrow(0, 3, 0),
    lambda torch, x: x.narrow(-1, 0, 4),
    lambda torch, x: x.narrow(0, torch.tensor(1), 2),
    lambda torch, x: torch.narrow(x, dim=1, start=1, length=2),
    lambda torch, x: x.narrow(0, 4, 0),
    lambda torch, x: x.narrow(0, 2, 2),
    lambda torch, x: x.narrow(0, -4, 1),
    lambda torch, x: x.narrow(0, 1, -1),
    lambda torch, x: x.narrow(2, 0, 1),
    lambda torch, x: x.narrow(0, torch.tensor([1]), 2),
    lambda torch, x: x[0, 0].narrow(0, 0, 1),
    lambda torch, x: x.select(0, 1),
    lambda torch, x: x.select(1, -1),
    lambda torch, x: x[0].select(0, 2),
    lambda torch, x: torch.select(x, dim=1, index=2),
    lambda torch, x: x.select(0, torch.tensor(1)),
    lambda torch, x: x.select(0, 3),
    lambda torch, x: x.select(0, -4),
    lambda torch, x: x.select(2, 0),
    lambda torch, x: x.select(0, 1.0),
    lambda torch, x: x[0, 0].select(0, 0),
    lambda torch, x: x.diagonal(),
    lambda torch, x: x.diagonal(1),
    lambda torch, x: x.diagonal(-1),
    lambda torch, x: x.diagonal(5),
    lambda torch, x: x.diagonal(-3),
    lambda torch, x: x.diagonal(0, 1, 0),
    lambda torch, x: torch.diagonal(x, offset=2, dim1=-1, dim2=-2),
    lambda torch, x: x.view(3, 2, 2).diagonal(0, 0, 2),
    lambda torch, x: x.view(3, 2, 2).diagonal(offset=1, dim1=-1, dim2=0),
    lambda torch, x: x.view(3, 2, 2).diagonal(0, 1, 1),
    lambda torch, x: x.t().diagonal(1),
    lambda torch, x: x[0].diagonal(),
    lambda torch, x: x[0, 0].diagonal(),
])
def test_narrow_select_diagonal(fn):
    check(fn, X34)


@pytest.mark.parametrize("dtype", DTYPES)
def test_narrow_select_diagonal_dtypes(dtype):
    check(lambda torch, x: (x.narrow(1, 1, 2), x.select(0, -1), x.diagonal(1), x.diagonal(-1, 2, 0)),
          arrays((3, 4, 5), dtype=dtype))


# -- diag / diag_embed / diagflat / trace / tril / triu ---------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: x[0].diag(),
    lambda torch, x: x[0].diag(1),
    lambda torch, x: x[0].diag(-2),
    lambda torch, x: torch.diag(x[0], diagonal=1),
    lambda torch, x: x.diag(),
    lambda torch, x: x.diag(2),
    lambda torch, x: x.diag(-1),
    lambda torch, x: x.diag(5),
    lambda torch, x: x.t().diag(-5),
    lambda torch, x: x.view(2, 3, 2).diag(),
    lambda torch, x: x[0, 0].diag(),
    lambda torch, x: torch.empty(0).diag(),
    lambda torch, x: torch.empty(0, 3).diag(),
    lambda torch, x: x[0].diag_embed(),
    lambda torch, x: x[0].diag_embed(1),
    lambda torch, x: x[0].diag_embed(-1, 0, 1),
    lambda torch, x: x.diag_embed(),
    lambda torch, x: x.diag_embed(0, 0, 2),
    lambda torch, x: x.diag_embed(2, 2, 0),
    lambda torch, x: torch.diag_embed(x, offset=-1, dim1=0, dim2=2),
    lambda torch, x: x.view(2, 3, 2).diag_embed(1, 1, 3),
    lambda torch, x: x.diag_embed(0, 1, 1),
    lambda torch, x: x.diag_embed(0, 3, 0),
    lambda torch, x: x[0, 0].diag_embed(),
    lambda torch, x: torch.empty(0).diag_embed(2),
    lambda torch, x: x[0].diagflat(),
    lambda torch, x: x.diagflat(1),
    lambda torch, x: torch.diagflat(x, offset=-2),
    lambda torch, x: x[0, 0].diagflat(),
    lambda torch, x: x.trace(),
    lambda torch, x: torch.trace(x.t()),
    lambda torch, x: x[0].trace(),
    lambda torch, x: x.view(2, 3, 2).trace(),
    lambda torch, x: torch.empty(0, 3).trace(),
    lambda torch, x: x.tril(),
    lambda torch, x: x.tril(1),
    lambda torch, x: x.triu(diagonal=-1),
    lambda torch, x: torch.tril(x, -10),
    lambda torch, x: torch.triu(x, 10),
    lambda torch, x: x.view(3, 2, 2).tril(),
    lambda torch, x: x.t().triu(),
    lambda torch, x: x[0].tril(),
    lambda torch, x: x.tril(1.5),
    lambda torch, x: torch.empty(0, 3).triu(),
])
def test_diag_tril(fn):
    check(fn, X34)


@pytest.mark.parametrize("dtype", DTYPES)
def test_diag_tril_dtypes(dtype):
    def fn(torch, x):
        out = (x[0].diag(1), x.diag(-1), x.diag_embed(1), x[0].diagflat(), x.tril(), x.triu(1))
        return out + ((x.trace(),) if x.dtype != torch.bool else ())
    check(fn, arrays((3, 4), dtype=dtype))
    check(lambda torch, x: x.trace(), arrays((3, 4), dtype=dtype))


def test_diag_tril_out_and_inplace():
    def fn(torch, x):
        o1, o2, o3 = torch.empty(0), torch.empty(0), torch.empty(0)
        torch.diag(x, 1, out=o1)
        torch.tril(x, out=o2)
        torch.triu(x, -1, out=o3)
        y = x.clone()
        z = x.clone()
        return o1, o2, o3, y.tril_(1), y, z.triu_(), z._version
    check(fn, X34)

    def view_inplace(torch, x):
        x.view(2, 2, 3).tril_()
        return x
    check(view_inplace, arrays((12,)))


# -- flips, rolls, repeats ------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: x.flip(0),
    lambda torch, x: x.flip((0, 2)),
    lambda torch, x: x.flip(0, 1),
    lambda torch, x: x.flip([-1]),
    lambda torch, x: x.flip(dims=(1,)),
    lambda torch, x: torch.flip(x, dims=[1, 2]),
    lambda torch, x: torch.flip(x, (0,)),
    lambda torch, x: x.flip(()),
    lambda torch, x: x.flip([0, 0]),
    lambda torch, x: x.flip(3),
    lambda torch, x: x.flip(),
    lambda torch, x: torch.flip(x, 0),
    lambda torch, x: x[0, 0, 0].flip(0),
    lambda torch, x: torch.fliplr(x),
    lambda torch, x: torch.flipud(x),
    lambda torch, x: x[0, 0].fliplr(),
    lambda torch, x: x[0, 0].flipud(),
    lambda torch, x: x[0, 0, 0].flipud(),
    lambda torch, x: x.roll(1),
    lambda torch, x: x.roll(-5),
    lambda torch, x: x.roll(1, 0),
    lambda torch, x: x.roll((1, 2), (0, 1)),
    lambda torch, x: x.roll(shifts=-7, dims=2),
    lambda torch, x: torch.roll(x, [1], [0]),
    lambda torch, x: torch.roll(x, shifts=(3, 3), dims=(2, 2)),
    lambda torch, x: x.roll(0, 1),
    lambda torch, x: x.roll((1, 2), 0),
    lambda torch, x: x.roll(1, (0, 1)),
    lambda torch, x: x.roll((1, 2)),
    lambda torch, x: x.roll((), ()),
    lambda torch, x: x.roll(1, 3),
    lambda torch, x: x[0, 0, 0].roll(1),
    lambda torch, x: x[0, 0, 0].roll(1, 0),
    lambda torch, x: torch.empty(0, 3).roll(1, 1),
    lambda torch, x: torch.empty(0, 3).roll(2),
    lambda torch, x: x.rot90(),
    lambda torch, x: x.rot90(2),
    lambda torch, x: x.rot90(-1),
    lambda torch, x: x.rot90(3, [2, 0]),
    lambda torch, x: x.rot90(5, (1, 2)),
    lambda torch, x: x.rot90(0),
    lambda torch, x: torch.rot90(x, k=1, dims=[-1, 0]),
    lambda torch, x: x.rot90(1, (0, 0)),
    lambda torch, x: x.rot90(1, (0, -3)),
    lambda torch, x: x.rot90(1, (0,)),
    lambda torch, x: x.rot90(1, (0, 3)),
    lambda torch, x: x[0, 0].rot90(),
])
def test_flip_roll_rot90(fn):
    check(fn, X234)


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.repeat(2, 3),
    lambda torch, x: x.repeat(2, 2, 3),
    lambda torch, x: x.repeat((2, 1)),
    lambda torch, x: x.repeat(repeats=(1, 2)),
    lambda torch, x: x.repeat(torch.Size([2, 2])),
    lambda torch, x: x.repeat(0, 2),
    lambda torch, x: x.repeat(2),
    lambda torch, x: x.repeat(-1, 2),
    lambda torch, x: x.repeat(),
    lambda torch, x: x[0, 0].repeat(()),
    lambda torch, x: x[0, 0].repeat(3),
    lambda torch, x: x.t().repeat(2, 1),
    lambda torch, x: x.tile(2),
    lambda torch, x: x.tile((2,)),
    lambda torch, x: x.tile(2, 3, 4),
    lambda torch, x: x.tile(()),
    lambda torch, x: torch.tile(x, (2,)),
    lambda torch, x: torch.tile(x, dims=(2, 1)),
    lambda torch, x: torch.tile(x, 2),
    lambda torch, x: x.tile(-1),
    lambda torch, x: x[0, 0].tile(()),
    lambda torch, x: x.repeat_interleave(2),
    lambda torch, x: x.repeat_interleave(2, 0),
    lambda torch, x: x.repeat_interleave(3, dim=-1),
    lambda torch, x: x.repeat_interleave(torch.tensor([1, 2, 0]), dim=0),
    lambda torch, x: x.repeat_interleave(torch.tensor([1, 2, 0, 1], dtype=torch.int32), dim=1),
    lambda torch, x: x.repeat_interleave(torch.tensor(2), dim=0),
    lambda torch, x: x.repeat_interleave(torch.tensor([2]), dim=1),
    lambda torch, x: x.repeat_interleave(torch.tensor([1, 2, 3] * 4)),
    lambda torch, x: torch.repeat_interleave(x, 2, dim=1, output_size=8),
    lambda torch, x: torch.repeat_interleave(x, repeats=2, dim=1, output_size=3),
    lambda torch, x: x.repeat_interleave(torch.tensor([1, 2]), dim=0),
    lambda torch, x: x.repeat_interleave(-1),
    lambda torch, x: x.repeat_interleave(torch.tensor([1, -1, 2]), dim=0),
    lambda torch, x: x.repeat_interleave(torch.tensor([1.0, 1, 2]), dim=0),
    lambda torch, x: x.repeat_interleave(torch.tensor([[2]]), dim=0),
    lambda torch, x: x.repeat_interleave(2, dim=2),
    lambda torch, x: x.repeat_interleave(2, dim=1.0),
    lambda torch, x: x[0, 0].repeat_interleave(3),
    lambda torch, x: x[0, 0].repeat_interleave(3, dim=0),
    lambda torch, x: torch.repeat_interleave(torch.tensor([1, 2, 3])),
    lambda torch, x: torch.repeat_interleave(torch.tensor([1, 0, 2], dtype=torch.int32), output_size=3),
    lambda torch, x: torch.repeat_interleave(torch.tensor([1, 2, 3]), output_size=5),
    lambda torch, x: torch.repeat_interleave(torch.tensor([[1, 2]])),
    lambda torch, x: torch.repeat_interleave(torch.tensor([1.0, 2.0])),
    lambda torch, x: torch.repeat_interleave(torch.tensor([1, -2])),
    lambda torch, x: torch.tensor([1, 2, 3]).repeat_interleave(torch.tensor([1, 2, 3])),
])
def test_repeat_tile(fn):
    check(fn, X34)


@pytest.mark.parametrize("dtype", DTYPES)
def test_flip_roll_repeat_dtypes(dtype):
    check(lambda torch, x: (x.flip(0, 1), x.fliplr(), x.roll(2, 1), x.roll(1), x.rot90(), x.repeat(2, 1, 1),
                            x.tile((2,)), x.repeat_interleave(2, 1), x.repeat_interleave(torch.tensor([0, 1, 2]), 0)),
          arrays((3, 4), dtype=dtype))
