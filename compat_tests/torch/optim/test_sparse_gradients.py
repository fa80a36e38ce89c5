"""Sparse gradients of Embedding / EmbeddingBag / F.embedding(sparse=True) and the optimizers that take them
(SGD, Adagrad, SparseAdam), against real torch 2.13."""

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, real, vt

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

TABLE = (np.arange(18.0).reshape(6, 3) / 7 - 1).astype(np.float32)
BATCHES = ([[0, 2, 2], [5, 0, 1]], [[3, 3, 1]], [[4, 0, 4], [4, 2, 5]])


def coalesced(g):
    c = g.coalesce()
    return c.indices().numpy(), c.values().numpy(), tuple(g.shape), str(g.layout)


def assert_same_sparse(got, want):
    for a, b in zip(coalesced(got), coalesced(want)):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
        else:
            assert a == b


def _loss(torch, out):
    weights = torch.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)).astype(np.float32))
    return (out * weights).sum()


def _embedding(torch, **kwargs):
    e = torch.nn.Embedding(6, 3, sparse=True, **kwargs)
    with torch.no_grad():
        e.weight.copy_(torch.tensor(TABLE))
    return e


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1}, {"max_norm": 1.0}])
def test_embedding_sparse_gradient(kwargs):
    grads = []
    for torch in LIBS:
        e = _embedding(torch, **kwargs)
        _loss(torch, e(torch.tensor(BATCHES[0]))).backward()
        assert e.weight.grad.is_sparse and not e.weight.grad.requires_grad
        grads.append((e.weight.grad, e.weight.detach().numpy().copy()))
    assert_same_sparse(grads[1][0], grads[0][0])
    assert grads[1][0]._nnz() == grads[0][0]._nnz()  # one entry per looked-up index (padding left out)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-6)


def test_functional_embedding_sparse_and_accumulation_over_two_backwards():
    grads = []
    for torch in LIBS:
        w = torch.tensor(TABLE, requires_grad=True)
        for batch in BATCHES[:2]:
            _loss(torch, torch.nn.functional.embedding(torch.tensor(batch), w, sparse=True)).backward()
        grads.append(w.grad)
    assert grads[1]._nnz() == grads[0]._nnz()
    assert_same_sparse(grads[1], grads[0])


def test_sparse_and_dense_gradients_accumulate_to_dense():
    grads = []
    for torch in LIBS:
        w = torch.tensor(TABLE, requires_grad=True)
        _loss(torch, torch.nn.functional.embedding(torch.tensor(BATCHES[0]), w, sparse=True)).backward()
        (w * 2).sum().backward()
        grads.append(w.grad)
    assert not grads[1].is_sparse and not grads[0].is_sparse
    np.testing.assert_allclose(grads[1].numpy(), grads[0].numpy(), rtol=1e-6)


def test_scale_grad_by_freq_with_sparse_gradients_raises_in_backward():
    for torch in LIBS:
        e = _embedding(torch, scale_grad_by_freq=True)
        out = e(torch.tensor(BATCHES[0]))
        with pytest.raises(RuntimeError, match="scale_grad_by_freq"):
            out.sum().backward()


@pytest.mark.parametrize("mode, padding_idx, weighted", [
    ("sum", None, False), ("mean", None, False), ("sum", 2, False), ("mean", 2, False), ("sum", None, True),
    ("sum", 2, True),  # (per_sample_weights need mode='sum')
])
def test_embedding_bag_sparse_gradient(mode, padding_idx, weighted):
    grads = []
    for torch in LIBS:
        bag = torch.nn.EmbeddingBag(6, 3, mode=mode, sparse=True, padding_idx=padding_idx)
        with torch.no_grad():
            bag.weight.copy_(torch.tensor(TABLE))
        idx, offsets = torch.tensor([0, 2, 2, 5, 0, 1, 2]), torch.tensor([0, 3, 3])
        psw = torch.tensor(np.linspace(-1, 2, 7).astype(np.float32)) if weighted else None
        out = bag(idx, offsets, per_sample_weights=psw)
        _loss(torch, out).backward()
        grads.append((out.detach().numpy(), bag.weight.grad))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-6, atol=1e-6)  # float32 sums of ~1 values
    assert_same_sparse(grads[1][1], grads[0][1])


def test_embedding_bag_2d_input_sparse_gradient():
    grads = []
    for torch in LIBS:
        w = torch.tensor(TABLE, requires_grad=True)
        out = torch.nn.functional.embedding_bag(torch.tensor(BATCHES[0]), w, mode="mean", sparse=True)
        _loss(torch, out).backward()
        grads.append(w.grad)
    assert_same_sparse(grads[1], grads[0])


def test_zero_grad_keeps_an_empty_sparse_gradient():
    results = []
    for torch in LIBS:
        e = _embedding(torch)
        _loss(torch, e(torch.tensor(BATCHES[0]))).backward()
        torch.optim.SGD(e.parameters(), lr=0.1).zero_grad(set_to_none=False)
        results.append((e.weight.grad.is_sparse, e.weight.grad._nnz(), tuple(e.weight.grad.shape)))
    assert results[0] == results[1]


