"""``vfw.mock``: in-process serving of vfw under the real names, restored on exit; errors for missing APIs."""

import importlib
import sys
import types

import pytest
import vfw.tensorflow
import vfw.torch

import vfw

SERVED = ("torch", "tensorflow", "keras")


def _served_entries():
    return {name: module for name, module in sys.modules.items() if name.partition(".")[0] in SERVED}


@pytest.fixture
def outside_entries():
    """sys.modules under the served names before a test (a real framework another test imported, or nothing)."""
    before = _served_entries()
    yield before
    assert _served_entries() == before


def test_torch_imports_are_vfw_modules(outside_entries):
    with vfw.mock("torch"):
        import torch
        import torch.nn.functional as F
        import torch.utils.data
        from torch import nn, optim
        from torch.nn import Linear
        assert torch is vfw.torch and nn is vfw.torch.nn and F is vfw.torch.nn.functional
        assert optim is vfw.torch.optim and Linear is vfw.torch.nn.Linear
        assert torch.utils.data is sys.modules["torch.utils.data"] is importlib.import_module("vfw.torch.utils.data")
        assert sys.modules["torch.nn"] is nn and isinstance(torch.zeros(2), vfw.torch.Tensor)
        assert "tensorflow" not in sys.modules or sys.modules["tensorflow"] is outside_entries.get("tensorflow")


@pytest.mark.parametrize("framework", ["tensorflow", "keras"])
def test_tensorflow_and_keras_imports_are_vfw_modules(outside_entries, framework):
    with vfw.mock(framework):
        import keras
        import tensorflow as tf
        from keras import layers
        from tensorflow import keras as tf_keras
        from tensorflow.keras import optimizers
        assert tf is vfw.tensorflow and keras is tf_keras is tf.keras is vfw.tensorflow.keras
        assert layers is vfw.tensorflow.keras.layers and optimizers is vfw.tensorflow.keras.optimizers
        assert sys.modules["keras.layers"] is layers and sys.modules["tensorflow.keras.layers"] is layers


def test_exit_restores_modules_imported_before(monkeypatch):
    stand_in = types.ModuleType("torch")  # plays a real torch imported before the block
    stand_in_nn = types.ModuleType("torch.nn")
    monkeypatch.setitem(sys.modules, "torch", stand_in)
    monkeypatch.setitem(sys.modules, "torch.nn", stand_in_nn)
    before = _served_entries()
    with vfw.mock("torch"):
        import torch
        assert torch is vfw.torch and sys.modules["torch.nn"] is vfw.torch.nn
    assert sys.modules["torch"] is stand_in and sys.modules["torch.nn"] is stand_in_nn
    assert _served_entries() == before  # and no vfw module stays behind under a torch name


def test_exit_restores_after_an_exception(outside_entries):
    with pytest.raises(RuntimeError, match="inside"), vfw.mock("torch", "tensorflow"):
        import tensorflow  # noqa: F401
        import torch  # noqa: F401
        raise RuntimeError("inside")


def test_nested_mocks_of_one_framework(outside_entries):
    with vfw.mock("torch"):
        with vfw.mock("torch"):
            import torch
            assert torch is vfw.torch
        assert sys.modules["torch"] is vfw.torch
        with pytest.raises(AttributeError, match="vfw.torch does not provide it yet"):
            torch.not_provided  # noqa: B018 - the outer block still serves torch


def test_missing_attribute_names_the_api(outside_entries):
    with vfw.mock("torch", "tensorflow"):
        import tensorflow as tf
        import torch
        with pytest.raises(AttributeError, match=r"^module 'torch' has no attribute 'not_provided' "
                                                 r"\(vfw\.torch does not provide it yet\)$"):
            torch.not_provided  # noqa: B018
        with pytest.raises(AttributeError, match=r"module 'torch\.nn' has no attribute 'NotALayer' "
                                                 r"\(vfw\.torch\.nn does not provide it yet\)"):
            torch.nn.NotALayer  # noqa: B018
        with pytest.raises(AttributeError, match=r"module 'tensorflow' has no attribute 'not_provided' "
                                                 r"\(vfw\.tensorflow does not provide it yet\)"):
            tf.not_provided  # noqa: B018
        assert not hasattr(torch, "not_provided") and getattr(torch, "not_provided", 7) == 7
        assert tf.keras is vfw.tensorflow.keras  # the module's own lazy attributes still load
        assert torch.nn.Linear is vfw.torch.nn.Linear  # real attributes unchanged


def test_missing_submodule_and_name_are_import_errors(outside_entries):
    with vfw.mock("torch", "keras"):
        with pytest.raises(ModuleNotFoundError, match=r"^vfw\.torch does not provide torch\.not_a_module yet$"):
            import torch.not_a_module  # noqa: F401
        with pytest.raises(ImportError, match=r"^cannot import name 'not_a_module' from 'torch' "
                                              r"\(vfw\.torch does not provide it yet\)$"):
            from torch import not_a_module  # noqa: F401
        with pytest.raises(ImportError, match=r"^cannot import name 'NotALayer' from 'keras\.layers' "
                                              r"\(vfw\.tensorflow\.keras\.layers does not provide it yet\)$"):
            from keras.layers import NotALayer  # noqa: F401
        with pytest.raises(ModuleNotFoundError, match="vfw.tensorflow does not provide tensorflow.not_a_module"):
            import tensorflow.not_a_module  # noqa: F401


def test_hooks_leave_with_the_block(outside_entries):
    with vfw.mock("torch"):
        import torch  # noqa: F401
    with pytest.raises(AttributeError) as caught:
        vfw.torch.not_provided  # noqa: B018
    assert "does not provide" not in str(caught.value)
    assert "__getattr__" not in vfw.torch.__dict__


def test_unknown_framework():
    with pytest.raises(ValueError, match="unknown framework 'jax'"), vfw.mock("jax"):
        pass
    with pytest.raises(TypeError, match="at least one framework"), vfw.mock():
        pass
