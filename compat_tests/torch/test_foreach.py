"""vfw.torch against real torch: the torch._foreach_* list ops (unary, binary with numbers / number lists / tensor
lists / one tensor, addcmul/addcdiv, lerp, norm, max, copy_, zero_, clone), in place and not, with autograd."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt
from vfw.frontends.torch import _foreach

A, B = arrays((3, 4), (5,), seed=11, low=0.1, high=0.9)  # inside every unary op's domain
C, D = arrays((3, 4), (5,), seed=12, low=0.5, high=1.5)
UNARY = [name for name in _foreach._UNARY]


def test_the_names_are_torchs():
    ours = {n for n in dir(vt) if n.startswith("_foreach_")}
    assert ours <= {n for n in dir(real) if n.startswith("_foreach_")}
    assert len(ours) == len(_foreach.__all__)


@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    def fn(torch, a, b):
        tensors = [a, b.double()]
        copies = [t.clone() for t in tensors]
        returned = getattr(torch, f"_foreach_{name}_")(copies)
        return getattr(torch, f"_foreach_{name}")(tensors), copies, returned is copies

    check(fn, A, B, rtol=1e-6)


OTHERS = {"number": lambda torch, c, d: 1.5, "int": lambda torch, c, d: 2,
          "numbers": lambda torch, c, d: [0.5, -2.0], "tensors": lambda torch, c, d: [c, d],
          "tensor": lambda torch, c, d: c[0, 0]}


@pytest.mark.parametrize("name", _foreach._BINARY)
@pytest.mark.parametrize("kind", sorted(OTHERS))
def test_binary(name, kind):
    def fn(torch, a, b, c, d):
        other = OTHERS[kind](torch, c, d)
        kwargs = {"alpha": 0.5} if name == "add" and kind == "tensor" or name in ("add", "sub") and kind == "tensors" \
            else {}
        copies = [a.clone(), b.clone()]
        getattr(torch, f"_foreach_{name}_")(copies, other, **kwargs)
        return getattr(torch, f"_foreach_{name}")([a, b], other, **kwargs), copies

    check(fn, A, B, C, D)


def test_pow_of_a_number_and_integer_lists():
    check(lambda torch, a, b: torch._foreach_pow(2.0, [a, b]), A, B)
    check(lambda torch, a, b: torch._foreach_add([a.long(), b.int()], [1, 2]), C * 3, D * 3)
    check(lambda torch, a, b: torch._foreach_div([a.long(), b.int()], 2), C * 3, D * 3)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", ["default", "number", "numbers", "tensor"])
def test_addcmul_addcdiv(name, value):
    def fn(torch, a, b, c, d):
        args, kwargs = {"default": ((), {}), "number": ((), {"value": -0.5}), "numbers": (([2.0, 0.25],), {}),
                        "tensor": ((torch.tensor([3.0, -1.0]),), {})}[value]
        copies = [a.clone(), b.clone()]
        getattr(torch, f"_foreach_{name}_")(copies, [c, d], [a, b], *args, **kwargs)
        return getattr(torch, f"_foreach_{name}")([a, b], [c, d], [a, b], *args, **kwargs), copies

    check(fn, A, B, C, D)


@pytest.mark.parametrize("weight", ["number", "numbers", "tensors"])
def test_lerp(weight):
    def fn(torch, a, b, c, d):
        w = {"number": 0.3, "numbers": [0.3, 0.8], "tensors": [a, b]}[weight]
        copies = [a.clone(), b.clone()]
        torch._foreach_lerp_(copies, [c, d], w)
        return torch._foreach_lerp([a, b], [c, d], w), copies

    check(fn, A, B, C, D, rtol=0, atol=0)


def test_norm_max_copy_zero_clone():
    def fn(torch, a, b, c, d):
        tensors = [a, b]
        norms = [torch._foreach_norm(tensors), torch._foreach_norm(tensors, 1), torch._foreach_norm(tensors, np.inf),
                 torch._foreach_norm(tensors, 2, dtype=torch.float64)]
        dst = [torch.zeros(3, 4, dtype=torch.float64), torch.zeros(5)]
        torch._foreach_copy_(dst, [c, d])
        cleared = torch._foreach_zero_([t.clone() for t in tensors])
        clones = torch._foreach_clone(tensors)
        return norms, torch._foreach_max(tensors), dst, cleared, clones, clones[0] is a

    check(fn, A, B, C, D)


def test_gradients_flow_through_out_of_place_forms():
    def fn(torch, a, b, c, d):
        x = torch._foreach_mul([a, b], [c, d])
        y = torch._foreach_addcmul(x, [a, b], [c, d], value=0.5)
        z = torch._foreach_lerp(torch._foreach_exp(y), [c, d], 0.25)
        return list(z) + list(torch._foreach_norm([a, b]))

    check_grad(fn, A, B, C, D)


def test_ema_update_under_no_grad_in_place():
    def fn(torch, a, b, c, d):
        teacher = [torch.nn.Parameter(a.clone()), torch.nn.Parameter(b.clone())]
        with torch.no_grad():
            torch._foreach_mul_(teacher, 0.9)
            torch._foreach_add_(teacher, [c, d], alpha=0.1)
        return [t.detach() for t in teacher], [t.requires_grad for t in teacher]

    check(fn, A, B, C, D, rtol=0, atol=0)


@pytest.mark.parametrize("case", ["lengths", "empty", "numbers", "leaf", "not a list", "alpha", "sub alpha",
                                  "value list"])
def test_errors(case):
    def fn(torch, a, b, c, d):
        if case == "lengths":
            return torch._foreach_add([a, b], [c])
        if case == "empty":
            return torch._foreach_add([], [])
        if case == "numbers":
            return torch._foreach_mul([a, b], [1.0])
        if case == "leaf":
            return torch._foreach_mul_([a.requires_grad_()], 2.0)
        if case == "not a list":
            return torch._foreach_exp(a)
        if case == "sub alpha":
            return torch._foreach_sub([a, b], c, alpha=2)
        if case == "value list":
            return torch._foreach_addcmul([a, b], [a, b], [c, d], value=[1.0, 2.0])
        return torch._foreach_mul([a, b], 2.0, alpha=2)

    check(fn, A, B, C, D)
    with pytest.raises((RuntimeError, TypeError)):
        fn(vt, *(vt.tensor(x) for x in (A, B, C, D)))
