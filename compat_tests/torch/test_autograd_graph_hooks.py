"""Saved-tensor hooks and ``grad_fn`` introspection (the "Autograd mechanics" / "Hooks for saved tensors" snippets),
each run in real torch 2.13 and in vfw.torch and compared: pack/unpack calls, saved values, gradients, errors."""

import numpy as np
import pytest

real = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

LIBS = pytest.mark.parametrize("lib", [real, vt], ids=["torch", "vfw"])
RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3)).astype(np.float32)
W = RNG.standard_normal((4, 3)).astype(np.float32)
B = RNG.standard_normal(4).astype(np.float32)


def _leaf(lib, a):
    return lib.tensor(a, requires_grad=True)


SNIPPETS = {
    "pow": lambda lib, F, x, w, b: x.pow(2),
    "mul": lambda lib, F, x, w, b: x * (x + 1),
    "mul_self": lambda lib, F, x, w, b: x * x,
    "mul_constant": lambda lib, F, x, w, b: x * 2,
    "exp": lambda lib, F, x, w, b: x.exp(),
    "sin": lambda lib, F, x, w, b: x.sin(),
    "relu": lambda lib, F, x, w, b: lib.relu(x),
    "sigmoid": lambda lib, F, x, w, b: x.sigmoid(),
    "linear": lambda lib, F, x, w, b: F.linear(x, w, b),
    "linear_no_bias": lambda lib, F, x, w, b: F.linear(x, w),
    "matmul": lambda lib, F, x, w, b: x @ w.t(),
    "add_sum": lambda lib, F, x, w, b: (x + x).sum(),
}


def _run_with_hooks(lib, snippet):
    """Shapes given to pack, number of unpack calls and the leaf gradients of one snippet under the hooks."""
    packed, unpacked = [], []

    def pack(t):
        packed.append(tuple(t.shape))
        return t

    def unpack(t):
        unpacked.append(tuple(t.shape))
        return t

    x, w, b = _leaf(lib, X), _leaf(lib, W), _leaf(lib, B)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = SNIPPETS[snippet](lib, lib.nn.functional, x, w, b)
    y.sum().backward()
    grads = [None if t.grad is None else t.grad.numpy() for t in (x, w, b)]
    return packed, sorted(unpacked), type(y.grad_fn).__name__, grads


@pytest.mark.parametrize("snippet", sorted(SNIPPETS))
def test_pack_unpack_calls_match_torch(snippet):
    want, got = _run_with_hooks(real, snippet), _run_with_hooks(vt, snippet)
    assert got[:3] == want[:3]
    for g, w in zip(got[3], want[3]):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _cheaper_dtype(lib):
    """The tutorial's "save in a cheaper dtype" hooks: the gradient uses the rounded values."""
    x = _leaf(lib, X)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.to(lib.float16), lambda t: t.to(lib.float32)):
        y = x.pow(3)
    y.sum().backward()
    return x.grad.numpy()


def test_unpacked_values_feed_backward():
    want, got = _cheaper_dtype(real), _cheaper_dtype(vt)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    exact = 3 * X.astype(np.float64) ** 2
    assert not np.allclose(got, exact, rtol=1e-7, atol=0)  # the rounded saved value was really used


def _list_index_storage(lib):
    """The tutorial's hooks that keep saved tensors in a list and pack their index; nested contexts."""
    storage, order = [], []

    def pack(tag):
        def hook(t):
            order.append(tag)
            storage.append(t.clone())
            return len(storage) - 1
        return hook

    def unpack(index):
        return storage[index]

    x = _leaf(lib, X)
    with lib.autograd.graph.saved_tensors_hooks(pack("outer"), unpack):
        with lib.autograd.graph.saved_tensors_hooks(pack("inner"), unpack):
            y = x.sin()
        z = y.exp() * x
    z.sum().backward()
    return order, x.grad.numpy()


def test_nested_hooks_innermost_wins():
    (want_order, want_grad), (got_order, got_grad) = _list_index_storage(real), _list_index_storage(vt)
    assert got_order == want_order
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-5, atol=1e-6)


@LIBS
def test_unpack_must_return_tensor(lib):
    x = _leaf(lib, X)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda t: t):
        y = x.pow(2)
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of type int"):
        y.sum().backward()


@LIBS
def test_disable_saved_tensors_hooks(lib):
    graph = lib.autograd.graph
    with graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        with pytest.raises(RuntimeError, match="cannot disable"):
            with graph.disable_saved_tensors_hooks("cannot disable"):
                pass
    with graph.save_on_cpu():  # accepted, and backward works through it
        y = _leaf(lib, X).exp()
    y.sum().backward()


def _saved_values(lib):
    x, w = _leaf(lib, X), _leaf(lib, X + 1)
    p, m, mc, e, s = x.pow(2), x * w, x * 2, x.exp(), x.sin()
    out = {"pow_self_is_x": p.grad_fn._saved_self is x, "pow_exponent": p.grad_fn._saved_exponent,
           "mul_self_is_x": m.grad_fn._saved_self is x, "mul_other_is_w": m.grad_fn._saved_other is w,
           "mul_constant_self": mc.grad_fn._saved_self, "mul_constant_other": mc.grad_fn._saved_other.item(),
           "exp_result": e.grad_fn._saved_result.detach().numpy(), "sin_self_is_x": s.grad_fn._saved_self is x,
           "sum_sizes": x.sum().grad_fn._saved_self_sym_sizes,
           "raw_type": type(p.grad_fn._raw_saved_self).__name__}
    lin = lib.nn.functional.linear(x, _leaf(lib, W), _leaf(lib, B))
    out.update(addmm=type(lin.grad_fn).__name__, mat1_is_x=lin.grad_fn._saved_mat1 is x,
               mat2=lin.grad_fn._saved_mat2.detach().numpy(), alpha=lin.grad_fn._saved_alpha,
               beta=lin.grad_fn._saved_beta, dir=sorted(n for n in dir(p.grad_fn) if n.startswith("_saved")))
    return out


