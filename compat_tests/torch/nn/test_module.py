"""nn.Module and nn.Parameter against real torch: registration, traversal, modes, state_dict, hooks, repr."""

import copy
import pickle
import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import assert_same, check, real, to_numpy, vt
from compat_tests.torch.nn.harness import LIBS, check_module, check_repr


def _net(lib):
    """A small model with nested modules, a shared module, buffers (persistent or not) and a None parameter."""

    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(3, 3)
            self.register_buffer("count", lib.zeros(1))
            self.register_buffer("scratch", lib.ones(2), persistent=False)
            self.register_parameter("unused", None)
            self.scale = 2.0

        def forward(self, x):
            return self.fc(x) * self.scale

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block()
            self.b = Block()
            self.shared = self.a.fc
            self.head = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Identity())

        def forward(self, x):
            return self.head(self.b(self.a(x)))

    return Net()


def _names(it):
    return [name for name, _ in it]


def test_traversal_names_and_order():
    for fn in (lambda m: _names(m.named_parameters()), lambda m: _names(m.named_buffers()),
               lambda m: _names(m.named_modules()), lambda m: _names(m.named_children()),
               lambda m: _names(m.named_parameters(prefix="p", recurse=False)),
               lambda m: _names(m.named_parameters(remove_duplicate=False)),
               lambda m: _names(m.named_modules(remove_duplicate=False)),
               lambda m: len(list(m.parameters())), lambda m: len(list(m.modules())),
               lambda m: list(m.state_dict()), lambda m: dict(m.state_dict()._metadata),
               lambda m: list(m.state_dict(prefix="x.", keep_vars=True)),
               lambda m: type(m.state_dict(keep_vars=True)["a.fc.weight"]).__name__,
               lambda m: type(m.state_dict()["a.fc.weight"]).__name__):
        want, got = fn(_net(real)), fn(_net(vt))
        assert got == want


def test_forward_and_gradients_of_nested_model():
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    check_module(_net, x)


def test_repr_nested_and_module_list_runs():
    check_repr(_net)
    check_repr(lambda lib: lib.nn.ModuleList([lib.nn.Linear(2, 2) for _ in range(3)] + [lib.nn.Identity()]))
    check_repr(lambda lib: lib.nn.ModuleList())
    check_repr(lambda lib: lib.nn.Module())
    check_repr(lambda lib: lib.nn.Sequential())


def test_parameter_behaviour():
    def case(lib):
        p = lib.nn.Parameter(lib.ones(2, 3))
        q = lib.nn.Parameter(lib.ones(2), requires_grad=False)
        e = lib.nn.Parameter()
        y = p * 2
        return (repr(p), repr(q), repr(e), type(y).__name__, type(p.data).__name__, type(p.detach()).__name__,
                isinstance(p, lib.Tensor), p.is_leaf, p.requires_grad, q.requires_grad, y.requires_grad,
                type(copy.deepcopy(p)).__name__, copy.deepcopy(p).requires_grad)
    check(case)
    check(lambda lib: lib.nn.Parameter(lib.ones(2, dtype=lib.int64)))
    check(lambda lib: lib.nn.Parameter([1.0]))


def test_parameter_shares_memory_and_copies():
    def case(lib):
        t = lib.zeros(3)
        p = lib.nn.Parameter(t)
        with lib.no_grad():
            p.add_(1)
        p.tag = "decay"
        p.grad = lib.ones(3)
        c = copy.deepcopy(p)
        return t, hasattr(c, "tag"), c.grad, c.requires_grad, p.tag, copy.deepcopy(lib.ones(1)).__dict__
    check(case)
    p = vt.nn.Parameter(vt.ones(2))
    p.tag = "decay"
    assert pickle.loads(pickle.dumps(p)).tag == "decay"


def test_buffer_class_registers_buffers():
    def case(lib):
        m = lib.nn.Module()
        m.a = lib.nn.Buffer(lib.ones(2))
        m.b = lib.nn.Buffer(lib.zeros(1), persistent=False)
        m.plain = lib.ones(1)
        return (_names(m.named_buffers()), list(m.state_dict()), isinstance(m.a, lib.nn.Buffer),
                isinstance(m.plain, lib.nn.Buffer), type(m.a).__name__)
    check(case)


