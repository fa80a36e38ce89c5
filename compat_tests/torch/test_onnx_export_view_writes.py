"""torch.onnx.export with dynamic axes of models that write in place into views not made by indexing (``select``,
``narrow``, ``diagonal``, ``unbind``/``split`` pieces, ``transpose``/``permute`` and chains of them), and of models
whose float constants are computed from a dynamic size (``x.shape[0] * 0.5``, ``1 / n`` fills): onnxruntime runs
the exported model at other sizes than traced, real torch 2.13 (eager, same inputs) is the oracle."""

import math

import numpy as np
import pytest

from compat_tests.torch.onnx_harness import F, check_export, export_model, real, run_ort, vt


def _written(write):
    def fn(t, x):
        y = x.clone()
        write(t, y, x)
        return y
    return fn


def _unbind_loop(t, y, x):
    for k, row in enumerate(y.unbind(2)):
        row.mul_(k + 1)


def _alias_reads(t, x):
    y = x.clone()
    diagonal, row = y.diagonal(dim1=1, dim2=2), y.select(1, 0)
    row.add_(1)  # the diagonal shares an element with the row: it must see the write
    return y, diagonal * 1, row * 1


def _base_write_then_views(t, x):
    y = x.clone()
    swapped = y.transpose(1, 2)
    column = swapped.select(2, 1)
    y.mul_(2)  # the views read the base's new values
    column.add_(1)
    return y, swapped + 0


VIEW_WRITES = {
    "select_zero": (_written(lambda t, y, x: y.select(1, 0).zero_()), [F("B", "L", 3)]),
    "select_dynamic_axis_last": (_written(lambda t, y, x: y.select(0, -1).mul_(2)), [F("B", "L", 3)]),
    "narrow_add": (_written(lambda t, y, x: y.narrow(1, 1, 2).add_(1)), [F("B", "L", 3)]),
    "narrow_size_dependent": (_written(lambda t, y, x: y.narrow(0, 1, x.shape[0] - 1).mul_(-1)), [F("B", "L", 3)]),
    "diagonal_zero": (_written(lambda t, y, x: y.diagonal(dim1=1, dim2=2).zero_()), [F("B", "L", "L")]),
    "diagonal_fill": (_written(lambda t, y, x: y.diagonal(dim1=-2, dim2=-1).fill_(3.0)), [F("B", "L", "L")]),
    "diagonal_offset_copy": (_written(lambda t, y, x: y.diagonal(1, 1, 2).copy_(t.arange(x.shape[1] - 1).float())),
                             [F("B", "L", "L")]),
    "unbind_copy": (_written(lambda t, y, x: y.unbind(2)[0].copy_(x[:, :, 1])), [F("B", "L", 3)]),
    "unbind_add_sibling": (_written(lambda t, y, x: y.unbind(2)[1].add_(y.unbind(2)[0])), [F("B", "L", 3)]),
    "unbind_loop": (_written(_unbind_loop), [F("B", "L", 3)]),
    "split_piece_fill": (_written(lambda t, y, x: y.split(1, dim=2)[0].fill_(7)), [F("B", "L", 3)]),
    "transpose_select": (_written(lambda t, y, x: y.transpose(0, 1).select(0, 1).mul_(0.5)), [F("B", "L", 3)]),
    "t_row": (_written(lambda t, y, x: y.t()[0].add_(1)), [F("B", "L")]),
    "permute_index": (_written(lambda t, y, x: y.permute(2, 0, 1)[1].sub_(3)), [F("B", "L", 3)]),
    "movedim_select": (_written(lambda t, y, x: y.movedim(0, -1).select(0, 0).mul_(2)), [F("B", "L", 3)]),
    "chain": (_written(lambda t, y, x: y.transpose(0, 2).narrow(1, 0, 1).select(2, -1).zero_()), [F("B", "L", 3)]),
    "copy_into_zeros": (lambda t, x: _into_zeros(t, x), [F("B", "L", 3)]),
    "alias_reads": (_alias_reads, [F("B", "L", "L")]),
    "base_write_then_views": (_base_write_then_views, [F("B", "L", 3)]),
}


