"""torch.utils._pytree, nn.utils.stateless/skip_init, func.linearize, jit.script_if_tracing, torch.mps/xpu against
torch 2.13."""

import warnings
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, real, vt

Pair = namedtuple("Pair", "a b")


def _pytree_results(torch):
    pytree = torch.utils._pytree
    tree = {"x": [1, (2, 3)], "y": None, "z": Pair(4, 5), "o": OrderedDict(k=6), "e": []}
    leaves, spec = pytree.tree_flatten(tree)
    rebuilt = pytree.tree_unflatten([v * 10 if v is not None else v for v in leaves], spec)
    with pytest.raises(ValueError) as info:
        pytree.tree_unflatten([1], spec)
    return (leaves, repr(spec), str(spec), rebuilt, spec.num_leaves, spec.num_nodes, repr(pytree.tree_structure(3)),
            pytree.tree_map(lambda v: v + 1, [1, {"a": 2}]), pytree.tree_map(lambda a, b: a * b, (1, 2), (3, 4)),
            pytree.tree_leaves([1, None, [2]]), pytree.tree_leaves([[1], 2], is_leaf=lambda v: v == [1]),
            pytree.tree_all(lambda v: v > 0, [1, 2]), pytree.tree_any(lambda v: v > 1, [1, 2]),
            pytree.tree_flatten([1, 2])[1] == pytree.tree_flatten([3, 4])[1],
            pytree.tree_flatten([1, 2])[1] == pytree.tree_flatten((3, 4))[1], str(info.value))


def test_pytree_flatten_unflatten_and_spec_repr():
    assert _pytree_results(real) == _pytree_results(vt)


def _registered_node(torch):
    pytree = torch.utils._pytree

    class Point:
        def __init__(self, x, y):
            self.x, self.y = x, y
    pytree.register_pytree_node(Point, lambda p: ([p.x, p.y], "ctx"), lambda children, ctx: Point(*children))
    with pytest.raises(ValueError, match="already registered"):
        pytree.register_pytree_node(Point, lambda p: ([], None), lambda c, ctx: None)
    leaves, spec = pytree.tree_flatten([Point(1, torch.ones(2))])
    moved = pytree.tree_map(lambda v: v * 2, [Point(1, 3)])
    return len(leaves), repr(spec).replace(Point.__qualname__, "Point"), moved[0].x, moved[0].y


def test_pytree_registered_node():
    assert _registered_node(real) == _registered_node(vt)


def _stateless(torch):
    torch.manual_seed(0)
    linear = torch.nn.Linear(2, 2)
    weight = torch.ones(2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = torch.nn.utils.stateless.functional_call(linear, {"weight": weight}, (torch.ones(1, 2),))
    messages = [(w.category, str(w.message)) for w in caught if w.category is FutureWarning]
    return out.detach().numpy(), messages


def test_stateless_functional_call_warns_as_torch():
    (want, want_warnings), (got, got_warnings) = (_stateless(lib) for lib in LIBS)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got_warnings == want_warnings and len(got_warnings) == 1


def _skip_init(torch):
    layer = torch.nn.utils.skip_init(torch.nn.Linear, 3, 4, bias=False)
    with pytest.raises(RuntimeError, match="must support a 'device' arg"):
        torch.nn.utils.skip_init(torch.nn.Sequential)
    return type(layer).__name__, tuple(layer.weight.shape), layer.bias


def test_skip_init():
    assert _skip_init(real) == _skip_init(vt)


def test_linearize_matches_torch():
    data = np.array([0.3, -1.2, 2.0], np.float32)
    tangent = np.array([1.0, 0.5, -2.0], np.float32)
    results = []
    for torch in LIBS:
        out, jvp_fn = torch.func.linearize(lambda x: (x.sin() * x).sum(0, keepdim=True), torch.tensor(data))
        results.append((out.numpy(), jvp_fn(torch.tensor(tangent)).numpy()))
    for want, got in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def _script_if_tracing(torch):
    def double(x):
        return x * 2
    wrapped = torch.jit.script_if_tracing(double)
    return wrapped is double, wrapped.__name__, wrapped(torch.ones(2)).tolist()


def test_script_if_tracing():
    assert _script_if_tracing(real) == _script_if_tracing(vt)


def _other_devices(torch):
    out = [torch.mps.is_available(), torch.mps.device_count(), torch.xpu.is_available(), torch.xpu.device_count(),
           torch.mps.manual_seed(0), torch.xpu.manual_seed(0), torch.xpu.is_initialized()]
    with pytest.raises(RuntimeError) as mps_error:
        torch.mps.synchronize()
    with pytest.raises(AssertionError) as xpu_error:
        torch.xpu.synchronize()
    return out, str(mps_error.value), str(xpu_error.value)


def test_mps_and_xpu_without_devices():
    assert _other_devices(real) == _other_devices(vt)
