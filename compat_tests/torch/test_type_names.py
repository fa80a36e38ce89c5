"""vfw.torch's classes carry torch's names (``__module__``, ``__qualname__``, ``repr``) and still pickle and copy."""

import copy
import importlib
import pickle
import pickletools
import pkgutil
import subprocess
import sys
import warnings

import numpy as np
import pytest
import vfw.torch as vt

real = pytest.importorskip("torch")


def _torch_has(module_name):
    """Whether real torch has the module ``module_name``."""
    try:
        importlib.import_module(module_name)
    except ImportError:
        return False
    return True


# The namespaces users reach classes through; each must hold classes to compare (so a test cannot pass empty).
_NAMESPACES = ["torch", "torch.nn", "torch.nn.parameter", "torch.optim", "torch.optim.lr_scheduler",
               "torch.optim.swa_utils", "torch.utils.data", "torch.distributions", "torch.distributions.transforms",
               "torch.autograd", "torch.autograd.function", "torch.amp", "torch.return_types", "torch.jit",
               "torch.utils.hooks", "torch.distributed"]
_NAMESPACES += sorted(f"torch.nn.modules.{info.name}" for info in pkgutil.iter_modules(vt.nn.modules.__path__)
                      if not info.name.startswith("_") and _torch_has(f"torch.nn.modules.{info.name}"))
# Every other public module of vfw.torch: compared where torch has a class of the same name there.
_ALL_MODULES = sorted({"torch" + info.name[len(vt.__name__):] for info in pkgutil.walk_packages(vt.__path__,
                                                                                               vt.__name__ + ".")
                       if not any(part.startswith("_") for part in info.name.split("."))} - set(_NAMESPACES))


# Public names whose classes differ from torch's for reasons other than naming.
_DIFFERENT_CLASSES = {
    ("torch.nn.utils.rnn", "Tensor"): "vfw's module binds the engine's Tensor class",
    ("torch.random", "Generator"): "torch's is collections.abc.Generator (an import of its module); vfw's is torch's",
    ("torch.onnx", "OperatorExportTypes"): "a Python Enum (repr <enum ...>); torch's is a pybind11 enum class",
    ("torch.onnx", "TrainingMode"): "a Python Enum (repr <enum ...>); torch's is a pybind11 enum class",
}


def _names(cls):
    return cls.__module__, cls.__qualname__, cls.__name__, repr(cls)


def _class_pairs(namespace):
    """(name, vfw class, torch class) for each public class name both ``namespace``s bind."""
    ours = importlib.import_module("vfw." + namespace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = importlib.import_module(namespace)
        pairs = []
        for name, value in sorted(vars(ours).items()):
            counterpart = getattr(theirs, name, None)
            if not name.startswith("_") and isinstance(value, type) and isinstance(counterpart, type) \
                    and (namespace, name) not in _DIFFERENT_CLASSES:
                pairs.append((name, value, counterpart))
    return pairs


def _mismatches(pairs):
    return [(name, _names(ours), _names(theirs)) for name, ours, theirs in pairs if _names(ours) != _names(theirs)]


@pytest.mark.parametrize("namespace", _NAMESPACES)
def test_public_classes_carry_torch_names(namespace):
    pairs = _class_pairs(namespace)
    assert pairs, f"no class of {namespace} to compare"
    assert _mismatches(pairs) == []


@pytest.mark.parametrize("namespace", _ALL_MODULES)
def test_classes_of_every_public_module_carry_torch_names(namespace):
    if not _torch_has(namespace):
        pytest.skip(f"real torch has no module {namespace}")
    assert _mismatches(_class_pairs(namespace)) == []


def _custom_function(torch):
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return Double


def _instances(torch):
    """Objects whose types users print, built the same way in both libraries."""
    x = torch.ones(2, 3, requires_grad=True)
    linear = torch.nn.Linear(3, 2)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.ones(4, 2)), batch_size=2)
    optimizer = torch.optim.SGD(linear.parameters(), lr=0.1)
    return {
        "grad_fn": (x * 2).sum().grad_fn, "accumulate_grad": (x * 2).grad_fn.next_functions[0][0],
        "custom_grad_fn": _custom_function(torch).apply(x).grad_fn, "size": x.shape, "dtype": x.dtype,
        "device": x.device, "generator": torch.Generator(), "max": x.max(0), "sort": torch.sort(x),
        "finfo": torch.finfo(), "iinfo": torch.iinfo(torch.int32), "layout": torch.strided,
        "memory_format": torch.contiguous_format, "legacy_type": torch.FloatTensor, "tensor": x,
        "parameter": linear.weight, "handle": linear.register_forward_hook(lambda *args: None),
        "loader_iterator": iter(loader), "sampler": loader.sampler, "batch_sampler": loader.batch_sampler,
        "scheduler": torch.optim.lr_scheduler.StepLR(optimizer, 1), "no_grad": torch.no_grad(),
        "normal": torch.distributions.Normal(0.0, 1.0), "simplex": torch.distributions.constraints.simplex,
        "storage": x.untyped_storage(), "autocast": torch.autocast("cpu"), "sequential": torch.nn.Sequential(),
        "subset": torch.utils.data.Subset([1, 2], [0]), "exp_transform": torch.distributions.transforms.ExpTransform(),
    }


