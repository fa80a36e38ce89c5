"""Where vfw.torch's Python warnings point, against real torch: the user's calling line, not a wrapper inside.

Each case triggers one torch warning from a single line of this file (a lambda, so the expected line is the
lambda's first line); real torch and vfw.torch must both report that file and line, the same category and the
same text, and ``simplefilter("error")`` must raise that category in both.

torch (and vfw, where it matches torch) emits several of these only once per process, so each library's
warnings are recorded in a fresh subprocess running this file (``python -m compat_tests.torch.test_warning_locations
<module>``): what earlier tests in the session triggered cannot hide them.
"""

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import vfw.torch as vt

torch = pytest.importorskip("torch")


def _stepped_scheduler(lib, step_optimizer_first):
    """A StepLR scheduler on a one-parameter SGD, with ``optimizer.step()`` run first or not."""
    p = lib.nn.Parameter(lib.ones(1))
    opt = lib.optim.SGD([p], 0.1)
    sched = lib.optim.lr_scheduler.StepLR(opt, 1)
    if step_optimizer_first:
        opt.step()
    return sched


def _no_setup(lib):
    return lib


# name -> (setup(lib) -> target, trigger(target) -> None, written on ONE line)
CASES = {
    "T_on_3d": (_no_setup, lambda lib: lib.ones(2, 3, 4).T),
    "grid_sample_align_corners": (lambda lib: (lib.nn.functional, lib.ones(1, 1, 2, 2), lib.zeros(1, 2, 2, 2)),
                                  lambda a: a[0].grid_sample(a[1], a[2])),
    "affine_grid_unit_size": (_no_setup, lambda lib: lib.nn.functional.affine_grid(lib.eye(2, 3)[None], (1, 1, 1, 1),
                                                                                    align_corners=True)),
    "index_reduce_beta": (lambda lib: (lib, lib.zeros(3)),
                          lambda a: a[1].index_reduce_(0, a[0].tensor([0, 1]), a[0].ones(2), "prod")),
    "softmax_implicit_dim": (_no_setup, lambda lib: lib.nn.functional.softmax(lib.ones(2, 3))),
    "upsample_deprecated": (_no_setup, lambda lib: lib.nn.functional.upsample(lib.ones(1, 1, 2, 2), scale_factor=2)),
    "tensor_of_tensor": (lambda lib: (lib, lib.ones(2)), lambda a: a[0].tensor(a[1])),
    "cholesky_deprecated": (_no_setup, lambda lib: lib.cholesky(lib.eye(2))),
    "state_dict_positional": (lambda lib: lib.nn.Linear(2, 2), lambda m: m.state_dict({}, "prefix.")),
    "NLLLoss2d_deprecated": (_no_setup, lambda lib: lib.nn.NLLLoss2d()),
    "dropout2d_on_3d": (_no_setup, lambda lib: lib.nn.functional.dropout2d(lib.ones(2, 3, 4))),
    "init_normal_deprecated": (lambda lib: (lib, lib.empty(2, 3)), lambda a: a[0].nn.init.normal(a[1])),
    "clip_grad_norm_deprecated": (lambda lib: (lib, [lib.ones(2, requires_grad=True)]),
                                  lambda a: a[0].nn.utils.clip_grad_norm(a[1], 1.0)),
    "uint8_mask_index": (lambda lib: (lib, lib.ones(2, 3)), lambda a: a[1][a[0].tensor([1, 0], dtype=a[0].uint8)]),
    "list_of_lists_index": (lambda lib: lib.ones(2, 3), lambda x: x[[[0, 1], [1, 2]]]),
    "complex_to_real_cast": (lambda lib: (lib, lib.ones(2, dtype=lib.complex64)), lambda a: a[1].to(a[0].float32)),
    "nonin_place_resize": (lambda lib: lib.ones(2, 3), lambda x: x.resize(6)),
    "cov_no_degrees_of_freedom": (_no_setup, lambda lib: lib.cov(lib.ones(2, 1))),
    "scheduler_before_optimizer": (lambda lib: _stepped_scheduler(lib, False), lambda s: s.step()),
    "scheduler_epoch_deprecated": (lambda lib: _stepped_scheduler(lib, True), lambda s: s.step(1)),
    "hardtanh_min_value": (_no_setup, lambda lib: lib.nn.Hardtanh(min_value=-1.0)),
    "gumbel_softmax_eps": (_no_setup, lambda lib: lib.nn.functional.gumbel_softmax(lib.ones(2, 3), eps=1e-3)),
    "quantize_per_tensor": (_no_setup, lambda lib: lib.quantize_per_tensor(lib.ones(2), 0.1, 0, lib.quint8)),
    "TypedStorage_deprecated": (_no_setup, lambda lib: lib.TypedStorage(2)),
    "H_on_0d": (_no_setup, lambda lib: lib.tensor(1.0).H),
    "range_deprecated": (_no_setup, lambda lib: lib.range(0, 3)),
    "Variable_volatile": (lambda lib: (lib, lib.ones(2)), lambda a: a[0].autograd.Variable(a[1], volatile=True)),
    "volatile_attribute": (lambda lib: lib.ones(2), lambda x: x.volatile),
    "non_leaf_grad": (lambda lib: lib.ones(2, requires_grad=True) * 2, lambda x: x.grad),
    "cross_without_dim": (_no_setup, lambda lib: lib.cross(lib.ones(3), lib.ones(3))),
}


