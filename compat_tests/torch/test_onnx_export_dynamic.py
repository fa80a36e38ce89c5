"""torch.onnx.export with dynamic axes of ops whose traced values depend on the input sizes (identity matrices,
ramps, repeat indices, diagonals): vfw builds them from the inputs' shapes, onnxruntime runs the exported model at
other sizes than traced, real torch 2.13 is the oracle."""

import pytest

from compat_tests.torch.onnx_harness import F, check_export


def _bool_mask_assign(t, x):
    y = x.clone()
    y[y < 0] = 0.0
    return y


SIZE_DEPENDENT = {
    "eye": (lambda t, x: x @ x.transpose(1, 2) + t.eye(x.shape[1]), [F("B", "L", "L")]),
    "eye_rect": (lambda t, x: x + t.eye(x.shape[1], x.shape[2], dtype=t.float32), [F("B", "L", "N")]),
    "eye_int": (lambda t, x: x * t.eye(x.shape[0], dtype=t.int64).sum(0), [F("B")]),
    "linspace": (lambda t, x: x * t.linspace(0, 1, x.shape[1]).view(1, -1, 1), [F("B", "L", 3)]),
    "linspace_bounds": (lambda t, x: x + t.linspace(-2.5, 4.0, x.shape[1], dtype=t.float64), [F(3, "L")]),
    "repeat_interleave": (lambda t, x: x.repeat_interleave(2, dim=1), [F("B", "L", 3)]),
    "repeat_interleave_flat": (lambda t, x: x.repeat_interleave(3), [F("B", 2)]),
    "diagonal": (lambda t, x: t.diagonal(x, dim1=1, dim2=2), [F("B", "L", "L")]),
    "diagonal_offset": (lambda t, x: t.diagonal(x, offset=1, dim1=1, dim2=2), [F("B", "L", "N")]),
    "diagonal_negative": (lambda t, x: x.diagonal(-2, 0, 2), [F("L", 3, "N")]),
    "bool_mask_assign": (_bool_mask_assign, [F("B", "L")]),
}


@pytest.mark.parametrize("name", sorted(SIZE_DEPENDENT))
def test_size_dependent_values_follow_dynamic_axes(name):
    # traced at the base sizes, run by onnxruntime at others: the values must be recomputed from each run's shape
    check_export(*SIZE_DEPENDENT[name])


def _negate_slice(t, x):
    y = x.clone()
    y[..., 1:3] *= -1
    return y


def _add_into_column(t, x):
    y = x.clone()
    v = y[:, 1]
    v.add_(1)
    return y, v * 2


def _view_of_view(t, x):
    y = x * 1
    v = y[:, 1:]
    v[:, :, 0].mul_(2)
    y[1:, 0].zero_()
    return y, v


def _views_read_after_a_write(t, x):
    y = x.clone()
    a = y[:, 0]
    b = a[:, 1:]
    y[:, 1] = 0.0
    y[:, 2].fill_(3.0)
    return a + 1, b * 2, y


def _scalar_and_new_axis_views(t, x):
    y = x.clone()
    y[0, 1].mul_(5)
    y[-1, :, -1].sub_(2)
    y[None, :, 2].add_(1)
    return y


IN_PLACE_ON_VIEWS = {
    "scalar_and_new_axis_views": _scalar_and_new_axis_views,
    "negate_slice": _negate_slice,
    "add_into_column": _add_into_column,
    "view_of_view": _view_of_view,
    "views_read_after_a_write": _views_read_after_a_write,
}


@pytest.mark.parametrize("name", sorted(IN_PLACE_ON_VIEWS))
def test_in_place_ops_on_views_with_dynamic_axes(name):
    # the write into the view reaches its base at positions computed from each run's shape
    check_export(IN_PLACE_ON_VIEWS[name], [F("B", 3, "N")])
