"""``vfw.torch`` / ``vfw.tensorflow`` are the frontend packages under their public names (same module objects)."""

import importlib
import subprocess
import sys


def test_public_names_are_the_frontend_modules():
    import vfw.torch
    import vfw.torch.autograd as public_autograd

    import vfw.frontends.torch
    from vfw.frontends.torch import autograd
    assert vfw.torch is vfw.frontends.torch
    assert public_autograd is autograd
    assert vfw.torch.Tensor is vfw.frontends.torch.Tensor
    assert importlib.import_module("vfw.tensorflow") is importlib.import_module("vfw.frontends.tensorflow")


def test_public_name_first_then_real_name_gives_one_module():
    code = ("import vfw.torch.autograd.grad_mode as a; import vfw.frontends.torch.autograd.grad_mode as b; "
            "assert a is b; from vfw.torch.autograd.grad_mode import no_grad; assert no_grad is b.no_grad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_import_vfw_does_not_load_a_frontend():
    code = "import sys, vfw; assert 'vfw.frontends.torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unknown_submodule_is_an_import_error():
    try:
        importlib.import_module("vfw.torch.no_such_module")
    except ImportError:
        pass
    else:
        raise AssertionError("expected ImportError")


def test_importing_a_submodule_by_its_alias_keeps_a_same_named_package_attribute():
    # torch.autograd.gradcheck is the function; torch.autograd.gradcheck the module holds it.
    code = ("import sys, vfw.torch as torch, vfw.torch.autograd.gradcheck; "
            "from vfw.torch.autograd.gradcheck import GradcheckError; "
            "mod = sys.modules['vfw.torch.autograd.gradcheck']; "
            "assert torch.autograd.gradcheck is mod.gradcheck and callable(torch.autograd.gradcheck); "
            "assert issubclass(GradcheckError, RuntimeError)")
    subprocess.run([sys.executable, "-c", code], check=True)
