"""Inference tensors (``torch.inference_mode``) against real torch 2.13: which tensors are inference tensors,
and the errors torch raises when one is saved for backward, written in place or made to require grad."""

import threading

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, real, vt


def _made_inside(torch):
    """Tensors made inside an inference_mode block (factories, ops, views, detach, clone), and from normal ones."""
    normal = torch.ones(3)
    with torch.inference_mode():
        factory = torch.ones(3)
        literal = torch.tensor([1.0, 2.0])
        made = {
            "factory": factory, "literal": literal, "arange": torch.arange(4), "randn": torch.randn(2),
            "op_on_normal": normal + 1, "op_on_inference": factory * 2, "unary": normal.exp(),
            "reduction": normal.sum(), "matmul": normal @ normal, "cat": torch.cat([normal, normal]),
            "clone_of_normal": normal.clone(), "view_of_normal": normal[1:], "reshape_of_normal": normal.view(3),
            "detach_of_normal": normal.detach(), "view_of_inference": factory[1:],
            "transpose_of_inference": factory.unsqueeze(0).t(), "split_of_normal": normal.split(2)[0],
            "max_values": normal.max(0).values, "max_indices": normal.max(0).indices,
            "data_of_normal": normal.data, "from_numpy": torch.from_numpy(np.ones(2)),
            "as_tensor_of_normal": torch.as_tensor(normal), "float_of_normal": normal.float(),
            "double_of_normal": normal.double(), "zeros_like": torch.zeros_like(normal),
            "randint": torch.randint(0, 5, (3,)), "full": torch.full((2,), 1.5), "eye": torch.eye(2),
        }
        with torch.inference_mode(False):
            made["inner_mode_false"] = torch.ones(2)
    return made


@pytest.mark.parametrize("name", sorted(_made_inside(real)))
def test_what_is_an_inference_tensor(name):
    assert _made_inside(vt)[name].is_inference() == _made_inside(real)[name].is_inference()


def _made_outside(torch):
    with torch.inference_mode():
        inference = torch.ones(3)
    normal = torch.ones(3)
    return {
        "self": inference, "view": inference[1:], "view_as": inference.view(3), "detach": inference.detach(),
        "clone": inference.clone(), "op": inference + 1, "op_with_normal": inference * normal,
        "expand": inference.expand(2, 3), "normal": normal, "data": inference.data,
        "float": inference.float(), "double": inference.double(),
    }


@pytest.mark.parametrize("name", sorted(_made_outside(real)))
def test_outside_inference_mode(name):
    assert _made_outside(vt)[name].is_inference() == _made_outside(real)[name].is_inference()


def _outcome(torch, action):
    """(exception type name, message) or ('ok', is_inference, requires_grad) of ``action`` outside the block."""
    with torch.inference_mode():
        inference = torch.ones(3)
    weight = torch.ones(3, requires_grad=True)
    try:
        r = action(torch, inference, weight)
    except Exception as e:  # noqa: BLE001  (the type and message are what is compared)
        return type(e).__name__, str(e)
    return "ok", r.is_inference(), r.requires_grad


ACTIONS = {
    "mul_saved": lambda t, x, w: x * w,
    "matmul_saved": lambda t, x, w: x @ w,
    "mm_saved": lambda t, x, w: x.unsqueeze(0).mm(w.unsqueeze(1)),
    "add_not_saved": lambda t, x, w: x + w,
    "clone_then_mul": lambda t, x, w: x.clone() * w,
    "no_grad_input": lambda t, x, w: (x * 2).exp(),
    "add_": lambda t, x, w: x.add_(1),
    "mul_": lambda t, x, w: x.mul_(2.0),
    "view_add_": lambda t, x, w: x[0:2].add_(1),
    "setitem": lambda t, x, w: x.__setitem__(0, 5.0),
    "zero_": lambda t, x, w: x.zero_(),
    "copy_": lambda t, x, w: x.copy_(t.zeros(3)),
    "clone_add_": lambda t, x, w: x.clone().add_(1),
    "requires_grad_": lambda t, x, w: x.requires_grad_(),
    "detach_requires_grad_": lambda t, x, w: x.detach().requires_grad_(),
    "clone_requires_grad_": lambda t, x, w: x.clone().requires_grad_(),
}


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_errors_outside_inference_mode(name):
    assert _outcome(vt, ACTIONS[name]) == _outcome(real, ACTIONS[name])


@pytest.mark.parametrize("lib", LIBS, ids=["torch", "vfw"])
def test_inplace_allowed_inside_and_under_no_grad_refused(lib):
    with lib.inference_mode():
        x = lib.ones(3)
    with lib.inference_mode():
        x.add_(1)  # allowed inside a later block
    assert x.tolist() == [2.0, 2.0, 2.0]
    with lib.no_grad(), pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        x.add_(1)


@pytest.mark.parametrize("lib", LIBS, ids=["torch", "vfw"])
def test_decorator_and_threads(lib):
    @lib.inference_mode()
    def predict(v):
        return v * 2

    assert predict(lib.ones(2)).is_inference()
    seen = []

    def other_thread():  # inference mode is per thread
        seen.append(lib.ones(2).is_inference())

    with lib.inference_mode():
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
    assert seen == [False]
    assert not lib.ones(2).is_inference()


def test_fast_paths_back_after_the_block():
    """After the block the fast paths (which make unmarked tensors) are on again: results are normal tensors."""
    with vt.inference_mode():
        pass
    a = vt.ones(2)
    assert not (a + a).is_inference() and not vt.add(a, a).is_inference()
    assert not vt.is_inference_mode_enabled()
