"""Sparse COO/CSR tensors of vfw.torch against real torch 2.13: construction, parts, repr, arithmetic, sums,
products with their gradients, softmax, errors, and checkpoints."""

import io
import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, check, real, vt

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # torch's "sparse invariant checks" / CSR beta notes

IDX = [[1, 0, 1, 0], [2, 0, 2, 1]]
VAL = [3.0, 4.0, 5.0, -1.0]


def parts(s):
    """A comparable form of a sparse COO tensor: its coalesced indices/values, size, layout and dtype."""
    c = s.coalesce()
    return c.indices(), c.values(), tuple(s.shape), str(s.layout), str(s.dtype), s.sparse_dim(), s.dense_dim()


def make(torch, indices=IDX, values=VAL, size=(2, 3), **kwargs):
    return torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values), size, **kwargs)


# -- construction and parts --------------------------------------------------------------
@pytest.mark.parametrize("indices, values, size, kwargs", [
    (IDX, VAL, (2, 3), {}),
    (IDX, VAL, None, {}),
    (IDX, VAL, (2, 3), {"dtype": "float64"}),
    (IDX, [1, 2, 3, 4], (4, 5), {}),
    ([[1, 0, 1]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], (3, 2), {}),  # hybrid: one sparse and one dense dim
    ([[0, 1], [1, 0]], [1.0, 2.0], (2, 2), {"is_coalesced": True}),
    (np.zeros((2, 0), np.int64).tolist(), [], (2, 3), {}),
])
def test_construction_and_parts(indices, values, size, kwargs):
    def fn(torch):
        kw = dict(kwargs)
        if "dtype" in kw:
            kw["dtype"] = getattr(torch, kw["dtype"])
        idx = torch.tensor(indices, dtype=torch.int64).reshape(len(indices) or 2, -1)
        s = torch.sparse_coo_tensor(idx, torch.tensor(values), size, **kw) if size else \
            torch.sparse_coo_tensor(idx, torch.tensor(values), **kw)
        return (*parts(s), s._indices(), s._values(), s._nnz(), s.is_coalesced(), s.is_sparse, s.to_dense(),
                s.ndim, s.dim(), s.numel(), s.size(), s.size(-1), len(s), s.stride(), s.is_contiguous(), s.type(),
                s.requires_grad, s.is_leaf, s.device)
    check(fn)


def test_indices_and_values_of_an_uncoalesced_tensor_raise():
    check(lambda torch: make(torch).indices())
    check(lambda torch: make(torch).values())
    check(lambda torch: (make(torch).coalesce().is_coalesced(), make(torch).coalesce().coalesce().values()))


@pytest.mark.parametrize("case", ["nnz", "ndim", "dense", "negative", "too_large", "indices_1d"])
def test_construction_errors(case):
    def fn(torch):
        i, v = torch.tensor(IDX), torch.tensor(VAL)
        if case == "nnz":
            return torch.sparse_coo_tensor(i, v[:2], (2, 3))
        if case == "ndim":
            return torch.sparse_coo_tensor(i, v, (2, 3, 4))
        if case == "dense":
            return torch.sparse_coo_tensor(i[:1], torch.ones(4, 2), (2, 3))
        with torch.sparse.check_sparse_tensor_invariants():  # torch checks indices only then; vfw always does
            if case == "negative":
                return torch.sparse_coo_tensor(-i, v, (2, 3))
            if case == "too_large":
                return torch.sparse_coo_tensor(i, v, (1, 3))
            return torch.sparse_coo_tensor(i[0], v, (2, 3))
    check(fn)


@pytest.mark.parametrize("case", ["default", "float64_grad", "empty", "int", "hybrid", "leaf", "long_row"])
def test_repr(case):
    def make_case(torch):
        if case == "default":
            return make(torch)
        if case == "float64_grad":
            return make(torch, dtype=torch.float64, requires_grad=True)
        if case == "empty":
            return torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.int64), torch.zeros(0), (2, 3))
        if case == "int":
            return make(torch, values=[1, 2, 3, 4], dtype=torch.int32).coalesce()
        if case == "hybrid":
            return torch.sparse_coo_tensor(torch.tensor([[1, 0, 1]]), torch.arange(6.).reshape(3, 2), (3, 2))
        if case == "leaf":
            return make(torch, requires_grad=True).detach()
        return torch.arange(40.).reshape(2, 20).to_sparse()
    assert repr(make_case(vt)) == repr(make_case(real))


