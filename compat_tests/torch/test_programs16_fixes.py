"""Fixes found by the round-16 programs (``compat_tests/programs/torch_more16``): the errors and warnings users
print, against real torch 2.13."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402


def _raised(fn, lib):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e)
    return None


def _same_error(fn):
    want = _raised(fn, torch)
    assert want is not None
    assert _raised(fn, vt) == want


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(4, 3), lib.tensor([0, 1, 2, 3])),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(2, 3), lib.tensor([-1, 5])),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(2, 3), lib.tensor([-100, 7]), label_smoothing=0.1),
    lambda lib: lib.nn.functional.nll_loss(lib.zeros(2, 3, 2), lib.tensor([[0, 1], [4, 1]])),
    lambda lib: lib.nn.functional.nll_loss(lib.zeros(3), lib.tensor(3)),
], ids=["ce", "ce_negative", "ce_smoothing", "nll_2d", "nll_unbatched"])
def test_class_target_out_of_bounds(fn):
    _same_error(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.Embedding(5, 2)(lib.tensor([1, 5])),
    lambda lib: lib.nn.functional.embedding(lib.tensor([[-1]]), lib.zeros(3, 2)),
    lambda lib: lib.nn.functional.mse_loss(lib.zeros(4, 3), lib.zeros(4, 2)),
    lambda lib: lib.nn.functional.l1_loss(lib.zeros(2, 5), lib.zeros(3, 1, 4)),
])
def test_lookup_and_broadcast_errors(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (the losses' size warning)
        _same_error(fn)


def _double_backward(lib):
    x = lib.ones(3, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _saved_result_modified(lib):
    x = lib.ones(3, requires_grad=True)
    y = x.exp()
    y.add_(1)
    y.sum().backward()


@pytest.mark.parametrize("fn", [_double_backward, _saved_result_modified])
def test_autograd_errors_are_plain_runtime_errors(fn):
    want, got = _raised(fn, torch), _raised(fn, vt)
    assert got[0] == want[0] == "RuntimeError"  # (not the engine's own RuntimeError subclasses)
    assert got[1].split(":")[0] == want[1].split(":")[0]


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.Module().add_module("a.b", lib.nn.ReLU()),
    lambda lib: lib.nn.ModuleDict({"x.y": lib.nn.ReLU()}),
    lambda lib: lib.nn.Module().register_buffer("a.b", None),
    lambda lib: lib.nn.Module().register_parameter("a.b", None),
])
def test_member_names_with_dots(fn):
    _same_error(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.zeros(3, dtype=lib.long, requires_grad=True),
    lambda lib: lib.tensor([1, 2], requires_grad=True),
    lambda lib: lib.arange(3, requires_grad=True),
    lambda lib: lib.randint(0, 3, (2,), requires_grad=True),
    lambda lib: lib.full((2,), True, requires_grad=True),
    lambda lib: lib.arange(3).requires_grad_(),
])
def test_integer_tensors_refuse_requires_grad(fn):
    _same_error(fn)


@pytest.mark.parametrize("data", [
    lambda lib: [lib.ones(1), lib.ones(1)],
    lambda lib: [[lib.tensor(1.0), lib.tensor(2)]],
    lambda lib: [lib.ones(1, 1), 2.5],
    lambda lib: [[1.0, 2.0], lib.ones(2)],
    lambda lib: [[1.0, 2.0], lib.ones(2, 1)],
    lambda lib: [[[1.0, 2.0]], lib.ones(1, 2)],
])
def test_tensors_nested_in_lists(data):
    want = torch.tensor(data(torch))
    got = vt.tensor(data(vt))
    assert str(got) == str(want)


@pytest.mark.parametrize("data", [
    lambda lib: [lib.ones(2), lib.ones(2)],
    lambda lib: [lib.tensor([1, 2])],
    lambda lib: [[1.0, 2.0], lib.ones(1)],
    lambda lib: [[1.0, 2.0], lib.ones(3)],
    lambda lib: [[1], lib.tensor(3)],
    lambda lib: [lib.zeros(0)],
])
def test_tensors_nested_in_lists_refused(data):
    _same_error(lambda lib: lib.tensor(data(lib)))


def _exp_result_written(lib):
    a = lib.ones(3, requires_grad=True)
    x = a.exp()
    x.add_(1)
    x.add_(1)
    x.sum().backward()


def _sigmoid_0d_result_written(lib):
    x = lib.tensor(2.0, requires_grad=True).sigmoid()
    x.mul_(2)
    x.backward()


def _input_written_twice_after_one_write(lib):
    b = lib.ones(3, requires_grad=True).clone()
    b.add_(1)
    y = b * b
    b.add_(2)
    b.add_(3)
    y.sum().backward()


def _constant_input_written(lib):
    w = lib.ones(3, 3, requires_grad=True)
    x = lib.ones(2, 3, dtype=lib.float64).float()
    y = x @ w
    x.mul_(2)
    y.sum().backward()


def _slice_written_after_use(lib):
    x = lib.ones(3, requires_grad=True) * 2
    y = x * x
    x[0] = 5
    y.sum().backward()


def _view_of_result_written(lib):
    y = (lib.ones(4, requires_grad=True) * 1).view(2, 2).exp()
    y[0].mul_(2)
    y.sum().backward()


def _relu_written_under_anomaly_mode(lib):
    x = lib.ones(2, 3, requires_grad=True).relu()
    x += 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (anomaly mode's own warnings)
        with lib.autograd.set_detect_anomaly(True):
            x.sum().backward()


@pytest.mark.parametrize("fn", [_saved_result_modified, _exp_result_written, _sigmoid_0d_result_written,
                                _input_written_twice_after_one_write, _constant_input_written,
                                _slice_written_after_use, _view_of_result_written,
                                _relu_written_under_anomaly_mode])
def test_saved_tensor_modified_message(fn):
    # torch names the saved tensor's type and shape, the node it is an output of, and both versions
    _same_error(fn)


@pytest.mark.parametrize("write", [
    lambda x, lib: x.copy_(lib.ones(3)),
    lambda x, lib: x.zero_(),
    lambda x, lib: x.fill_(2.0),
])
def test_overwriting_a_tensor_with_history_keeps_it_in_the_graph(write):
    found = {}
    for lib in (torch, vt):
        a = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        x = a * 2
        write(x, lib)
        (x * a).sum().backward()  # the overwritten history passes a zero gradient
        found[lib] = (x.requires_grad, x.is_leaf, type(x.grad_fn).__name__, x.grad_fn.name(), a.grad.tolist(),
                      x.tolist())
    assert found[vt] == found[torch]


@pytest.mark.parametrize("write", [
    lambda x, lib: x.__setitem__(0, 5.0),
    lambda x, lib: x.__setitem__(slice(1, None), lib.zeros(2)),
    lambda x, lib: x.__setitem__(lib.tensor([0, 2]), 1.0),
    lambda x, lib: x.__setitem__(x > 0, 0.0),
    lambda x, lib: x.view(3).__setitem__(0, 1.0),
    lambda x, lib: x[1:].mul_(3),
    lambda x, lib: x.index_put_((lib.tensor([1]),), lib.tensor(7.0)),
])
def test_grad_fn_of_a_tensor_written_through_an_index(write):
    found = {}
    for lib in (torch, vt):
        a = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        x = a * 2
        write(x, lib)
        x.sum().backward()
        found[lib] = (x.grad_fn.name(), type(x.grad_fn).__name__, repr(x).split("grad_fn=")[1], a.grad.tolist())
    assert found[vt] == found[torch]


@pytest.mark.parametrize("data", [
    [[1, 2], [3]], [[1.0, 2], 3], [[[1], [2]], [[3]]], [1, [2]], [1.0, [2]], [True, [2]], [[1], []], [[], [1]],
    [[], [True]], [1, "a"], ["a"], [[1], ["a"]], [1, object()], [[1, 2], None], {1: 2}, [[[1, 2]], [[1, 2], [3, 4]]],
], ids=lambda data: "object" if isinstance(data, list) and any(type(d) is object for d in data) else repr(data))
def test_tensor_from_ragged_or_non_numeric_lists(data):
    def make(lib):
        return repr(lib.tensor(data))
    want = _raised(make, torch)
    if want is None:
        assert make(vt) == make(torch)
    else:
        _same_error(make)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.zeros(2, 3).masked_fill(lib.ones(3, 2, dtype=lib.bool), 0),
    lambda lib: lib.zeros(2, 3).masked_fill_(lib.ones(3, 2, dtype=lib.bool), 0),
    lambda lib: lib.zeros(2, 3).masked_select(lib.ones(3, 2, dtype=lib.bool)),
    lambda lib: lib.zeros(2, 3).masked_scatter(lib.ones(3, 2, dtype=lib.bool), lib.ones(6)),
    lambda lib: lib.zeros(2).masked_fill(lib.zeros(2), 0),
    lambda lib: lib.zeros(2).masked_fill(lib.zeros(2, dtype=lib.long), 0),
    lambda lib: lib.zeros(2).masked_fill(lib.zeros(2, dtype=lib.float16), 0),
    lambda lib: lib.zeros(2).masked_fill(lib.zeros(2, dtype=lib.uint8), 0),
    lambda lib: lib.zeros(2).masked_scatter(lib.zeros(2, dtype=lib.float64), lib.zeros(2)),
    lambda lib: lib.zeros(2, -3),
    lambda lib: lib.zeros((-1,)),
    lambda lib: lib.ones(2).new_zeros(-1),
])
def test_mask_and_size_errors(fn):
    _same_error(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.linalg.inv(lib.tensor([[1.0, 2.0], [2.0, 4.0]])),
    lambda lib: lib.linalg.inv(lib.stack([lib.eye(3), lib.tensor([[1.0, 2, 3], [2, 4, 6], [1, 1, 1]])])),
    lambda lib: lib.linalg.inv(lib.zeros(2, 2, 2, 2)),
    lambda lib: lib.inverse(lib.zeros(2, 2)),
    lambda lib: lib.linalg.inv_ex(lib.zeros(2, 2), check_errors=True),
    lambda lib: lib.linalg.cholesky(lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda lib: lib.linalg.cholesky(lib.stack([lib.eye(2), -lib.eye(2)])),
    lambda lib: lib.linalg.cholesky(lib.tensor([[4.0, 2, 0], [2, 1, 0], [0, 0, 1]]), upper=True),
    lambda lib: lib.linalg.cholesky_ex(-lib.eye(2), check_errors=True),
])
def test_linalg_errors_name_the_failing_pivot(fn):
    _same_error(fn)


def test_singular_triangular_solves_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vt.cholesky_solve(vt.ones(2, 1), vt.zeros(2, 2))
    want = torch.cholesky_solve(torch.ones(2, 1), torch.zeros(2, 2))
    assert str(got) == str(want)


_EINSUM_ERRORS = [
    ("ij,jk->ik", (2, 3), (4, 2)), ("ij,jk", (2, 3)), ("ii->i", (2, 3)), ("ij->k", (2, 3)), ("ijk->i", (2, 3)),
    ("i,i->i", (2,), (2,), (2,)), ("i->", (2,), (2,)), ("ij,jk->ii", (2, 3), (3, 2)), ("...ijk->i", (2, 3)),
    ("bij,bjk->bik", (2, 2, 3), (3, 3, 4)), ("i...,i...->i", (2, 3), (2, 4)), ("iij->j", (2, 3, 4)),
    ("ab,bc,cd->ad", (2, 3), (3, 4), (5, 6)), ("ab,bc,cd->ad", (2, 3), (3, 4), (4, 5, 1)),
    ("ab,bc,cd->ae", (2, 3), (3, 4), (4, 5)), ("aa,a,a->a", (2, 3), (2,), (2,)),
]


@pytest.mark.parametrize("case", _EINSUM_ERRORS, ids=lambda c: c[0])
def test_einsum_errors(case):
    equation, *shapes = case
    _same_error(lambda lib: lib.einsum(equation, *[lib.zeros(s) for s in shapes]))


@pytest.mark.parametrize("case", [
    ("bij,bjk->bik", (2, 2, 3), (1, 3, 4)), ("ij,ij->i", (2, 1), (2, 5)), ("ij,ij->i", (1, 3), (2, 3)),
    ("a,a,a->a", (2,), (1,), (2,)), ("ab,bc,cd->ad", (2, 3), (1, 4), (4, 5)), ("i...,i...->i...", (2, 1), (2, 4)),
], ids=lambda c: c[0])
def test_einsum_broadcasts_size_one_labels(case):
    equation, *shapes = case
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = {}
    for lib in (torch, vt):
        operands = [lib.tensor(a, requires_grad=True) for a in arrays]
        result = lib.einsum(equation, *operands)
        (result * lib.arange(float(result.numel())).reshape(result.shape)).sum().backward()
        grads[lib] = (result.detach().numpy(), [t.grad.numpy() for t in operands])
    np.testing.assert_allclose(grads[vt][0], grads[torch][0], rtol=1e-5, atol=1e-5)
    for got, want in zip(grads[vt][1], grads[torch][1]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.linear(lib.tensor(1.0), lib.ones(2, 3)),
    lambda lib: lib.nn.functional.linear(lib.ones(3), lib.tensor(2.0)),
    lambda lib: lib.nn.Linear(3, 2)(lib.tensor(1.0)),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([1.5]), lib.tensor([1.0])),
    lambda lib: lib.nn.BCELoss()(lib.tensor([[-2.0]], requires_grad=True), lib.tensor([[1.0]])),
])
def test_linear_and_bce_argument_errors(fn):
    _same_error(fn)