def test_types_of_objects_carry_torch_names():
    ours, theirs = _instances(vt), _instances(real)
    assert {k: _names(type(v)) for k, v in ours.items()} == {k: _names(type(v)) for k, v in theirs.items()}


@pytest.mark.parametrize("make", [
    lambda torch: torch.nn.Linear(2, 3), lambda torch: torch.nn.Linear, lambda torch: torch.Size([2, 3]),
    lambda torch: torch.float32, lambda torch: torch.ones(2, dtype=torch.int64), lambda torch: torch.nn.Module,
    lambda torch: torch.optim.Adam(torch.nn.Linear(1, 1).parameters()), lambda torch: 3,
    lambda torch: (torch.ones(1, requires_grad=True) * 2).grad_fn, lambda torch: torch.device("cpu"),
    lambda torch: _custom_function(torch).apply(torch.ones(1, requires_grad=True)).grad_fn,
], ids=["module", "module_class", "size", "dtype", "tensor", "module_base", "optimizer", "int", "grad_fn", "device",
        "custom_grad_fn"])
def test_typename(make):
    assert vt.typename(make(vt)) == real.typename(make(real))


def _trained(torch):
    """A small model and an Adam optimizer with state after one step, from fixed weights."""
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    rng = np.random.RandomState(0)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.tensor(rng.randn(*parameter.shape), dtype=torch.float32))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.tensor(rng.randn(5, 3), dtype=torch.float32)).pow(2).sum().backward()
    optimizer.step()
    return model, optimizer


def _globals_named(data):
    """The (module, name) of every global a pickle names."""
    found, strings = [], []
    for opcode, arg, _ in pickletools.genops(data):
        if opcode.name == "GLOBAL":
            found.append(tuple(arg.split(" ", 1)))
        elif opcode.name == "STACK_GLOBAL":
            found.append((strings[-2], strings[-1]))
        if isinstance(arg, str):
            strings.append(arg)
    return found


def _state(model, optimizer):
    """The model's parameters, the optimizer's per-parameter state and its param groups, as numpy/plain values."""
    optimizer_state = optimizer.state_dict()
    return ([(k, v.detach().numpy()) for k, v in model.state_dict().items()],
            [(k, n, np.asarray(t.detach().numpy() if hasattr(t, "detach") else t))
             for k, s in optimizer_state["state"].items() for n, t in s.items()], optimizer_state["param_groups"])


def _assert_same_state(got, want):
    for got_part, want_part in zip(got[:2], want[:2]):
        assert [entry[:-1] for entry in got_part] == [entry[:-1] for entry in want_part]
        for got_entry, want_entry in zip(got_part, want_part):
            np.testing.assert_array_equal(got_entry[-1], want_entry[-1])
    assert got[2] == want[2]


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_pickle_round_trip_of_module_and_optimizer(protocol):
    model, optimizer = _trained(vt)
    data = pickle.dumps((model, optimizer), protocol=protocol)
    assert not [g for g in _globals_named(data) if g[0].split(".")[0] == "torch"]  # torch is real torch here
    model_back, optimizer_back = pickle.loads(data)
    assert type(model_back) is type(model) and type(optimizer_back) is type(optimizer)
    assert repr(model_back) == repr(_trained(real)[0]) and repr(type(optimizer_back)) == repr(real.optim.Adam)
    _assert_same_state(_state(model_back, optimizer_back), _state(model, optimizer))
    assert optimizer_back.param_groups[0]["params"][0] is next(model_back.parameters())  # one object graph


@pytest.mark.parametrize("copier", [copy.deepcopy, copy.copy])
def test_copy_of_module_and_optimizer(copier):
    model, optimizer = _trained(vt)
    model_copy, optimizer_copy = copier(model), copier(optimizer)
    assert type(model_copy) is type(model) and repr(model_copy) == repr(_trained(real)[0])
    _assert_same_state(_state(model_copy, optimizer_copy), _state(model, optimizer))


@pytest.mark.parametrize("make", [
    lambda torch: torch.Size([2, 3]), lambda torch: torch.float16, lambda torch: torch.device("cpu", 0),
    lambda torch: torch.max(torch.tensor([[1.0, 5.0], [7.0, 2.0]]), 0),
    lambda torch: torch.tensor([1.0, 2.0]), lambda torch: torch.nn.Parameter(torch.tensor([3.0])),
], ids=["size", "dtype", "device", "return_type", "tensor", "parameter"])
def test_pickle_round_trip_of_values(make):
    ours, theirs = make(vt), make(real)
    back = pickle.loads(pickle.dumps(ours))
    assert type(back) is type(ours) and repr(type(back)) == repr(type(theirs))
    assert repr(back) == repr(pickle.loads(pickle.dumps(theirs)))


def test_pickle_loads_in_a_process_without_torch(tmp_path):
    model, _ = _trained(vt)
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(model))
    script = ("import pickle, sys\nmodel = pickle.loads(open(sys.argv[1], 'rb').read())\n"
              "print(type(model[0]), 'torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["<class", "'torch.nn.modules.linear.Linear'>", "False"]