@pytest.mark.parametrize("call, exc", [
    (lambda s: s.view(8), NotImplementedError),
    (lambda s: s.exp(), NotImplementedError),
    (lambda s: s.reshape(6), RuntimeError),
    (lambda s: s.numpy(), TypeError),
    (lambda s: s.data_ptr(), RuntimeError),
    (lambda s: s.item(), RuntimeError),
    (lambda s: bool(s), RuntimeError),
    (lambda s: s + vt.ones(2, 3) if isinstance(s, vt.Tensor) else s + real.ones(2, 3), RuntimeError),
])
def test_refused_operations(call, exc):
    for torch in LIBS:
        with pytest.raises(exc):
            call(make(torch))


def test_dense_functions_refuse_sparse_inputs_clearly():
    s = make(vt)
    for fn in (lambda: vt.relu(s), lambda: vt.cat([s, s]), lambda: vt.exp(s), lambda: vt.nn.functional.linear(s, s)):
        with pytest.raises(RuntimeError, match="SparseCPU"):
            fn()


# -- arithmetic -----------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["mul2", "rmul", "div", "neg", "add", "sub", "add_coalesced", "mul_sparse",
                                "mul_dense", "mul_0d", "mul_", "zero_", "clone", "double", "t", "detach"])
def test_arithmetic(op):
    def fn(torch):
        s = make(torch)
        t = make(torch, [[0, 1, 1], [1, 2, 0]], [7.0, 1.0, 2.0])
        result = {
            "mul2": lambda: s * 2, "rmul": lambda: 2.5 * s, "div": lambda: s / 4, "neg": lambda: -s,
            "add": lambda: s + t, "sub": lambda: s - t, "add_coalesced": lambda: s.coalesce() + t.coalesce(),
            "mul_sparse": lambda: s.coalesce() * t.coalesce(), "mul_dense": lambda: s * torch.arange(6.).reshape(2, 3),
            "mul_0d": lambda: s * torch.tensor(3.0), "mul_": lambda: s.clone().mul_(2), "zero_": lambda: s.zero_(),
            "clone": lambda: s.clone(), "double": lambda: s.double(), "t": lambda: s.t(), "detach": lambda: s.detach(),
        }[op]()
        return (*parts(result), result.is_coalesced() if op in ("add_coalesced", "zero_", "t", "mul_sparse") else None,
                (s * t).to_dense())
    check(fn)


# -- reductions ------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("hybrid", [False, True])
def test_sparse_sum_and_its_gradient(dim, hybrid):
    for_dims = dim if not hybrid or dim is None else dim

    def fn(torch, values):
        if hybrid:
            s = torch.sparse_coo_tensor(torch.tensor([[1, 0, 1]]), values.reshape(3, 2), (3, 2))
        else:
            s = torch.sparse_coo_tensor(torch.tensor(IDX), values, (2, 3))
        out = torch.sparse.sum(s) if for_dims is None else torch.sparse.sum(s, for_dims)
        dense = out.to_dense() if out.is_sparse else out
        (dense * torch.arange(1., dense.numel() + 1).reshape(dense.shape)).sum().backward()
        return dense, out.is_sparse, values.grad

    values = np.arange(6.0 if hybrid else 4.0, dtype=np.float32) - 1.5
    results = [fn(lib, lib.tensor(values, requires_grad=True)) for lib in LIBS]
    for want, got in zip(*results):
        np.testing.assert_allclose(np.asarray(got.detach() if hasattr(got, "detach") else got),
                                   np.asarray(want.detach() if hasattr(want, "detach") else want), rtol=1e-6)


# -- products -----------------------------------------------------------------------------
def _product_grads(torch, call, dense_shape=(3, 2), leaf=True):
    rng = np.random.default_rng(1)
    d = torch.tensor(rng.standard_normal(dense_shape).astype(np.float32), requires_grad=True)
    s = make(torch, requires_grad=True) if leaf else make(torch).double().float()
    out = call(torch, s, d)
    w = torch.tensor(rng.standard_normal(tuple(out.shape)).astype(np.float32))
    (out * w).sum().backward()
    grad = s.grad
    if not leaf:
        return out, d.grad, None
    # torch.mm/matmul/@/addmm give a sparse leaf a dense gradient (every element); torch.sparse.mm/addmm and vfw a
    # sparse one at the tensor's indices: compare the gradient there.
    dense_grad = grad.to_dense() if grad.is_sparse else grad
    return out, d.grad, s.detach().coalesce().to_dense().ne(0).float() * dense_grad


