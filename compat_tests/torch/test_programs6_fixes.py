"""vfw.torch against real torch for what the round-7 programs (compat_tests/programs/torch_more6) found broken:
torch.nn.utils.fusion (conv/linear + batch-norm folding), an Embedding(sparse=True) looked up twice in one graph
(its two sparse gradients are summed by autograd), optimizers stepping complex parameters (torch updates them as
view_as_real pairs), and Gamma / Beta / Dirichlet draws (torch's rejection sampler replayed: the same numbers from
the same seed)."""

import pytest

from compat_tests.torch.harness import arrays, check, real, vt

# -- torch.nn.utils.fusion ---------------------------------------------------------------


def _trained_bn(torch, bn, channels_shape):
    """``bn`` after two training batches (running statistics away from 0 and 1), then in eval mode."""
    torch.manual_seed(0)
    for _ in range(2):
        bn(torch.randn(*channels_shape) * 3 + 1)
    with torch.no_grad():
        if bn.weight is not None:
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-1, 1)
    return bn.eval()


@pytest.mark.parametrize("conv_kind, bias, affine", [("Conv2d", True, True), ("Conv2d", False, True),
                                                     ("Conv1d", True, False), ("ConvTranspose2d", False, True)])
def test_fuse_conv_bn_eval_matches_torch(conv_kind, bias, affine):
    def run(torch):
        torch.manual_seed(1)
        conv = getattr(torch.nn, conv_kind)(3, 4, 3, bias=bias).eval()
        dims = 1 if conv_kind == "Conv1d" else 2
        bn_cls = torch.nn.BatchNorm1d if dims == 1 else torch.nn.BatchNorm2d
        bn = _trained_bn(torch, bn_cls(4, affine=affine), (5, 4) + (6,) * dims)
        fused = torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bn, transpose=conv_kind.startswith("ConvTranspose"))
        x = torch.randn((2, 3) + (7,) * dims)
        with torch.no_grad():
            reference = bn(conv(x))
            out = fused(x)
        return [out, reference, fused.weight, fused.bias, fused.weight.requires_grad, fused.bias.requires_grad,
                conv.bias is None, type(fused.weight).__name__]

    check(run, rtol=1e-5, atol=1e-5)


def test_fuse_linear_bn_eval_and_weights_match_torch():
    def run(torch):
        torch.manual_seed(2)
        linear = torch.nn.Linear(5, 4).eval()
        bn = _trained_bn(torch, torch.nn.BatchNorm1d(4), (8, 4))
        fused = torch.nn.utils.fuse_linear_bn_eval(linear, bn)
        x = torch.randn(3, 5)
        w, b = torch.nn.utils.fuse_conv_bn_weights(linear.weight.view(4, 5, 1), None, bn.running_mean,
                                                   bn.running_var, bn.eps, None, None)
        return [fused(x), bn(linear(x)), w, b, b.requires_grad]

    check(run, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", ["conv_training", "linear_training", "linear_mismatch"])
def test_fusion_refuses_like_torch(case):
    def run(torch):
        fusion = torch.nn.utils.fusion
        if case == "conv_training":
            return fusion.fuse_conv_bn_eval(torch.nn.Conv2d(2, 3, 1), torch.nn.BatchNorm2d(3).eval())
        if case == "linear_training":
            return fusion.fuse_linear_bn_eval(torch.nn.Linear(2, 3).eval(), torch.nn.BatchNorm1d(3))
        return fusion.fuse_linear_bn_eval(torch.nn.Linear(2, 3).eval(), torch.nn.BatchNorm1d(4).eval())

    check(run)
    with pytest.raises(AssertionError) as want:
        run(real)
    with pytest.raises(AssertionError) as got:
        run(vt)
    assert str(got.value) == str(want.value)


# -- sparse embedding gradients summed by autograd ------------------------------------------

def test_sparse_embedding_used_twice_sums_sparse_gradients():
    def run(torch, weight):
        emb = torch.nn.Embedding(6, 3, sparse=True)
        with torch.no_grad():
            emb.weight.copy_(weight)
        a = emb(torch.tensor([[0, 2], [2, 5]]))
        b = emb(torch.tensor([1, 2, 2]))
        (a.sum(1) * b[:2]).sum().backward()
        grad = emb.weight.grad
        coalesced = grad.coalesce()
        return [grad.is_sparse, str(grad.layout), grad._nnz(), grad.is_coalesced(), grad.to_dense(),
                coalesced.indices(), coalesced.values()]

    check(run, arrays((6, 3), seed=4))


@pytest.mark.parametrize("case", ["uncoalesced", "one_coalesced", "expanded_values", "alpha"])
def test_sparse_add_orders_entries_like_torch(case):
    def run(torch, values):
        first = torch.sparse_coo_tensor(torch.tensor([[2, 0, 2]]), values[:3], (6, 3))
        second_values = values[3:].sum(1, keepdim=True).expand(3, 3) if case == "expanded_values" else values[3:]
        second = torch.sparse_coo_tensor(torch.tensor([[1, 2, 3]]), second_values, (6, 3))
        if case == "one_coalesced":
            first = first.coalesce()
        total = first.add(second, alpha=2.5) if case == "alpha" else first + second
        return [total._indices(), total._values(), total.is_coalesced()]

    check(run, arrays((6, 3), seed=5))


# -- complex parameters -----------------------------------------------------------------

@pytest.mark.parametrize("name, kwargs", [
    ("Adam", dict(lr=0.1, weight_decay=0.01)), ("Adam", dict(lr=0.1, amsgrad=True)), ("AdamW", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)), ("RMSprop", dict(lr=0.01, centered=True)),
    ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.5)), ("NAdam", dict(lr=0.1)), ("RAdam", dict(lr=0.1)),
    ("Adamax", dict(lr=0.1)),
    ("Adadelta", dict(lr=1.0)), ("ASGD", dict(lr=0.1)), ("Rprop", dict(lr=0.1))])
