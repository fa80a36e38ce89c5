"""``grad_fn`` names (what printed tensors show as ``grad_fn=<...>``) against real torch, for functions whose
engine op does not say torch's name: overloads (``sum()`` vs ``sum(dim)``), views, indexing steps, losses and
activations built from several engine ops; plus in-place forms and results that are not new nodes."""

import pytest

from compat_tests.torch.harness import real, vt

EXPRESSIONS = [
    "x[..., 0].t()", "x.transpose(0, 1)", "x.swapaxes(0, 1)", "x.squeeze()", "x.squeeze(1)", "x.squeeze((1, 2))",
    "x[0]", "x[:, 1]", "x[1:]", "x[:]", "x[0, 1:]", "x[1:, 0]", "x[..., 0]", "x[None]", "x[0, None]",
    "x[:, :2, None]", "x[[0, 1]]", "x[0, [1, 2]]", "x[x > 0]", "x[...]", "x[:, :]", "x[0:3, 0:4]", "x[0, 0:4]",
    "x.sum()", "x.sum(0)", "x.sum((0, 1))", "x.sum(dim=None)", "x.sum(dim=1, keepdim=True)", "x.mean()",
    "x.mean(0)", "torch.mean(x, 1, True)", "x.mean(dtype=torch.float64)", "x.prod()", "x.prod(0)",
    "x.max()", "x.max(0)[0]", "x.min(1).values", "torch.max(x, x)", "x.amax(0)", "x.amin(0)",
    "x.maximum(x * 2)", "x.minimum(x)", "x.var()", "x.std(0)", "torch.var_mean(x)[0]", "torch.std_mean(x)[1]",
    "x.logsumexp(0)", "torch.stack([x, x], 1)", "x.split(2)[0]", "x.split([1, 2])[0]", "x.chunk(2, 1)[1]",
    "x.unbind(1)[0]", "x.masked_fill(x > 0, 0)", "x.masked_fill(x > 0, torch.tensor(1.0))",
    "x.index_select(1, torch.tensor([1]))", "x[0].select(0, 1)", "x.tril()", "x.triu()", "x.flip(0)",
    "x.fliplr()", "x.roll(1, 0)", "x.clamp(0, 1)", "x.clamp(max=0)", "x.clamp(min=torch.zeros(1))",
    "torch.bmm(x, x.transpose(1, 2))", "x.sort(0).values", "x.topk(1, 0).values", "x.rsqrt()",
    "x.expand(2, 3, 4, 1)", "x.expand(3, 4, 1)", "x.expand_as(x)", "x.broadcast_to((2, 3, 4, 1))",
    "F.linear(m, w, b)", "F.linear(m, w)", "F.linear(x[..., 0], w, b)", "F.linear(x[..., 0], w)",
    "F.linear(m[0, 0], w)", "F.linear(m[0, 0], w, b)", "F.linear(m[0], w[0])",
    "F.mse_loss(x, torch.zeros(3, 4, 1))", "F.mse_loss(x, x.detach(), reduction='none')",
    "F.binary_cross_entropy(x.sigmoid(), torch.ones(3, 4, 1))",
    "F.binary_cross_entropy_with_logits(x, torch.ones(3, 4, 1), reduction='sum')",
    "F.silu(x)", "F.softplus(x, beta=2)", "F.hardtanh(x)", "F.relu6(x)", "F.hardtanh(x * 1, inplace=True)",
    "F.silu(x * 1, inplace=True)", "F.pad(x, (1, 1))", "F.pad(im, (1, 1, 1, 1), mode='reflect')",
    "F.pad(im[0], (1, 1), mode='replicate')", "F.interpolate(im, scale_factor=2)",
    "F.interpolate(im, scale_factor=2, mode='bilinear')", "F.interpolate(im, scale_factor=2, mode='bicubic')",
    "F.interpolate(im, scale_factor=0.5, mode='bilinear', antialias=True)",
    "F.interpolate(im, scale_factor=2, mode='nearest-exact')", "F.interpolate(im[0], scale_factor=2, mode='linear')",
    "F.interpolate(im, size=2, mode='area')", "F.cross_entropy(x[..., 0], torch.tensor([0, 1, 2]))",
    "x + 1", "x @ x.transpose(1, 2)", "m[0, 0] @ m[0, 0]", "m[0, 0] @ w.t()", "w @ m[0, 0]", "w @ w.t()",
    "m[0] @ w.t()", "w @ m.transpose(1, 2)", "m @ w[0]", "m[0, 0] @ m.transpose(1, 2)", "torch.mv(w, m[0, 0])",
    "torch.dot(b, b)", "torch.mm(w, w.t())", "x.view(-1)", "x.permute(2, 0, 1)", "x.relu()", "x.contiguous() * 1",
    "x.round()", "x.round(decimals=2)", "torch.round(x, decimals=-1)",
]


def _name(torch, expression):
    torch.manual_seed(0)
    x = torch.randn(3, 4, 1, requires_grad=True)
    m = torch.randn(2, 3, 4, requires_grad=True)
    w, b = torch.randn(5, 4, requires_grad=True), torch.randn(5, requires_grad=True)
    im = torch.randn(1, 2, 4, 4, requires_grad=True)
    result = eval(expression, {"torch": torch, "F": torch.nn.functional, "x": x, "m": m, "w": w, "b": b, "im": im})
    return type(result.grad_fn).__name__


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_grad_fn_name_matches_torch(expression):
    assert _name(vt, expression) == _name(real, expression)


@pytest.mark.parametrize("expression", ["x.contiguous()", "x.detach()", "torch.broadcast_tensors(x, x)[0]"])
def test_results_that_are_not_new_nodes_keep_their_grad_fn(expression):
    for torch in (real, vt):
        x = torch.randn(3, 4, requires_grad=True)
        result = eval(expression, {"torch": torch, "x": x})
        assert (result.grad_fn is None) == (expression != "x.contiguous()" or x.grad_fn is None)


def test_printed_results_show_torchs_names():
    texts = []
    for torch in (real, vt):
        torch.manual_seed(0)
        y = torch.nn.Linear(4, 2)(torch.randn(3, 4))
        texts.append([repr(y.t()), repr(y[0]), repr(y.mean(0)), repr(y.max(dim=1)),
                      repr(torch.nn.functional.mse_loss(y, torch.zeros(3, 2)))])
    assert texts[1] == texts[0]


def test_names_without_grad_mode_are_not_recorded():
    with vt.no_grad():
        x = vt.randn(3, requires_grad=True)
        assert x.t().grad_fn is None and x.sum(0).grad_fn is None