@pytest.mark.parametrize("name", ["sparse.mm", "mm", "matmul", "method_mm", "at", "spmm", "addmm", "sparse.addmm",
                                  "matmul_vector", "csr_matmul"])
def test_products_and_gradients(name):
    calls = {
        "sparse.mm": lambda torch, s, d: torch.sparse.mm(s, d),
        "mm": lambda torch, s, d: torch.mm(s, d),
        "matmul": lambda torch, s, d: torch.matmul(s, d),
        "method_mm": lambda torch, s, d: s.mm(d),
        "at": lambda torch, s, d: s @ d,
        "spmm": lambda torch, s, d: torch.spmm(s, d),
        "addmm": lambda torch, s, d: torch.addmm(torch.ones(2, 2), s, d, beta=0.5, alpha=2.0),
        "sparse.addmm": lambda torch, s, d: torch.sparse.addmm(torch.ones(2, 2), s, d, beta=2.0, alpha=-1.0),
        "matmul_vector": lambda torch, s, d: torch.matmul(s, d[:, 0]),
        "csr_matmul": lambda torch, s, d: s.detach().to_sparse_csr() @ d,
    }
    want, got = (_product_grads(lib, calls[name], leaf=name != "csr_matmul") for lib in LIBS)
    for w, g in zip(want, got):
        if w is None:
            assert g is None
            continue
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["dtype", "rows", "vector_mm", "sparse_sparse"])
def test_product_errors(case):
    def fn(torch):
        s = make(torch)
        if case == "dtype":
            return torch.mm(s, torch.ones(3, 2, dtype=torch.float64))
        if case == "rows":
            return torch.mm(s, torch.ones(2, 2))
        if case == "vector_mm":
            return torch.mm(s, torch.ones(3))
        return torch.mm(s, s.t()).to_dense()
    if case == "sparse_sparse":  # torch multiplies two sparse matrices; vfw refuses clearly
        with pytest.raises(RuntimeError, match="sparse"):
            fn(vt)
        return
    check(fn)


def test_hspmm_smm():
    check(lambda torch: parts(torch.hspmm(make(torch), torch.arange(6.).reshape(3, 2))))
    check(lambda torch: parts(torch.smm(make(torch), torch.arange(6.).reshape(3, 2))))


# -- conversions, masks, softmax -------------------------------------------------------------
@pytest.mark.parametrize("sparse_dim", [None, 1, 2])
def test_to_sparse_and_gradient(sparse_dim):
    x = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0], [0.0, 0.0, 0.0]], np.float32)

    def fn(torch):
        t = torch.tensor(x, requires_grad=True)
        s = t.to_sparse() if sparse_dim is None else t.to_sparse(sparse_dim)
        (s.to_dense() * torch.arange(9.).reshape(3, 3)).sum().backward()
        return (*parts(s), s.is_coalesced(), t.grad, t.to_sparse_coo().to_dense())
    check(fn)


def test_sparse_mask_and_its_gradient():
    def fn(torch):
        d = torch.arange(6.).reshape(2, 3).requires_grad_()
        m = d.sparse_mask(make(torch).coalesce())
        (m.to_dense() * torch.arange(6.).reshape(2, 3)).sum().backward()
        return (*parts(m), m.is_coalesced(), d.grad)
    check(fn)