def test_optimizers_step_complex_parameters_like_torch(name, kwargs):
    def run(torch, re, im, target):
        w = torch.nn.Parameter(torch.complex(re, im))
        opt = getattr(torch.optim, name)([w], **kwargs)
        for _ in range(4):
            loss = (w * w.conj()).real.sum() + (w.real * target).sum() - (w.imag * target).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        state = opt.state[w]
        return [torch.view_as_real(w.detach()), str(w.dtype)] + [
            torch.view_as_real(v) if torch.is_tensor(v) and v.is_complex() else v
            for k, v in sorted(state.items()) if k != "step"]

    re, im, target = arrays((3, 2), (3, 2), (3, 2), seed=6)
    check(run, re, im, target, rtol=1e-5, atol=1e-6)


# -- gamma-family draws -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_beta_dirichlet_draws_are_torchs(dtype):
    def run(torch):
        d = getattr(torch, dtype)
        torch.manual_seed(5)
        conc = torch.tensor([0.3, 1.0, 2.5, 7.0, 0.05], dtype=d)
        gamma = torch.distributions.Gamma(conc, torch.tensor(2.0, dtype=d)).sample((3,))
        small = torch.randn(3, dtype=d)  # scalar Box-Muller: shares the generator's cached normal with the sampler
        beta = torch.distributions.Beta(torch.tensor([0.5, 2.0], dtype=d), torch.tensor([1.0, 0.2], dtype=d))
        dirichlet = torch.distributions.Dirichlet(torch.tensor([[0.1, 1.0, 4.0], [2.0, 2.0, 2.0]], dtype=d))
        student = torch.distributions.StudentT(torch.tensor(3.0, dtype=d)).sample((4,))
        chi2 = torch.distributions.Chi2(torch.tensor([1.0, 5.0], dtype=d)).sample((2,))
        return [gamma, small, beta.sample((4,)), dirichlet.sample((2,)), student, chi2, torch.rand(2, dtype=d)]

    check(run, rtol=1e-6, atol=0)


def test_dirichlet_rsample_still_differentiable():
    def run(torch, c):
        torch.manual_seed(8)
        x = torch.distributions.Dirichlet(c).rsample((5,))
        x[:, 0].sum().backward()
        return [x, c.grad.isfinite().all(), c.grad.shape]

    check(run, arrays((3,), seed=2, low=0.5, high=3.0))