def test_saved_attributes_match_torch():
    want, got = _saved_values(real), _saved_values(vt)
    for key in want:
        if isinstance(want[key], np.ndarray):
            np.testing.assert_allclose(got[key], want[key], rtol=1e-6, err_msg=key)
        else:
            assert got[key] == want[key], key


def _freed_errors(lib):
    x = _leaf(lib, X)
    y = x.exp()
    raw = y.grad_fn._raw_saved_result
    y.sum().backward()
    errors = []
    for action in (lambda: y.grad_fn._saved_result, lambda: raw.register_hooks(lambda t: t, lambda t: t)):
        with pytest.raises(RuntimeError) as info:
            action()
        errors.append(str(info.value)[:200])
    return errors


def test_saved_tensor_freed_errors():
    want, got = _freed_errors(real), _freed_errors(vt)
    assert got == want
    assert "directly access saved tensors after they have already been freed" in got[0]


def _raw_hooks(lib):
    x = _leaf(lib, X)
    y = x.pow(2)
    calls = []
    raw = y.grad_fn._raw_saved_self
    raw.register_hooks(lambda t: calls.append("pack") or t * 4, lambda t: calls.append("unpack") or t / 4)
    seen = y.grad_fn._saved_self.detach().numpy()
    with pytest.raises(RuntimeError, match="hooks have already been set"):
        raw.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        x.pow(3).grad_fn._raw_saved_self.register_hooks(1, 2)
    y.sum().backward()
    return calls, seen, x.grad.numpy()


def test_raw_saved_tensor_register_hooks():
    want, got = _raw_hooks(real), _raw_hooks(vt)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)


def _node_hooks(lib):
    x, w = _leaf(lib, X), _leaf(lib, X + 1)
    y = x * w
    log = []
    y.grad_fn.register_prehook(lambda go: log.append(("pre", len(go), type(go).__name__)))
    handle = y.grad_fn.register_hook(lambda gi, go: log.append(("post", len(gi), len(go))))
    y.grad_fn.metadata["tag"] = 1
    y.sum().backward(retain_graph=True)
    handle.remove()
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0, gi[1]))
    x.grad = w.grad = None
    y.sum().backward()
    graph = lib.autograd.graph
    return (log, y.grad_fn.metadata, type(handle).__name__, x.grad.numpy(), w.grad.numpy(),
            isinstance(y.grad_fn, graph.Node), isinstance(y.grad_fn.next_functions[0][0], graph.Node),
            y.grad_fn.next_functions[0][0].variable is x)


def test_grad_fn_hooks_and_metadata():
    want, got = _node_hooks(real), _node_hooks(vt)
    for g, w in zip(got, want):
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w, rtol=1e-6)
        else:
            assert g == w


def _multi_grad_hook(lib, mode):
    a, b = _leaf(lib, X), _leaf(lib, X + 1)
    seen = []
    lib.autograd.graph.register_multi_grad_hook(
        (a, b), lambda g: seen.append([None if t is None else t.numpy() for t in g] if mode == "all"
                                      else g.numpy()), mode=mode)
    (a * 3).sum().backward()
    (a * b).sum().backward()
    return seen


@pytest.mark.parametrize("mode", ["all", "any"])
def test_register_multi_grad_hook(mode):
    want, got = _multi_grad_hook(real, mode), _multi_grad_hook(vt, mode)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        for gi, wi in zip(g if mode == "all" else [g], w if mode == "all" else [w]):
            assert (gi is None) == (wi is None)
            if wi is not None:
                np.testing.assert_allclose(gi, wi, rtol=1e-6)


@LIBS
def test_increment_version(lib):
    x = lib.ones(3)
    before = x._version
    lib.autograd.graph.increment_version(x)
    assert x._version == before + 1


def _disk_offload(lib, tmp_path):
    """The tutorial's hooks that save each tensor to a self-deleting file: files alive after each step."""
    counts, names = [], iter(range(1000))

    class SelfDeletingTempFile:
        def __init__(self):
            self.name = str(tmp_path / f"{lib.__name__}_{next(names)}")

        def __del__(self):
            (tmp_path / self.name).unlink()

    def pack(t):
        f = SelfDeletingTempFile()
        lib.save(t, f.name)
        return f

    x = _leaf(lib, X)
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda f: lib.load(f.name)):
        y = x.pow(2) * x.exp()
    counts.append(len(list(tmp_path.glob(f"{lib.__name__}_*"))))
    y.sum().backward(retain_graph=True)
    counts.append(len(list(tmp_path.glob(f"{lib.__name__}_*"))))
    y.sum().backward()
    counts.append(len(list(tmp_path.glob(f"{lib.__name__}_*"))))
    return counts, x.grad.numpy()


def test_disk_offload_files_freed_with_graph(tmp_path):
    (want_counts, want_grad), (got_counts, got_grad) = _disk_offload(real, tmp_path), _disk_offload(vt, tmp_path)
    assert got_counts == want_counts
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-5, atol=1e-6)
