"""Fixes found by the round-17 programs (``compat_tests/programs/torch_more17``): ``Tensor.to``'s argument
checking and meta tensors (shape and dtype only), against real torch 2.13."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

from compat_tests.torch.harness import check_outcome, outcome  # noqa: E402


# -- Tensor.to -------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2).to("cpu", dtype="float"),
    lambda lib: lib.ones(2).to(dtype="float"),
    lambda lib: lib.ones(2).to(dtype="float", device="cpu"),
    lambda lib: lib.ones(2).to("cpu", "float"),
    lambda lib: lib.ones(2).to(lib.float32, "cpu"),
    lambda lib: lib.ones(2).to(dtype=lib.float32, device=3.0),
    lambda lib: lib.ones(2).to("cpu", lib.float32, foo=1),
    lambda lib: lib.ones(2).to(lib.ones(1), dtype=lib.int64),
    lambda lib: lib.ones(2).to([1]),
    lambda lib: lib.ones(2).to(lib.float32, lib.float64),
    lambda lib: lib.ones(2).to(lib.device("cpu"), lib.float32, "x"),
    lambda lib: lib.ones(2).to(lib.float32, non_blocking="a"),
    lambda lib: lib.ones(2).to("float"),
], ids=["device_and_string_dtype", "string_dtype", "keywords", "two_strings", "dtype_then_device",
        "float_device", "unknown_keyword", "tensor_and_dtype", "list", "two_dtypes", "string_flag",
        "string_non_blocking", "dtype_name_as_device"])
def test_to_refuses_what_fits_no_signature(fn):
    check_outcome(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2).to(float),
    lambda lib: lib.ones(2).to(dtype=int),
    lambda lib: lib.ones(2).to(lib.int64, copy=True),
    lambda lib: lib.ones(2).to("cpu", lib.int32, True, True),
    lambda lib: lib.ones(2).to(lib.device("cpu"), dtype=lib.float64),
    lambda lib: lib.ones(2).to(lib.zeros(1, dtype=lib.int16)),
    lambda lib: lib.ones(2).to(None),
    lambda lib: lib.ones(2).to(device=None, dtype=None),
    lambda lib: lib.ones(2).to("cpu", None),
    lambda lib: lib.ones(2).to(non_blocking=True),
    lambda lib: lib.ones(1, 2, 2, 2).to(memory_format=lib.channels_last).stride(),
])
def test_to_accepts_its_signatures(fn):
    check_outcome(fn)


# -- meta tensors ----------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2, 3, device="meta"),
    lambda lib: str(lib.empty(3, device=lib.device("meta"), dtype=lib.long)),
    lambda lib: lib.zeros((), device="meta"),
    lambda lib: lib.zeros(0, device="meta", dtype=lib.float16),
    lambda lib: lib.randn(2, device="meta", requires_grad=True),
    lambda lib: lib.nn.Linear(3, 4, device="meta").weight,
    lambda lib: lib.nn.Linear(3, 4, device="meta")(lib.randn(2, 3, device="meta")),
    lambda lib: lib.tensor([1, 2], device="meta"),
    lambda lib: lib.arange(3, device="meta"),
    lambda lib: lib.full((2,), 3.0, device="meta"),
    lambda lib: lib.zeros_like(lib.ones(2, device="meta")),
    lambda lib: lib.zeros_like(lib.ones(2, device="meta"), device="cpu"),
    lambda lib: lib.ones(2, device="meta").new_zeros(3),
    lambda lib: lib.ones(2).to("meta"),
    lambda lib: lib.ones(2, 3, device="meta")[0].T.is_meta,
    lambda lib: (lib.ones(2, 3, device="meta") @ lib.ones(3, 2, device="meta")).relu().sum(),
    lambda lib: lib.ones(2, device="meta") + lib.tensor(1.0),
    lambda lib: lib.ones(2, device="meta").to(lib.float64),
    lambda lib: [lib.ones(2, device="meta").device, lib.ones(2).device],
    lambda lib: [lib.ones(2, device="meta").is_meta, lib.ones(2, device="meta").is_cpu, lib.ones(2).is_meta],
    lambda lib: list(lib.ones(2, device="meta")),
    lambda lib: format(lib.ones((), device="meta")),
    lambda lib: lib.cat([lib.ones(2, device="meta")] * 2).detach().data,
], ids=["ones", "str_long", "0d", "empty_half", "requires_grad", "parameter", "linear_output", "tensor", "arange",
        "full", "zeros_like", "zeros_like_cpu", "new_zeros", "to_meta", "view", "ops", "with_cpu_scalar",
        "to_dtype", "device", "is_meta", "iterate", "format", "cat_detach"])
def test_meta_tensors_print_and_compute_without_values(fn):
    check_outcome(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2, device="meta").item(),
    lambda lib: lib.ones(1, device="meta").item(),
    lambda lib: bool(lib.ones(1, device="meta")),
    lambda lib: float(lib.ones(1, device="meta")),
    lambda lib: lib.ones(2, device="meta").tolist(),
    lambda lib: lib.ones(2, device="meta").numpy(),
    lambda lib: lib.ones(2, device="meta").cpu(),
    lambda lib: lib.ones(2, device="meta").to("cpu", lib.float64),
    lambda lib: f"{lib.ones((), device='meta'):.3f}",
    lambda lib: lib.ones(2, 3, device="meta") + lib.ones(2, 3),
    lambda lib: lib.nn.Linear(3, 4, device="meta")(lib.ones(2, 3)),
    lambda lib: lib.nn.Linear(3, 4, device="meta").to("cpu"),
    lambda lib: lib.nn.Linear(3, 4, device="meta").cpu(),
], ids=["item_many", "item", "bool", "float", "tolist", "numpy", "cpu", "to_cpu", "format_spec", "mixed_add",
        "mixed_linear", "module_to", "module_cpu"])
def test_meta_tensors_refuse_reading_values(fn):
    check_outcome(fn)


def _meta_model_then_draws(lib):
    lib.manual_seed(0)
    with lib.device("meta"):
        inside = str(lib.get_default_device())
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.BatchNorm1d(4), lib.nn.LSTM(4, 5),
                                  lib.nn.Embedding(6, 2))
        lib.randn(3)
        lib.rand(2).uniform_()
    after = lib.randn(4)
    return (inside, str(lib.get_default_device()), sum(p.numel() for p in model.parameters()),
            str(model[0].weight), str(model[2].running_mean), str(model[2].num_batches_tracked),
            [round(v, 5) for v in after.tolist()])


def _meta_model_materialised(lib):
    with lib.device("meta"):
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))
    model.to_empty(device="cpu")
    lib.manual_seed(1)
    model[0].reset_parameters()
    model[1].reset_parameters()
    weight = model[0].weight
    return (str(weight.device), weight.is_meta, np.round(weight.detach().numpy(), 5).tolist(),
            model[1].running_var.tolist(), model(lib.ones(2, 3)).shape)


@pytest.mark.parametrize("fn", [_meta_model_then_draws, _meta_model_materialised])
def test_meta_modules_draw_nothing_until_materialised(fn):
    assert outcome(fn, vt) == outcome(fn, torch)


def _load_into_meta(lib):
    model = lib.nn.Sequential(lib.nn.Linear(2, 3, device="meta"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = model.load_state_dict(lib.nn.Sequential(lib.nn.Linear(2, 3)).state_dict())
    return str(result), [str(w.message) for w in caught], str(model[0].weight)


def test_loading_into_meta_parameters_is_a_no_op_with_a_warning():
    assert outcome(_load_into_meta, vt) == outcome(_load_into_meta, torch)