@pytest.mark.parametrize("action", [
    lambda lib, m: m.register_parameter("w", lib.ones(2)),
    lambda lib, m: m.register_parameter("a.b", None),
    lambda lib, m: m.register_parameter("", None),
    lambda lib, m: m.register_parameter(3, None),
    lambda lib, m: m.register_buffer("x", 3),
    lambda lib, m: m.register_buffer("x.y", None),
    lambda lib, m: m.add_module("sub", 3),
    lambda lib, m: m.add_module("a.b", lib.nn.Identity()),
    lambda lib, m: setattr(m, "weight", lib.ones(2)),
    lambda lib, m: setattr(m, "fc", 3),
    lambda lib, m: setattr(m, "buf", 3),
    lambda lib, m: m.register_parameter("existing", None),
    lambda lib, m: m.register_parameter("w", lib.nn.Parameter(lib.ones(2)) * 2),
    lambda lib, m: m.missing,
    lambda lib, m: m.get_submodule("fc.nothing"),
    lambda lib, m: m.get_submodule("weight"),
    lambda lib, m: m.get_parameter("fc.missing"),
    lambda lib, m: m.get_buffer("fc.weight"),
    lambda lib, m: m.train("yes"),
    lambda lib, m: m.to(lib.int64),
    lambda lib, m: m.to("cuda"),
    lambda lib, m: m.load_state_dict([1, 2]),
    lambda lib, m: m(lib.ones(1)),
])
def test_registration_errors(action):
    def case(lib):
        m = lib.nn.Module()
        m.weight = lib.nn.Parameter(lib.ones(2))
        m.fc = lib.nn.Linear(2, 2)
        m.register_buffer("buf", lib.ones(1))
        m.existing = 1
        return action(lib, m)
    check(case)


def test_assignment_moves_names_between_tables():
    def case(lib):
        m = lib.nn.Module()
        m.x = lib.nn.Parameter(lib.ones(1))
        m.x = lib.nn.Linear(1, 1)
        after_module = (_names(m.named_parameters()), _names(m.named_children()))
        m.x = None
        m.y = lib.nn.Linear(1, 1)
        del m.y
        m.register_buffer("z", None)
        m.z = lib.ones(2)
        m.weight = lib.nn.Parameter(lib.ones(1))
        m.weight = None
        return after_module, _names(m.named_parameters()), _names(m.named_children()), _names(m.named_buffers()), \
            list(m.state_dict()), hasattr(m, "y"), m.weight
    check(case)


def test_train_eval_requires_grad_zero_grad_apply():
    def case(lib):
        m = _net(lib)
        m.eval()
        modes = [mod.training for mod in m.modules()]
        m.train()
        m.b.eval()
        modes2 = [mod.training for mod in m.modules()]
        m.requires_grad_(False)
        flags = [p.requires_grad for p in m.parameters()]
        m.requires_grad_()
        m(lib.ones(2, 3)).sum().backward()
        has = [p.grad is not None for p in m.parameters()]
        m.zero_grad(set_to_none=False)
        zeros = [p.grad.abs().sum().item() for p in m.parameters()]
        m.zero_grad()
        nones = [p.grad for p in m.parameters()]
        seen = []
        m.apply(lambda mod: seen.append(type(mod).__name__))
        return modes, modes2, flags, has, zeros, nones, seen
    check(case)


def test_dtype_conversions_keep_parameter_identity():
    def case(lib):
        m = _net(lib)
        p = m.a.fc.weight
        m.double()
        kept = m.a.fc.weight is p
        d1 = [str(t.dtype) for t in m.state_dict().values()]
        m.to(lib.float16)
        d2 = [str(t.dtype) for t in m.state_dict().values()]
        m.float()
        m.to(dtype=lib.bfloat16)
        d3 = [str(t.dtype) for t in m.state_dict().values()]
        m.to("cpu").cpu().type(lib.float64)
        return kept, d1, d2, d3, [str(t.dtype) for t in m.state_dict().values()], type(m.a.fc.weight).__name__
    check(case)


