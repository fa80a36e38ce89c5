"""What the pytorch.org notes programs (compat_tests/programs/torch_notes) found, against real torch: the text of
in-place broadcasting, freed-graph and grad_output shape errors, ``iinfo``'s repr, ``gradgradcheck`` drawing its
vectors from the default generator, ``retain_grad`` seeing the result of later hooks, and the order in which
backward accumulates leaves (``register_post_accumulate_grad_hook``)."""

import pytest

from compat_tests.torch.harness import real, vt

BOTH = [real, vt]


def _error_text(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value)


def test_inplace_broadcast_error_text():
    def attempt(torch):
        return _error_text(lambda: torch.empty(1, 3, 1).add_(torch.empty(3, 1, 7)))
    assert attempt(vt) == attempt(real)


def test_freed_graph_error_text():
    def attempt(torch):
        x = torch.ones(3, requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward()
        return _error_text(y.backward)
    assert attempt(vt) == attempt(real)


@pytest.mark.parametrize("output_shape", [(), (2, 1)])
def test_grad_output_shape_mismatch_error_text(output_shape):
    def attempt(torch):
        p = torch.ones(2, requires_grad=True)
        s = (p.exp() * p).sum().reshape(()) if not output_shape else p.exp().reshape(2, 1)
        return _error_text(lambda: torch.autograd.grad(s, p, grad_outputs=torch.ones(3)))
    assert attempt(vt) == attempt(real)


def test_iinfo_repr():
    for name in ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"):
        assert repr(vt.iinfo(getattr(vt, name))) == repr(real.iinfo(getattr(real, name)))


def test_gradgradcheck_draws_its_vectors_from_the_default_generator():
    def after(torch):
        torch.manual_seed(4)
        x = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
        assert torch.autograd.gradgradcheck(lambda t: (t ** 3).sum(1), (x,))
        return torch.rand(4).tolist()
    assert after(vt) == after(real)


@pytest.mark.parametrize("retain_first", [True, False])
def test_retained_grad_is_stored_after_every_hook(retain_first):
    def grads(torch):
        a = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
        b = a * 2
        if retain_first:
            b.retain_grad()
        b.register_hook(lambda g: g * 3)
        if not retain_first:
            b.retain_grad()
        b.register_hook(lambda g: g + 1)
        (b ** 2).sum().backward()
        return b.grad.tolist(), a.grad.tolist()
    assert grads(vt) == grads(real)


GRAPHS = {
    "one node": lambda t, a, b, c: (b * a).sum(),
    "chain": lambda t, a, b, c: ((a * b).exp() * c).sum(),
    "leaf used twice": lambda t, a, b, c: ((a * b).exp() * c + a.sin()).sum(),
    "sum of three": lambda t, a, b, c: (a.sin() + b.sin() + c.sin()).sum(),
    "cat": lambda t, a, b, c: t.cat([c, a, b]).pow(2).sum(),
}


@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_leaves_accumulate_in_torch_order(graph):
    def order(torch):
        leaves = {name: torch.full((3,), float(i + 1), requires_grad=True) for i, name in enumerate("abc")}
        seen = []
        for name, leaf in leaves.items():
            leaf.register_post_accumulate_grad_hook(lambda t, name=name: seen.append(name))
        GRAPHS[graph](torch, *leaves.values()).backward()
        return seen
    assert order(vt) == order(real)
