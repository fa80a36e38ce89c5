"""Floor-division formulas of the dynamic-axes pass (``vfw.onnx_io._export_floor``): fitted from consecutive sizes
as the exporter traces them, they must reproduce the size arithmetic of strided layers (the convolution and pooling
output-size formula of their documentation, computed here in Python) at sizes never sampled."""

import pytest

from vfw.onnx_io._export_floor import EXTENDED_STEPS, fit_floor


def _conv(n, kernel, stride, padding=0):
    return (n + 2 * padding - kernel) // stride + 1


def _evaluate(fitted, sizes):
    kind, coefficients_or_a, b, terms = fitted

    def term(s):
        stride, shift, offset = terms[s]
        return (sizes[s] + shift) // stride + offset

    if kind == "floor_prod":
        value = coefficients_or_a
        for s in terms:
            value *= term(s)
        return value + b
    return b + sum(a * term(s) for s, a in coefficients_or_a.items())


def _samples(fn, base):
    """The base sizes, then each symbol at its size plus 1..8 (the others at theirs)."""
    samples = [(dict(base), fn(base))]
    for s in base:
        for k in EXTENDED_STEPS:
            sizes = dict(base, **{s: base[s] + k})
            samples.append((sizes, fn(sizes)))
    return samples


CASES = {
    "stride4_patches": (lambda z: _conv(z["H"], 4, 4), {"H": 16}),
    "two_convs": (lambda z: _conv(_conv(z["H"], 3, 2, 1), 3, 2, 1), {"H": 16}),
    "flattened_grid": (lambda z: z["B"] * 8 * _conv(z["H"], 4, 4) * _conv(z["W"], 4, 4), {"B": 2, "H": 16, "W": 20}),
    "conv_then_pool": (lambda z: 4 * (_conv(_conv(z["H"], 3, 2), 2, 2)) * _conv(_conv(z["W"], 3, 2), 2, 2),
                       {"H": 17, "W": 23}),
    "rows_plus_columns": (lambda z: _conv(z["H"], 3, 3) + 2 * _conv(z["W"], 2, 2), {"H": 12, "W": 9}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fitted_formula_reproduces_strided_sizes_at_unsampled_sizes(name):
    fn, base = CASES[name]
    fitted = fit_floor(_samples(fn, base), list(base))
    assert fitted is not None
    for factor, step in ((2, 3), (3, 1), (5, 7)):
        sizes = {s: n * factor + step for s, n in base.items()}
        assert _evaluate(fitted, sizes) == fn(sizes), sizes


def test_no_formula_for_a_sum_inside_a_product():
    # batch * (1 + h * w): a cls token prepended to a patch grid; neither form fits, so the export is refused
    fn = lambda z: z["B"] * (1 + _conv(z["H"], 4, 4) * _conv(z["W"], 4, 4))  # noqa: E731
    base = {"B": 2, "H": 16, "W": 16}
    fitted = fit_floor(_samples(fn, base), list(base))
    other = {s: 2 * n + 3 for s, n in base.items()}
    # either no fit, or one the exporter's check at other sizes (these) refuses
    assert fitted is None or _evaluate(fitted, other) != fn(other)