@pytest.mark.parametrize("fn_name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1])
def test_sparse_softmax(fn_name, dim):
    def fn(torch):
        s = torch.sparse_coo_tensor(torch.tensor([[0, 0, 1, 2, 2, 2], [0, 2, 1, 0, 1, 2]]),
                                    torch.tensor([1.0, 2.0, -1.0, 0.5, 3.0, -2.0]), (3, 3))
        return parts(getattr(torch.sparse, fn_name)(s, dim))
    check(fn)


# -- CSR -------------------------------------------------------------------------------------
def test_csr_construction_parts_repr_and_conversions():
    def fn(torch):
        c = torch.sparse_csr_tensor(torch.tensor([0, 2, 3]), torch.tensor([0, 2, 1]), torch.tensor([1., 2., 3.]),
                                    (2, 3))
        d = torch.tensor([[0., 1, 0], [2, 0, 3]])
        return (c.crow_indices(), c.col_indices(), c.values(), c.to_dense(), parts(c.to_sparse()), str(c.layout),
                c.is_sparse, c.is_sparse_csr, c.shape, c._nnz(), d.to_sparse_csr().crow_indices(),
                d.to_sparse_csr().col_indices(), d.to_sparse(layout=torch.sparse_csr).values(),
                c @ torch.ones(3, 2), torch.mm(c, torch.arange(6.).reshape(3, 2)), torch.matmul(c, torch.ones(3)))
    check(fn)
    for values, dtype in (([1., 2., 3.], None), ([1, 2, 3], None), ([1., 2., 3.], "float64")):
        def make_csr(torch, values=values, dtype=dtype):
            return torch.sparse_csr_tensor([0, 2, 3], [0, 2, 1], values, dtype=dtype and getattr(torch, dtype))
        assert repr(make_csr(vt)) == repr(make_csr(real))


@pytest.mark.parametrize("args", [
    ([0, 2, 4], [0, 2, 1], [1., 2, 3], (2, 3)), ([0, 2, 3], [0, 5, 1], [1., 2, 3], (2, 3)),
    ([1, 2, 3], [0, 2, 1], [1., 2, 3], (2, 3)), ([0, 2, 3], [0, 2, 1], [1., 2, 3], (3, 3)),
])
def test_csr_errors(args):
    check(lambda torch: torch.sparse_csr_tensor(*args, check_invariants=True))


# -- checkpoints ---------------------------------------------------------------------------------
def _saved(lib, obj):
    buf = io.BytesIO()
    lib.save(obj, buf)
    buf.seek(0)
    return buf


@pytest.mark.parametrize("writer, reader", [(real, vt), (vt, real), (vt, vt)])
def test_save_load(writer, reader):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        objs = {"coo": make(writer), "coalesced": make(writer).coalesce().double(),
                "csr": writer.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1., 2., 3.])}
        loaded = reader.load(_saved(writer, objs))
    for key, s in objs.items():
        got = loaded[key]
        assert str(got.layout) == str(s.layout) and tuple(got.shape) == tuple(s.shape)
        np.testing.assert_array_equal(got.to_dense().numpy(), s.to_dense().numpy())
        if key != "csr":
            assert got.is_coalesced() == s.is_coalesced()
            np.testing.assert_array_equal(got._indices().numpy(), s._indices().numpy())


def test_sparse_mm_gradient_of_a_sparse_leaf_is_sparse_at_its_indices():
    def fn(torch):
        s = make(torch, requires_grad=True)
        d = torch.arange(6.).reshape(3, 2).requires_grad_()
        torch.sparse.mm(s, d).pow(2).sum().backward()
        return s.grad.is_sparse, *parts(s.grad), d.grad
    check(fn)


def test_gcn_training_with_a_sparse_adjacency():
    """A two-layer graph convolution over a normalized sparse adjacency, trained a few Adam steps."""
    rng = np.random.default_rng(3)
    edges = rng.integers(0, 8, (2, 20))
    features = rng.standard_normal((8, 4)).astype(np.float32)
    labels = rng.integers(0, 3, 8)
    results = []
    for torch in LIBS:
        torch.manual_seed(0)
        idx = torch.tensor(np.concatenate([edges, edges[::-1], np.tile(np.arange(8), (2, 1))], axis=1))
        adj = torch.sparse_coo_tensor(idx, torch.ones(idx.shape[1]), (8, 8)).coalesce()
        degree = torch.sparse.sum(adj, 1).to_dense()
        norm = degree.pow(-0.5)
        i = adj.indices()
        adj = torch.sparse_coo_tensor(i, adj.values() * norm[i[0]] * norm[i[1]], (8, 8))
        layers = torch.nn.ModuleList([torch.nn.Linear(4, 6), torch.nn.Linear(6, 3)])
        opt = torch.optim.Adam(layers.parameters(), lr=0.05)
        x, y = torch.tensor(features), torch.tensor(labels)
        for _ in range(3):
            opt.zero_grad()
            h = torch.relu(torch.sparse.mm(adj, layers[0](x)))
            loss = torch.nn.functional.cross_entropy(torch.sparse.mm(adj, layers[1](h)), y)
            loss.backward()
            opt.step()
        results.append([loss.item()] + [p.detach().numpy().copy() for p in layers.parameters()])
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5)
    for got, want in zip(results[1][1:], results[0][1:]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
