"""torch.export.export on forwards whose Python control flow reads tensor data, against real torch 2.13: torch
raises GuardOnDataDependentSymNode (a RuntimeError) instead of specialising on the example input."""

import pytest
import vfw.torch as vtorch

torch = pytest.importorskip("torch")


def _models(T):
    class Branch(T.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x + 1
            return x - 1

    class ParameterBranch(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = T.nn.Parameter(T.ones(3))

        def forward(self, x):
            return x * self.w if self.w.sum() > 0 else x

    class IntSlice(T.nn.Module):
        def forward(self, x):
            return x[: int(x.sum())]

    class ShapeBranch(T.nn.Module):  # shapes are static: fine
        def forward(self, x):
            return x + 1 if x.shape[0] > 2 else x - 1

    class ItemArithmetic(T.nn.Module):  # .item() flowing into arithmetic: torch exports it
        def forward(self, x):
            return x + x.sum().item()

    return {"branch": Branch, "parameter_branch": ParameterBranch, "int_slice": IntSlice,
            "shape_branch": ShapeBranch, "item_arithmetic": ItemArithmetic}


def _outcome(T, name):
    try:
        T.export.export(_models(T)[name](), (T.ones(3),))
    except Exception as e:  # noqa: BLE001  (the class and the message head are compared)
        return type(e).__name__, type(e).__module__, isinstance(e, RuntimeError), str(e).split(" ")[:6]
    return "exported"


@pytest.mark.parametrize("name", sorted(_models(torch)))
def test_data_dependent_control_flow(name):
    assert _outcome(vtorch, name) == _outcome(torch, name)


def test_eager_conversions_unaffected_after_a_refused_export():
    with pytest.raises(RuntimeError, match="Could not guard on data-dependent expression"):
        vtorch.export.export(_models(vtorch)["branch"](), (vtorch.ones(3),))
    x = vtorch.ones(3)
    assert bool(x.sum() > 0) and int(x.sum()) == 3
