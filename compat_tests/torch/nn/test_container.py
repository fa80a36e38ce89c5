"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict against real torch."""

from collections import OrderedDict

import numpy as np
import pytest

from compat_tests.torch.harness import check
from compat_tests.torch.nn.harness import check_module, check_repr


def _layers(lib, n=4):
    return [lib.nn.Linear(2, 2) for _ in range(n)]


def _keys(m):
    return [name for name, _ in m.named_children()]


def test_sequential_forward_and_ordered_dict():
    x = np.random.default_rng(0).standard_normal((3, 2)).astype(np.float32)
    check_module(lambda lib: lib.nn.Sequential(*_layers(lib)), x)
    check_module(lambda lib: lib.nn.Sequential(OrderedDict([("first", lib.nn.Linear(2, 3)),
                                                             ("second", lib.nn.Linear(3, 1))])), x)
    check_repr(lambda lib: lib.nn.Sequential(OrderedDict([("first", lib.nn.Linear(2, 3)),
                                                           ("inner", lib.nn.Sequential(lib.nn.Linear(3, 1)))])))


def test_sequential_list_operations():
    def case(lib):
        s = lib.nn.Sequential(*_layers(lib))
        first = s[0]
        out = [len(s), s[-1] is list(s)[-1], type(s[1:3]).__name__, _keys(s[1:3]), s[1:3][0] is s[1]]
        s.append(lib.nn.Identity())
        s.insert(1, lib.nn.Identity())
        s.insert(-1, lib.nn.Identity())
        out.append(_keys(s))
        del s[2]
        out.append(_keys(s))
        del s[1:3]
        out.append(_keys(s))
        popped = s.pop(0)
        out.append((popped is first, _keys(s)))
        s[0] = lib.nn.Identity()
        s.extend([lib.nn.Identity()])
        s2 = s + lib.nn.Sequential(lib.nn.Identity())
        s3 = s * 2
        s += lib.nn.Sequential(lib.nn.Identity())
        out.append((_keys(s), _keys(s2), _keys(s3), [type(m).__name__ for m in s]))
        return out
    check(case)


@pytest.mark.parametrize("action", [
    lambda lib, s: s[10],
    lambda lib, s: s[-10],
    lambda lib, s: s["a"],
    lambda lib, s: s + 3,
    lambda lib, s: s * 0,
    lambda lib, s: s * 1.5,
    lambda lib, s: s.append(3),
    lambda lib, s: s.insert(10, lib.nn.Identity()),
    lambda lib, s: s.insert(0, 3),
])
def test_sequential_errors(action):
    check(lambda lib: action(lib, lib.nn.Sequential(*_layers(lib, 2))))


def test_module_list():
    def case(lib):
        ml = lib.nn.ModuleList(_layers(lib, 3))
        ml.append(lib.nn.Identity())
        ml.extend([lib.nn.Identity()])
        ml.insert(0, lib.nn.Identity())
        ml += [lib.nn.Identity()]
        both = ml + lib.nn.ModuleList([lib.nn.Identity()])
        sl = ml[1:3]
        del ml[0]
        popped = ml.pop(-1)
        ml[0] = lib.nn.Identity()
        return (len(ml), _keys(ml), [type(m).__name__ for m in ml], type(sl).__name__, _keys(both),
                type(popped).__name__, len(list(ml.parameters())), repr(ml))
    check(case)
    check(lambda lib: lib.nn.ModuleList(_layers(lib, 2))[5])
    check(lambda lib: lib.nn.ModuleList(3))
    check(lambda lib: lib.nn.ModuleList(_layers(lib, 2)).extend(3))


def test_module_dict():
    def case(lib):
        md = lib.nn.ModuleDict({"b": lib.nn.Linear(1, 1), "a": lib.nn.Identity()})
        md["c"] = lib.nn.Linear(2, 2)
        md.update([("d", lib.nn.Identity())])
        md.update(OrderedDict([("e", lib.nn.Identity())]))
        keys = list(md.keys())
        popped = md.pop("a")
        del md["b"]
        out = (keys, list(md), "c" in md, "a" in md, len(md), type(popped).__name__,
               [type(v).__name__ for v in md.values()], [k for k, _ in md.items()], repr(md))
        md.clear()
        return out, len(md)
    check(case)
    check(lambda lib: lib.nn.ModuleDict({"x": 3}))
    check(lambda lib: lib.nn.ModuleDict().update(3))
    check(lambda lib: lib.nn.ModuleDict().update([("a", lib.nn.Identity(), 1)]))
    check(lambda lib: lib.nn.ModuleDict().update([3]))
    check(lambda lib: lib.nn.ModuleDict()["missing"])


def test_parameter_list():
    def case(lib):
        pl = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2)), lib.zeros(3, 2)])
        pl.append(lib.ones(1, dtype=lib.float64))
        pl.extend([lib.nn.Parameter(lib.ones(4), requires_grad=False)])
        pl[0] = lib.full((2,), 3.0)
        types = [type(p).__name__ for p in pl]
        names = [n for n, _ in pl.named_parameters()]
        return (len(pl), types, names, pl[-1].requires_grad, [p.tolist() for p in pl], repr(pl),
                type(pl[1:]).__name__, len(pl[1:]))
    check(case)
    check(lambda lib: lib.nn.ParameterList([lib.ones(1)])(lib.ones(1)))
    check(lambda lib: lib.nn.ParameterList([lib.ones(1)])[3])


def test_parameter_dict():
    def case(lib):
        pd = lib.nn.ParameterDict({"b": lib.nn.Parameter(lib.ones(2)), "a": lib.zeros(1)})
        pd["c"] = lib.ones(3)
        pd.update([("d", lib.ones(1))])
        got = pd.get("zz", None), pd.setdefault("e", lib.zeros(2)).tolist()
        keys = list(pd.keys())
        popped = pd.pop("a")
        names = [n for n, _ in pd.named_parameters()]
        merged = pd | lib.nn.ParameterDict({"x": lib.ones(1)})
        out = (keys, names, got, type(popped).__name__, "b" in pd, len(pd), list(reversed(pd)), repr(pd),
               list(merged.keys()), [type(v).__name__ for v in pd.values()], list(pd.copy().keys()))
        k, v = pd.popitem()
        pd.clear()
        return out, k, len(pd)
    check(case)
    check(lambda lib: lib.nn.ParameterDict({"a": lib.ones(1)})["missing"])
    check(lambda lib: lib.nn.ParameterDict({"a": lib.ones(1)})(lib.ones(1)))


def test_containers_in_state_dict():
    def case(lib):
        class Model(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = lib.nn.ModuleList([lib.nn.Linear(2, 2) for _ in range(2)])
                self.heads = lib.nn.ModuleDict({"y": lib.nn.Linear(2, 1)})
                self.extra = lib.nn.ParameterList([lib.ones(2)])
                self.table = lib.nn.ParameterDict({"t": lib.zeros(3)})

        m = Model()
        return list(m.state_dict()), [n for n, _ in m.named_parameters()], repr(m)
    check(case)
