"""torch.nn.utils.prune against real torch 2.13: the masks each method chooses (the random ones from the same
seed), iterative pruning through a PruningContainer, global pruning, the names registered, the forward pre-hook,
gradients through ``weight_orig``, remove and the errors."""

import numpy as np
import pytest

real = pytest.importorskip("torch")
import torch.nn.utils.prune  # noqa: E402,F401  (real torch does not import it with torch.nn.utils)
import vfw.torch as vt  # noqa: E402


def _net(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Conv2d(3, 6, 3), lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.Linear(24, 5))


SCHEMES = {
    "l1_fraction": lambda lib, P, net: P.l1_unstructured(net[0], "weight", amount=0.37),
    "l1_count_bias": lambda lib, P, net: P.l1_unstructured(net[3], "bias", amount=2),
    "l1_scores": lambda lib, P, net: P.l1_unstructured(net[3], "weight", 0.5,
                                                       importance_scores=lib.arange(120.0).view(5, 24) % 7),
    "random_unstructured": lambda lib, P, net: P.random_unstructured(net[0], "weight", amount=0.5),
    "random_structured": lambda lib, P, net: P.random_structured(net[0], "weight", amount=2, dim=0),
    "ln_structured_l2": lambda lib, P, net: P.ln_structured(net[0], "weight", amount=0.5, n=2, dim=0),
    "ln_structured_l1_dim1": lambda lib, P, net: P.ln_structured(net[3], "weight", amount=5, n=1, dim=1),
    "ln_structured_inf": lambda lib, P, net: P.ln_structured(net[0], "weight", amount=0.3, n=float("inf"), dim=-1),
    "custom": lambda lib, P, net: P.custom_from_mask(net[3], "bias", mask=lib.tensor([1.0, 0, 1, 0, 1])),
    "identity": lambda lib, P, net: P.identity(net[0], "bias"),
    "iterative_l1": lambda lib, P, net: [P.l1_unstructured(net[0], "weight", 0.3),
                                         P.l1_unstructured(net[0], "weight", 0.3)],
    "structured_then_l1": lambda lib, P, net: [P.ln_structured(net[0], "weight", 2, n=2, dim=0),
                                               P.l1_unstructured(net[0], "weight", 10)],
    "l1_then_structured": lambda lib, P, net: [P.l1_unstructured(net[0], "weight", 0.5),
                                               P.random_structured(net[0], "weight", 0.5, dim=1)],
    "global": lambda lib, P, net: P.global_unstructured([(net[0], "weight"), (net[3], "weight"), (net[3], "bias")],
                                                        pruning_method=P.L1Unstructured, amount=0.4),
    "global_after_local": lambda lib, P, net: [P.l1_unstructured(net[3], "weight", 0.5), P.global_unstructured(
        [(net[0], "weight"), (net[3], "weight")], pruning_method=P.RandomUnstructured, amount=30)],
}


def _run(lib, scheme):
    net = _net(lib)
    P = lib.nn.utils.prune
    lib.manual_seed(7)
    SCHEMES[scheme](lib, P, net)
    x = lib.randn(2, 3, 4, 4)
    loss = net(x).pow(2).sum()
    loss.backward()
    state = {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
    grads = {n: p.grad.numpy().copy() for n, p in net.named_parameters()}
    hooks = [type(h).__name__ for m in net for h in m._forward_pre_hooks.values()]
    masked = [net[0].weight.detach().numpy().copy(), net[3].weight.detach().numpy().copy()]
    pruned = P.is_pruned(net)
    for m in (net[0], net[3]):
        for name in ("weight", "bias"):
            if hasattr(m, name + "_mask"):
                P.remove(m, name)
    after = ([n for n, _ in net.named_parameters()], [n for n, _ in net.buffers()], P.is_pruned(net),
             net(x).detach().numpy())
    return state, grads, hooks, masked, pruned, after


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_pruning_matches_torch(scheme):
    want, got = _run(real, scheme), _run(vt, scheme)
    assert list(got[0]) == list(want[0])  # state_dict names: weight_orig, weight_mask...
    for k in want[0]:
        np.testing.assert_allclose(got[0][k], want[0][k], rtol=1e-6, atol=1e-7, err_msg=k)
    assert list(got[1]) == list(want[1])
    for k in want[1]:
        np.testing.assert_allclose(got[1][k], want[1][k], rtol=1e-5, atol=1e-6, err_msg=k)
    assert got[2] == want[2] and got[4] == want[4]
    for g, w in zip(got[3], want[3]):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)
    assert got[5][:3] == want[5][:3]
    np.testing.assert_allclose(got[5][3], want[5][3], rtol=1e-5, atol=1e-6)


def test_method_objects_and_prune():
    pruned = [lib.nn.utils.prune.L1Unstructured(amount=0.25).prune(lib.arange(12.0).view(3, 4) * 0.5 - 2.75).tolist()
              for lib in (real, vt)]
    assert pruned[1] == pruned[0]
    for lib in (real, vt):
        P = lib.nn.utils.prune
        layer = lib.nn.Linear(4, 3)
        P.l1_unstructured(layer, "weight", 0.5)
        P.random_unstructured(layer, "weight", 1)
        container = next(iter(layer._forward_pre_hooks.values()))
        assert type(container).__name__ == "PruningContainer" and len(container) == 2
        assert [type(m).__name__ for m in container] == ["L1Unstructured", "RandomUnstructured"]
        assert isinstance(container[0], P.BasePruningMethod)


ERRORS = {
    "negative_amount": (ValueError, lambda lib, P, m: P.l1_unstructured(m, "weight", -1)),
    "fraction_above_one": (ValueError, lambda lib, P, m: P.l1_unstructured(m, "weight", 1.5)),
    "amount_type": (TypeError, lambda lib, P, m: P.l1_unstructured(m, "weight", "half")),
    "too_many": (ValueError, lambda lib, P, m: P.l1_unstructured(m, "bias", 5)),
    "structured_1d": (ValueError, lambda lib, P, m: P.ln_structured(m, "bias", 1, n=2, dim=0)),
    "remove_unpruned": (ValueError, lambda lib, P, m: P.remove(m, "weight")),
    "global_structured": (TypeError, lambda lib, P, m: P.global_unstructured([(m, "weight")], P.LnStructured,
                                                                             amount=1, n=2, dim=0)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    kind, fn = ERRORS[case]
    messages = []
    for lib in (real, vt):
        layer = lib.nn.Linear(4, 3)
        with pytest.raises(kind) as info:
            fn(lib, lib.nn.utils.prune, layer)
        messages.append(str(info.value).replace("torch.", ""))
        # a failed pruning leaves the module as it was
        assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    if case not in ("structured_1d", "remove_unpruned", "global_structured"):  # these name torch's own classes
        assert messages[0] == messages[1]
