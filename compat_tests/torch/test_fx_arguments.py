"""torch.fx.symbolic_trace with ``concrete_args`` and with ``*args`` forwards, against real torch 2.13:
printed graph, generated code, placeholders, and running the GraphModule (specialization checks included)."""

import warnings

import numpy as np
import pytest
import vfw.torch as vtorch

torch = pytest.importorskip("torch")


def _functions(T):
    """The traced functions and modules written against torch module ``T``: ``{name: (root, concrete_args)}``."""
    def flagged(flag, x, n=3, s="a"):
        return x * n if flag else x - 1

    def optional(x, y=None):
        return x if y is None else x + y

    def scaled(x, scale=2.0):
        return x * scale

    class Cat(T.nn.Module):
        def forward(self, *xs):
            return T.cat(xs, 0)

    class FirstPlusRest(T.nn.Module):
        def forward(self, x, *rest):
            return x + rest[0] * rest[1]

    def varargs(x, *args):
        return T.relu(x + args[0])

    return {
        "bool_and_int": (flagged, {"flag": True, "n": 2}),
        "false_branch": (flagged, {"flag": False}),
        "none": (optional, {"y": None}),
        "float": (scaled, {"scale": 3.0}),
        "tensor_value": (scaled, {"scale": T.ones(2) * 4}),
        "module_varargs": (Cat(), None),
        "module_mixed_varargs": (FirstPlusRest(), None),
        "function_varargs": (varargs, None),
    }


def _traced(T, name):
    root, concrete = _functions(T)[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a tensor value's "Was not able to add assertion" warning
        return T.fx.symbolic_trace(root, concrete_args=concrete)


@pytest.mark.parametrize("name", sorted(_functions(torch)))
def test_graph_and_code(name):
    real_gm, our_gm = _traced(torch, name), _traced(vtorch, name)
    assert str(our_gm.graph) == str(real_gm.graph)
    assert our_gm.code == real_gm.code
    assert [(n.op, n.name, n.target if n.op == "placeholder" else None, len(n.users)) for n in our_gm.graph.nodes] \
        == [(n.op, n.name, n.target if n.op == "placeholder" else None, len(n.users)) for n in real_gm.graph.nodes]


CALLS = {  # name -> argument lists (numpy arrays become tensors; other values pass as they are)
    "bool_and_int": [(True, "x", 2), (False, "x", 2), (True, "x", 5)],
    "false_branch": [(False, "x"), (True, "x")],
    "none": [("x",), ("x", None), ("x", "x")],
    "float": [("x", 3.0), ("x", 1.0)],
    "module_varargs": [("x", "x", "x"), ("x",)],
    "module_mixed_varargs": [("x", "x", "x")],
    "function_varargs": [("x", "x")],
}


def _run(T, name, args):
    x = T.tensor(np.array([1.5, -2.0], np.float32))
    try:
        out = _traced(T, name)(*[x if a == "x" else a for a in args])
    except Exception as e:  # noqa: BLE001  (type and message compared)
        return type(e).__name__, str(e)
    return out.detach().numpy().tolist()


@pytest.mark.parametrize("name, args", [(n, a) for n, calls in CALLS.items() for a in calls])
def test_running_the_traced_module(name, args):
    assert _run(vtorch, name, args) == _run(torch, name, args)


def test_tensor_value_warns_that_no_check_is_added():
    for T in (torch, vtorch):
        with pytest.warns(UserWarning, match="Was not able to add assertion to guarantee correct input scale"):
            T.fx.symbolic_trace(_functions(T)["tensor_value"][0], concrete_args={"scale": T.ones(2)})


def test_torch_assert():
    for T in (torch, vtorch):
        T._assert(True, "fine")
        with pytest.raises(AssertionError, match="^broken$"):
            T._assert(False, "broken")
