"""``format(tensor, spec)`` (f-strings in training logs) and ``broadcast_tensors`` returning tensors that
already have the shape, against real torch."""

import pytest

from compat_tests.torch.harness import real, vt


@pytest.mark.parametrize("make, spec", [
    ("torch.tensor(1.5)", ".2f"), ("torch.tensor(1.5)", ""), ("torch.tensor(3)", ">8"), ("torch.tensor(3)", "d"),
    ("torch.tensor(2.0, requires_grad=True) * 2", ".3f"), ("torch.tensor(1e-7)", ".3e"),
    ("torch.tensor([1.5])", ""), ("torch.tensor([1.5])", ".2f"), ("torch.nn.Parameter(torch.tensor(1.5))", ""),
    ("torch.nn.Parameter(torch.tensor(1.5))", ".2f"), ("torch.tensor(True)", ""), ("torch.zeros(2, 2)", ""),
])
def test_format_matches_torch(make, spec):
    results = []
    for torch in (real, vt):
        try:
            results.append(format(eval(make, {"torch": torch}), spec))
        except TypeError as error:
            results.append(("TypeError", str(error)))
    assert results[1] == results[0]


def test_broadcast_tensors_returns_tensors_already_of_the_shape():
    for torch in (real, vt):
        a, b = torch.randn(3, requires_grad=True), torch.randn(2, 3)
        same = torch.broadcast_tensors(a, torch.randn(3))
        assert same[0] is a and same[0].grad_fn is None
        widened = torch.broadcast_tensors(a, b)
        assert widened[1] is b and widened[0] is not a and tuple(widened[0].shape) == (2, 3)
        assert type(widened[0].grad_fn).__name__ == "ExpandBackward0"
