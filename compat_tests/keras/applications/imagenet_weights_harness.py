"""How ``weights="imagenet"`` reaches ``keras.utils.get_file``, compared between real Keras 3.15.1 and vfw.

:func:`assert_same_download` builds a model function in both libraries with ``get_file`` replaced by a recorder
(nothing is downloaded) and compares the ``(fname, origin, cache_subdir, file_hash)`` each asks for, and the
warnings each emits. :func:`assert_loads_imagenet_file` serves vfw a legacy ``.h5`` file written by real Keras
in place of the download and compares the two models' outputs.
"""

import inspect
import warnings

import h5py
import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW
from vfw.frontends.tensorflow.keras.src.initializers import random_initializers as vfw_random_initializers
from vfw.frontends.tensorflow.keras.src.utils import file_utils as vfw_file_utils

legacy_h5_format = pytest.importorskip("keras.src.legacy.saving.legacy_h5_format")
real_file_utils = pytest.importorskip("keras.src.utils.file_utils")

_GET_FILE_SIGNATURE = inspect.signature(real_file_utils.get_file)


class _DownloadRequestedError(Exception):
    """Raised by the recording ``get_file``: the model function stops where it would download."""


def _recorded_download(monkeypatch, lib, function_name, kwargs):
    """``((fname, origin, cache_subdir, file_hash), warnings)`` of ``lib``'s ``function_name(weights="imagenet")``."""
    calls = []

    def record(*args, **kw):
        bound = _GET_FILE_SIGNATURE.bind(*args, **kw)
        bound.apply_defaults()
        calls.append(tuple(bound.arguments[key] for key in ("fname", "origin", "cache_subdir", "file_hash")))
        raise _DownloadRequestedError

    module = real_file_utils if lib is REAL else vfw_file_utils
    with monkeypatch.context() as patch:
        patch.setattr(module, "get_file", record)
        lib.keras.backend.clear_session(free_memory=False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(_DownloadRequestedError):
                getattr(lib.keras.applications, function_name)(weights="imagenet", **kwargs)
    assert len(calls) == 1
    return calls[0], [(w.category, str(w.message)) for w in caught if issubclass(w.category, UserWarning)]


def assert_same_download(monkeypatch, function_name, kwargs):
    """vfw's ``function_name(weights="imagenet", **kwargs)`` asks ``get_file`` for what real Keras asks for."""
    expected = _recorded_download(monkeypatch, REAL, function_name, kwargs)
    with monkeypatch.context() as patch:
        # The download request comes after the model is built; vfw's random initialisation of VGG's 100M-weight
        # fully connected layers would dominate the test's time and plays no part in it.
        patch.setattr(vfw_random_initializers.VarianceScaling, "__call__",
                      lambda self, shape, dtype=None: VFW.tf.zeros(shape, dtype=dtype or "float32"))
        got = _recorded_download(monkeypatch, VFW, function_name, kwargs)
    assert got == expected, f"vfw: {got}\nKeras: {expected}"


def real_legacy_weights_file(path, function_name, kwargs, seed=0):
    """Build real Keras' ``function_name(weights=None, **kwargs)``, move its weights off their initial values,
    write them as a legacy ``.h5`` file (the format of the released ImageNet weights) to ``path``; return it."""
    REAL.keras.backend.clear_session(free_memory=False)
    model = getattr(REAL.keras.applications, function_name)(weights=None, **kwargs)
    rng = np.random.default_rng(seed)
    model.set_weights([value if "variance" in variable.path else
                       value + rng.normal(scale=0.05, size=value.shape).astype(value.dtype)
                       for variable, value in zip(model.weights, model.get_weights())])
    with h5py.File(path, "w") as file:
        legacy_h5_format.save_weights_to_hdf5_group(file, model)
    return model


def assert_loads_imagenet_file(monkeypatch, tmp_path, function_name, kwargs, input_shape):
    """vfw's ``function_name(weights="imagenet", **kwargs)``, its download served by a legacy ``.h5`` file of
    real Keras' weights, computes what the real model computes."""
    path = str(tmp_path / f"{function_name}.h5")
    real = real_legacy_weights_file(path, function_name, dict(kwargs, input_shape=input_shape))
    with monkeypatch.context() as patch:
        patch.setattr(vfw_file_utils, "get_file", lambda *args, **kw: path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # a non-224 input: Keras' "224 weights" warning
            ours = getattr(VFW.keras.applications, function_name)(weights="imagenet", input_shape=input_shape,
                                                                  **kwargs)
    images = np.random.default_rng(1).uniform(0, 255, size=(2,) + input_shape).astype("float32")
    expected = np.asarray(real(images, training=False))
    np.testing.assert_allclose(np.asarray(ours(images, training=False)), expected, rtol=1e-4,
                               atol=1e-4 * np.abs(expected).max())