# torch warns these only once per process; recording them in-process would depend on the tests run before
ONCE_PER_PROCESS = {"H_on_0d", "T_on_3d", "TypedStorage_deprecated", "cholesky_deprecated", "complex_to_real_cast",
                    "index_reduce_beta", "quantize_per_tensor", "cross_without_dim"}
_CPP_ORIGIN = re.compile(r" \(Triggered internally at [^)]*\)$")  # where torch's C++ warned; vfw has no C++


def _record_all(lib):
    """{case: [(category name, message, filename, line), ...]} for every case, numpy RuntimeWarnings left out."""
    found = {}
    for name, (setup, trigger) in CASES.items():
        target = setup(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            trigger(target)
        found[name] = [(w.category.__name__, _CPP_ORIGIN.sub("", str(w.message)), w.filename, w.lineno)
                       for w in caught if not issubclass(w.category, RuntimeWarning)]
    return found


@pytest.fixture(scope="module")
def recorded():
    """Each library's warnings per case, each library recorded in its own fresh interpreter."""
    root = Path(__file__).resolve().parents[2]
    result = {}
    for label, module in (("torch", "torch"), ("vfw", "vfw.torch")):
        run = subprocess.run([sys.executable, "-m", __name__, module], cwd=root, capture_output=True, text=True,
                             check=True)
        result[label] = json.loads(run.stdout)
    return result


@pytest.mark.parametrize("name", sorted(CASES))
def test_warning_points_at_calling_line(recorded, name):
    line = CASES[name][1].__code__.co_firstlineno
    for label in ("torch", "vfw"):
        found = recorded[label][name]
        assert len(found) == 1, (label, found)
        assert found[0][2:] == [__file__, line], (label, found[0])
    assert recorded["vfw"][name][0][:2] == recorded["torch"][name][0][:2]


@pytest.mark.parametrize("name", sorted(set(CASES) - ONCE_PER_PROCESS))
def test_error_filter_raises_category(name):
    setup, trigger = CASES[name]
    categories = {}
    for label, lib in (("torch", torch), ("vfw", vt)):
        target = setup(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.simplefilter("ignore", RuntimeWarning)
            with pytest.raises(Warning) as info:
                trigger(target)
        categories[label] = info.type
    assert categories["vfw"] is categories["torch"]


def test_warning_inside_user_module_forward_points_at_forward_line():
    lines = {}
    for label, lib in (("torch", torch), ("vfw", vt)):
        class Net(lib.nn.Module):
            functional = lib.nn.functional

            def forward(self, x):
                return self.functional.softmax(x)  # the line both libraries must report
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Net()(lib.ones(2, 3))
        (w,) = caught
        lines[label] = (w.filename, w.lineno)
    assert lines["vfw"] == lines["torch"] == (__file__, Net.forward.__code__.co_firstlineno + 1)


def test_default_filter_reports_each_location_once():
    counts = {}
    for label, lib in (("torch", torch), ("vfw", vt)):
        x = lib.ones(2, 3, 4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            for _ in range(3):
                lib.nn.functional.softmax(x)
            lib.nn.functional.softmax(x)  # a second location warns again
        counts[label] = [w.lineno for w in caught]
    assert counts["vfw"] == counts["torch"]
    assert len(counts["vfw"]) == 2 and counts["vfw"][0] != counts["vfw"][1]


if __name__ == "__main__":  # the recorder the ``recorded`` fixture runs: argv[1] is the module to import
    import importlib

    json.dump(_record_all(importlib.import_module(sys.argv[1])), sys.stdout)