def test_state_dict_round_trip_and_strict_reports():
    x = np.ones((2, 3), np.float32)

    def case(lib):
        src, dst = _net(lib), _net(lib)
        result = dst.load_state_dict(src.state_dict())
        same = dst(lib.from_numpy(x)).detach().numpy().tolist() == src(lib.from_numpy(x)).detach().numpy().tolist()
        sd = src.state_dict()
        del sd["b.fc.bias"]
        sd["extra.weight"] = lib.ones(1)
        loose = dst.load_state_dict(sd, strict=False)
        return repr(result), same, loose.missing_keys, loose.unexpected_keys, repr(loose)
    check(case)


@pytest.mark.parametrize("edit", [
    lambda lib, sd: sd.pop("head.0.bias"),
    lambda lib, sd: sd.update({"junk": lib.ones(1), "a.junk": lib.ones(1)}),
    lambda lib, sd: sd.update({"a.fc.weight": lib.ones(2, 3)}),
    lambda lib, sd: sd.update({"a.fc.weight": 3.0}),
    lambda lib, sd: (sd.pop("a.count"), sd.update({"a.fc.bias": lib.ones(7)})),
])
def test_load_state_dict_errors_match_torch_messages(edit):
    messages = []
    for lib in LIBS:
        sd = _net(lib).state_dict()
        edit(lib, sd)
        with pytest.raises(RuntimeError) as info:
            _net(lib).load_state_dict(sd)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_load_state_dict_assign_and_copy_semantics():
    def case(lib):
        m = lib.nn.Linear(2, 2)
        w = lib.full((2, 2), 3.0)
        m.load_state_dict({"weight": w, "bias": lib.zeros(2)}, assign=True)
        assigned = (type(m.weight).__name__, m.weight.requires_grad, m.weight.data_ptr() == w.data_ptr())
        n = lib.nn.Linear(2, 2)
        v = lib.full((2, 2), 5.0, dtype=lib.float64)
        n.load_state_dict({"weight": v, "bias": lib.zeros(2)})
        return assigned, n.weight.dtype, n.weight.tolist(), n.weight.data_ptr() == v.data_ptr()
    check(case)


def test_extra_state_and_state_dict_hooks():
    def case(lib):
        class WithExtra(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.value = 1

            def get_extra_state(self):
                return {"value": self.value}

            def set_extra_state(self, state):
                self.value = state["value"]

        m = lib.nn.Sequential(WithExtra())
        sd = m.state_dict()
        m2 = lib.nn.Sequential(WithExtra())
        sd["0._extra_state"] = {"value": 7}
        m2.load_state_dict(sd)
        calls = []
        m2.register_state_dict_pre_hook(lambda mod, prefix, keep: calls.append(("pre", prefix)))
        m2._register_state_dict_hook(lambda mod, dest, prefix, meta: calls.append(("post", list(dest))))
        m2.register_load_state_dict_post_hook(lambda mod, keys: calls.append(("load", list(keys.missing_keys))))
        m2.state_dict()
        m2.load_state_dict({}, strict=False)
        return list(sd), m2[0].value, calls
    check(case)


def test_forward_hooks_order_kwargs_and_removal():
    def case(lib):
        m = lib.nn.Linear(2, 2)
        log = []
        h1 = m.register_forward_pre_hook(lambda mod, args: log.append("pre1"))
        m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
        m.register_forward_pre_hook(lambda mod, args: log.append("pre0"), prepend=True)
        m.register_forward_hook(lambda mod, args, out: out + 1)
        m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("kw", sorted(kwargs))), with_kwargs=True)
        y = m(lib.ones(1, 2))
        h1.remove()
        with m.register_forward_hook(lambda mod, args, out: log.append("temporary")):
            m(lib.ones(1, 2))
        m(lib.ones(1, 2))
        return log, y - m.bias
    check(case)