# -- optimizers ---------------------------------------------------------------------------
def _train(torch, name, kwargs, steps=3):
    e = _embedding(torch)
    dense = torch.nn.Linear(3, 1)
    with torch.no_grad():
        dense.weight.copy_(torch.tensor([[0.5, -1.0, 0.25]]))
        dense.bias.fill_(0.1)
    opt = getattr(torch.optim, name)(e.parameters(), **kwargs)
    dense_opt = torch.optim.Adam(dense.parameters(), lr=0.05)  # recommenders pair a dense optimizer with it
    for k in range(steps):
        opt.zero_grad()
        dense_opt.zero_grad()
        _loss(torch, dense(e(torch.tensor(BATCHES[k % len(BATCHES)])))).backward()
        opt.step()
        dense_opt.step()
    return e.weight.detach().numpy().copy(), dense.weight.detach().numpy().copy(), opt.state_dict()["state"]


@pytest.mark.parametrize("name, kwargs", [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.1, "initial_accumulator_value": 0.2, "maximize": True}),
    ("SparseAdam", {"lr": 0.1}),
    ("SparseAdam", {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-6, "maximize": True}),
])
def test_optimizer_steps_with_sparse_gradients(name, kwargs):
    want, got = (_train(torch, name, kwargs) for torch in (real, vt))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    assert sorted(got[2].get(0, {})) == sorted(want[2].get(0, {}))
    for key, value in want[2].get(0, {}).items():
        mine = got[2][0][key]
        if isinstance(value, real.Tensor) and value.is_sparse:
            assert_same_sparse(mine, value)
        elif isinstance(value, real.Tensor):
            np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=1e-5, atol=1e-6)
        else:
            assert mine == value


@pytest.mark.parametrize("name, kwargs", [
    ("Adam", {}), ("AdamW", {}), ("RMSprop", {}), ("Adadelta", {}), ("Adamax", {}), ("NAdam", {}), ("RAdam", {}),
    ("ASGD", {}), ("Rprop", {}), ("SGD", {"lr": 0.1, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1}),
])
def test_optimizers_torch_refuses_for_sparse_gradients(name, kwargs):
    messages = []
    for torch in LIBS:
        with pytest.raises(RuntimeError) as info:
            _train(torch, name, kwargs, steps=1)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_sparse_adam_refuses_dense_gradients():
    for torch in LIBS:
        w = torch.tensor(TABLE, requires_grad=True)
        (w * 2).sum().backward()
        with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
            torch.optim.SparseAdam([w]).step()


def test_clip_grad_norm_of_sparse_gradients_is_refused_as_torch_refuses():
    # torch 2.13's norms do not run on the SparseCPU backend: NotImplementedError from both.
    for torch in LIBS:
        e = _embedding(torch)
        e(torch.tensor(BATCHES[0])).sum().backward()
        with pytest.raises(NotImplementedError):
            torch.nn.utils.clip_grad_norm_(e.parameters(), 1.0)


def test_sparse_gradient_assignment_and_errors():
    for torch in LIBS:
        e = _embedding(torch)
        e(torch.tensor(BATCHES[0])).sum().backward()
        p = torch.zeros(6, 3, requires_grad=True)
        p.grad = e.weight.grad
        assert p.grad.is_sparse
        with pytest.raises(RuntimeError):
            torch.zeros(5, 3, requires_grad=True).grad = e.weight.grad
        w = torch.ones(4, 2, requires_grad=True)
        with pytest.raises(RuntimeError):  # an index outside the table
            torch.nn.functional.embedding_bag(torch.tensor([0, 5]), w, torch.tensor([0]), sparse=True)
        with pytest.raises(IndexError):
            torch.nn.functional.embedding(torch.tensor([0, 5]), w, sparse=True)
        with pytest.raises(ValueError):
            torch.nn.functional.embedding_bag(torch.tensor([[0, 1]]), w, mode="max", sparse=True)


def test_non_leaf_weight_passes_a_dense_gradient_on():
    # torch carries the sparse gradient through ``w * 2``; vfw looks a non-leaf weight up densely (same values).
    grads = []
    for torch in LIBS:
        w = torch.tensor(TABLE, requires_grad=True)
        _loss(torch, torch.nn.functional.embedding(torch.tensor(BATCHES[0]), w * 2, sparse=True)).backward()
        grads.append(w.grad)
    assert grads[0].is_sparse and not grads[1].is_sparse
    np.testing.assert_allclose(grads[1].numpy(), grads[0].to_dense().numpy(), rtol=1e-6)


def test_state_dicts_with_sparse_state_load_and_save():
    import io
    results = []
    for torch in LIBS:
        e = _embedding(torch)
        opt = torch.optim.SGD(e.parameters(), lr=0.1, momentum=0.9)
        _loss(torch, e(torch.tensor(BATCHES[0]))).backward()
        opt.step()
        fresh = torch.optim.SGD(e.parameters(), lr=0.1, momentum=0.9)
        fresh.load_state_dict(opt.state_dict())
        buf = io.BytesIO()
        torch.save(fresh.state_dict(), buf)
        buf.seek(0)
        results.append(torch.load(buf)["state"][0]["momentum_buffer"])
    assert results[1].is_sparse and results[0].is_sparse
    assert_same_sparse(results[1], results[0])
