"""torch.vmap / torch.func transforms and functional_call against real torch 2.13."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt

A, B, C = arrays((3, 4), (4, 3), (3,), seed=7)

VMAP_CASES = [
    ("sum", lambda t, a, b, c: t.vmap(t.sum)(a)),
    ("in_dim_1", lambda t, a, b, c: t.vmap(t.sum, in_dims=1)(a)),
    ("negative_in_dim", lambda t, a, b, c: t.vmap(t.sum, in_dims=-1)(a)),
    ("two_dims", lambda t, a, b, c: t.vmap(t.add, in_dims=(0, 1))(a, b)),
    ("unbatched_arg", lambda t, a, b, c: t.vmap(t.mul, in_dims=(0, None))(a, c[0])),
    ("scalar_arg", lambda t, a, b, c: t.vmap(t.add, in_dims=(0, None))(a, 2.5)),
    ("matvec", lambda t, a, b, c: t.vmap(t.mv, in_dims=(None, 0))(b, a[:, :3])),
    ("out_dim_1", lambda t, a, b, c: t.vmap(lambda x: x * 2, out_dims=1)(a)),
    ("tuple_out", lambda t, a, b, c: t.vmap(lambda x: (x.sin(), x.sum()), out_dims=(1, 0))(a)),
    ("unbatched_out", lambda t, a, b, c: t.vmap(lambda x, y: (x + y, y * 2), in_dims=(0, None),
                                                out_dims=(0, None))(a, c[:1].expand(4))),
    ("dict_in_and_out", lambda t, a, b, c: t.vmap(lambda d: {"s": d["x"] * d["y"]}, in_dims=({"x": 0, "y": None},))(
        {"x": a, "y": c[:1].expand(4)})),
    ("nested", lambda t, a, b, c: t.vmap(t.vmap(t.dot, in_dims=(0, None)), in_dims=(None, 1))(a, b)),
    ("per_sample_linear", lambda t, a, b, c: t.vmap(t.nn.functional.linear, in_dims=(0, None, None))(
        a[:, :3], b, c[:4] if c.shape[0] >= 4 else t.cat([c, c[:1]]))),
    ("kwargs_shared", lambda t, a, b, c: t.vmap(lambda x, dim: x.softmax(dim))(a, dim=0)),
    ("same_randomness", lambda t, a, b, c: _same(t, a)),
    ("size_mismatch", lambda t, a, b, c: t.vmap(t.add)(a, b)),
    ("tensor_in_dim_for_float", lambda t, a, b, c: t.vmap(t.add, in_dims=(0, 0))(a, 1.0)),
    ("in_dim_out_of_range", lambda t, a, b, c: t.vmap(t.sum, in_dims=2)(a)),
    ("in_dims_none", lambda t, a, b, c: t.vmap(t.sum, in_dims=None)(a)),
    ("in_dims_too_long", lambda t, a, b, c: t.vmap(t.sum, in_dims=(0, 0))(a)),
    ("in_dims_float", lambda t, a, b, c: t.vmap(t.sum, in_dims=1.0)(a)),
    ("scalar_input", lambda t, a, b, c: t.vmap(t.sum)(a[0, 0])),
    ("float_output", lambda t, a, b, c: t.vmap(lambda x: 1.0)(a)),
    ("batched_out_dim_none", lambda t, a, b, c: t.vmap(lambda x: (x, x.sum()), out_dims=(0, None))(a)),
    ("out_dim_out_of_range", lambda t, a, b, c: t.vmap(lambda x: x, out_dims=2)(a)),
    ("bad_randomness", lambda t, a, b, c: t.vmap(t.sum, randomness="foo")(a)),
    ("random_in_error_mode", lambda t, a, b, c: t.vmap(lambda x: x + t.rand(()))(a)),
    ("no_inputs", lambda t, a, b, c: t.vmap(t.sum)()),
    ("chunk_size_zero", lambda t, a, b, c: t.vmap(t.sum, chunk_size=0)(a)),
    ("func_namespace", lambda t, a, b, c: t.func.vmap(t.outer)(a, a)),
]


def _same(torch, a):
    torch.manual_seed(0)
    out = torch.vmap(lambda x: x * 0 + torch.rand(()), randomness="same")(a)
    return out[0] == out[1], out.std(0)


@pytest.mark.parametrize("name,fn", VMAP_CASES, ids=[c[0] for c in VMAP_CASES])
def test_vmap(name, fn):
    check(fn, A, B, C)


def test_vmap_gradients():
    check_grad(lambda t, a, b: t.vmap(lambda x, y: (x * y).sum().sin(), in_dims=(0, 1))(a, b), A, B)
    check_grad(lambda t, a, b: t.vmap(t.vmap(t.mul, in_dims=(0, None)), in_dims=(None, 1))(a, b), A, B)


def test_vmap_different_randomness_draws_per_sample():
    vt.manual_seed(0)
    out = vt.vmap(lambda x: x * 0 + vt.rand(()), randomness="different")(vt.ones(5))
    assert len(set(out.tolist())) == 5


def _f(t, x, y):
    return (x.sin() * y).sum() + (x ** 3).sum()


GRAD_CASES = [
    ("grad", lambda t, a, b: t.func.grad(lambda x: (x.sin() ** 2).sum())(a)),
    ("argnums_tuple", lambda t, a, b: t.func.grad(lambda x, y: _f(t, x, y), argnums=(0, 1))(a, b.T)),
    ("argnums_1", lambda t, a, b: t.func.grad(lambda x, y: _f(t, x, y), argnums=1)(a, b.T)),
    ("negative_argnum", lambda t, a, b: t.func.grad(lambda x, y: _f(t, x, y), argnums=-1)(a, b.T)),
    ("unused_input", lambda t, a, b: t.func.grad(lambda x, y: y.sum(), argnums=(0, 1))(a, b.T)),
    ("has_aux", lambda t, a, b: t.func.grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(a)),
    ("dict_arg", lambda t, a, b: t.func.grad(lambda d: (d["w"] * d["v"]).sum())({"w": a, "v": b.T})),
    ("grad_and_value", lambda t, a, b: t.func.grad_and_value(lambda x: (x.exp()).sum())(a)),
    ("grad_of_grad", lambda t, a, b: t.func.grad(lambda x: t.func.grad(lambda y: (y ** 3).sum())(x).sum())(a)),
    ("vmap_of_grad", lambda t, a, b: t.vmap(t.func.grad(lambda x: (x.tanh() ** 2).sum()))(a)),
    ("jacrev", lambda t, a, b: t.func.jacrev(lambda x: x.sin() * x.sum())(a[0])),
    ("jacrev_matrix", lambda t, a, b: t.func.jacrev(lambda x: x @ x.T)(a[:2, :2])),
    ("jacrev_tuple_out", lambda t, a, b: t.func.jacrev(lambda x: (x.exp(), x.sum()))(a[0])),
    ("jacrev_argnums", lambda t, a, b: t.func.jacrev(lambda x, y: x * y, argnums=(0, 1))(a[0], b[:, 0])),
    ("jacfwd", lambda t, a, b: t.func.jacfwd(lambda x: x.cos() * x[0])(a[1])),
    ("jacfwd_has_aux", lambda t, a, b: t.func.jacfwd(lambda x: (x ** 2, x.sum()), has_aux=True)(a[1])),
    ("hessian", lambda t, a, b: t.func.hessian(lambda x: (x ** 3).sum() * x[0])(a[2])),
    ("vjp", lambda t, a, b: _vjp(t, a, b)),
    ("jvp", lambda t, a, b: t.func.jvp(lambda x, y: x.sin() * y, (a, b.T), (t.ones_like(a), b.T * 0 + 2))),
    ("not_scalar", lambda t, a, b: t.func.grad(lambda x: x)(a)),
    ("not_tensor", lambda t, a, b: t.func.grad(lambda x: 1.0)(a)),
    ("bad_argnum", lambda t, a, b: t.func.grad(lambda x, y: x.sum(), argnums=2)(a, b)),
    ("float_input", lambda t, a, b: t.func.grad(lambda x: x)(3.0)),
    ("jvp_primals_list", lambda t, a, b: t.func.jvp(t.sin, [a], [a])),
]


def _vjp(torch, a, b):
    out, vjp_fn = torch.func.vjp(lambda x, y: (x * y).sin(), a, b.T)
    return out, vjp_fn(torch.ones_like(out)), vjp_fn(out)


@pytest.mark.parametrize("name,fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradient_transforms(name, fn):
    check(fn, A, B, rtol=1e-5, atol=1e-5)


def test_gradient_transforms_compose_with_autograd():
    check_grad(lambda t, a: t.func.grad(lambda x: (x.sin() ** 2).sum())(a), A)
    check_grad(lambda t, a: t.func.jacrev(lambda x: x.exp() * x.sum())(a[0]), A)


def _net(torch):
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2), torch.nn.BatchNorm1d(2))
    with torch.no_grad():
        for k, p in enumerate(net.parameters()):
            p.copy_(torch.tensor(arrays(tuple(p.shape), seed=k)))
    return net


def test_functional_call_meta_learning_step():
    results = []
    for torch in (real, vt):
        net = _net(torch)
        x, y = torch.tensor(A[:, :3]), torch.tensor(B[:3, :2])
        params = dict(net.named_parameters())
        loss = torch.nn.functional.mse_loss(torch.func.functional_call(net, params, (x,)), y)
        grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
        fast = {name: p - 0.1 * g for (name, p), g in zip(params.items(), grads)}
        outer = torch.nn.functional.mse_loss(torch.func.functional_call(net, fast, x), y)
        outer.backward()
        running = net[3].running_mean.clone()
        buffers = {"3.running_mean": torch.zeros(2), "3.running_var": torch.ones(2)}
        net.eval()
        swapped = torch.func.functional_call(net, (dict(net.named_parameters()), buffers), (x,))
        results.append([outer.detach().numpy(), [p.grad.numpy() for p in net.parameters()], running.numpy(),
                        net[3].running_mean.numpy(), swapped.detach().numpy(), net[0].weight.detach().numpy()])
    for want, got in zip(*results):
        for w, g in zip(want if isinstance(want, list) else [want], got if isinstance(got, list) else [got]):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["strict_missing", "strict_unexpected", "repeated", "tied", "grad"])
def test_functional_call_options(case):
    def run(torch, a):
        torch.manual_seed(0)
        net = torch.nn.Linear(3, 3, bias=False)
        if case == "tied":
            outer = torch.nn.Sequential(net, net)
            return torch.func.functional_call(outer, {"0.weight": torch.eye(3) * 2}, a)
        if case == "grad":
            weight = torch.ones(3, 3)
            return torch.func.grad(lambda w: torch.func.functional_call(net, {"weight": w}, (a,)).pow(2).sum())(
                weight)
        tensors = {"strict_missing": {}, "strict_unexpected": {"weight": torch.ones(3, 3), "bias": torch.ones(3)},
                   "repeated": ({"weight": torch.ones(3, 3)}, {"weight": torch.ones(3, 3)})}[case]
        return torch.func.functional_call(net, tensors, (a,), strict=case != "repeated")

    check(run, A[:, :3])