def test_forward_hook_always_call_runs_on_errors():
    def case(lib):
        class Failing(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        log = []
        m = Failing()
        m.register_forward_hook(lambda mod, args, out: log.append(out), always_call=True)
        m.register_forward_hook(lambda mod, args, out: log.append("never"))
        try:
            m(lib.ones(1))
        except ValueError:
            pass
        return log
    check(case)


def test_full_backward_hooks_see_and_replace_gradients():
    x = np.random.default_rng(1).standard_normal((3, 2)).astype(np.float32)

    def case(lib, x):
        class Tanh(lib.nn.Module):
            def forward(self, x):
                return lib.tanh(x)

        m = lib.nn.Sequential(lib.nn.Linear(2, 4), Tanh(), lib.nn.Linear(4, 1))
        seen = []

        def hook(mod, grad_input, grad_output):
            seen.append((len(grad_input), [g.clone() if g is not None else None for g in grad_output]))
            return (grad_input[0] * 3,)

        m[2].register_full_backward_hook(hook)
        m[0].register_full_backward_pre_hook(lambda mod, grad_output: (grad_output[0] * 0.5,))
        m[0].register_full_backward_hook(lambda mod, gi, go: seen.append(("first", gi, go[0].clone())))
        m(x).sum().backward()
        return seen, x.grad, m[0].weight.grad

    check(case, x)


def test_backward_hook_without_input_grad():
    def case(lib):
        m = lib.nn.Linear(2, 1)
        seen = []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
        m(lib.ones(3, 2)).sum().backward()
        return seen, m.weight.grad
    check(case)


def test_global_forward_hooks():
    def case(lib):
        log = []
        mm = lib.nn.modules.module
        h = mm.register_module_forward_hook(lambda mod, args, out: log.append(type(mod).__name__))
        g = mm.register_module_forward_pre_hook(lambda mod, args: log.append("pre"))
        try:
            lib.nn.Sequential(lib.nn.Linear(2, 2))(lib.ones(1, 2))
        finally:
            h.remove()
            g.remove()
        lib.nn.Linear(2, 2)(lib.ones(1, 2))
        return log
    check(case)


def test_submodule_lookup_and_set_submodule():
    def case(lib):
        m = _net(lib)
        m.set_submodule("head.1", lib.nn.Linear(2, 2))
        return (type(m.get_submodule("head.0")).__name__, m.get_parameter("a.fc.bias").shape,
                m.get_buffer("b.count").tolist(), _names(m.named_modules()), m.get_submodule("") is m)
    check(case)


def test_module_init_arguments_and_missing_forward():
    check(lambda lib: lib.nn.Module(3))
    check(lambda lib: lib.nn.Module(foo=3))

    def before_init(lib):
        class Bad(lib.nn.Module):
            def __init__(self):
                self.w = lib.nn.Parameter(lib.ones(1))
        return Bad()
    check(before_init)


def test_dir_and_deepcopy():
    def case(lib):
        m = _net(lib)
        names = [n for n in dir(m) if n in ("a", "b", "head", "shared", "fc", "forward", "training")]
        c = copy.deepcopy(m)
        return names, c.a.fc.weight is not m.a.fc.weight, c.shared is c.a.fc, \
            c.a.fc.weight.tolist() == m.a.fc.weight.tolist()
    check(case)


def test_state_dict_positional_arguments_warn():
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sd = lib.nn.Linear(2, 2).state_dict(None, "p.")
        assert list(sd) == ["p.weight", "p.bias"]
        assert any(issubclass(w.category, FutureWarning) for w in caught)


def test_module_pickle_round_trip():
    m = vt.nn.Sequential(vt.nn.Linear(3, 2), vt.nn.Bilinear(2, 2, 1))
    m2 = pickle.loads(pickle.dumps(m))
    x = vt.ones(2, 3)
    m = m[0]
    m2 = m2[0]
    assert_same(to_numpy(m(x)), to_numpy(m2(x)))