def _into_zeros(t, x):
    y = t.zeros_like(x)
    y.select(2, 0).copy_(x.sum(2))
    return y


@pytest.mark.parametrize("name", sorted(VIEW_WRITES))
def test_writes_into_views_follow_dynamic_axes(name):
    check_export(*VIEW_WRITES[name])


def test_split_along_a_dynamic_axis_is_refused_naming_the_size():
    # the number of pieces follows the size: the traces record other operations, which no graph generalizes
    model = lambda t, x: _written(lambda t, y, x: y.split(1, dim=1)[0].zero_())(t, x)  # noqa: E731
    with pytest.raises(vt.onnx.OnnxExporterError, match="records other operations when traced with L="):
        check_export(model, [F("B", "L", 3)])


def _positional_encoding(t, x):
    length, width = x.shape[1], x.shape[2]
    position = t.arange(length, dtype=t.float32).unsqueeze(1)
    rate = t.exp(t.arange(0, width, 2).float() * (-math.log(10000.0) / width))
    table = t.zeros(length, width)
    table[:, 0::2] = t.sin(position * rate)
    table[:, 1::2] = t.cos(position * rate)
    return x + table


SIZE_FLOATS = {
    "half_batch": (lambda t, x: x * (x.shape[0] * 0.5), [F("B", "L")]),
    "two_axes": (lambda t, x: x * (x.shape[0] * 0.25 + x.shape[1] * 1.5), [F("B", "L")]),
    "centered_ramp": (lambda t, x: x + (t.arange(x.shape[1]) - x.shape[1] / 2).unsqueeze(-1), [F("B", "L", 3)]),
    "relative_position": (lambda t, x: x + (t.arange(x.shape[1]).float() / x.shape[1]).unsqueeze(-1),
                          [F("B", "L", 3)]),
    "half_length_minus_one": (lambda t, x: x * ((x.shape[1] - 1) / 2.0), [F("B", "L")]),
    "float64_third": (lambda t, x: x.double() * (x.shape[1] / 3), [F("B", "L")]),
    "uniform_fill": (lambda t, x: x + t.full((x.shape[1], 1), 1.0 / x.shape[1]), [F("B", "L", 3)]),
    "inverse_sqrt_scale": (lambda t, x: t.softmax(x @ x.transpose(-1, -2) * (1.0 / x.size(-2) ** 0.5), -1),
                           [F("B", "L", 3)]),
    "positional_encoding": (_positional_encoding, [F("B", "L", 4)]),
}


@pytest.mark.parametrize("name", sorted(SIZE_FLOATS))
def test_float_values_computed_from_sizes_follow_dynamic_axes(name):
    check_export(*SIZE_FLOATS[name])


def test_a_float_output_computed_from_a_size_follows_the_axis():
    class Model(vt.nn.Module):
        def forward(self, x):
            return x.sum(), x.shape[0] * 0.5

    rng = np.random.default_rng(0)
    proto = export_model(Model(), [rng.standard_normal((4, 3)).astype(np.float32)], {0: {0: "batch"}})
    for batch in (4, 7, 1):
        x = rng.standard_normal((batch, 3)).astype(np.float32)
        total, half = run_ort(proto, [x])
        want = real.from_numpy(x).shape[0] * 0.5
        assert half.dtype == np.float32 and half.shape == ()
        np.testing.assert_allclose(half, want, rtol=1e-7)
        np.testing.assert_allclose(total, real.from_numpy(x).sum().numpy(), rtol=1e-5)


def test_a_size_function_with_no_affine_form_is_refused():
    model = lambda t, x: x * math.log(x.shape[1])  # noqa: E731
    with pytest.raises(vt.onnx.OnnxExporterError, match="depend on the dynamic axes"):
        check_export(model, [F("B", "L")])
