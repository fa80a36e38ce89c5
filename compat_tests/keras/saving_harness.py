"""Helpers of the saving, serialization and cloning tests: the same models and custom classes in both
libraries, comparisons of results and errors, HDF5 layouts.

``custom_classes(lib)`` defines, once per library, a registered custom layer (``Block``: its own
weight, a list of Dense sublayers and a Dense attribute) and a registered subclassed model
(``Sub``, whose attribute names are not in creation order), both under the package
``"vfw_tests"``; since both libraries' classes are defined in this module, their configs name the
same module and registered names.
"""

import io
import re
import zipfile

import h5py
import numpy as np

from compat_tests.keras.core_harness import REAL, VFW, assert_same, comparable, data  # noqa: F401

_CLASSES = {}


def custom_classes(lib):
    """``(Block, Sub, scale_fn)`` registered in ``lib.keras`` (defined on first use)."""
    if lib.name in _CLASSES:
        return _CLASSES[lib.name]
    keras = lib.keras
    register = keras.saving.register_keras_serializable(package="vfw_tests")

    @register
    class Block(keras.layers.Layer):
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.inner = [keras.layers.Dense(units), keras.layers.Dense(units, activation="tanh")]
            self.head = keras.layers.Dense(units)

        def build(self, input_shape):
            self.scale = self.add_weight(shape=(self.units,), initializer="ones", name="scale")

        def call(self, x):
            return self.head(self.inner[1](self.inner[0](x))) * self.scale

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    @register
    class Sub(keras.Model):
        def __init__(self, units=2, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.zlast = keras.layers.Dense(units)
            self.block = Block(3)

        def call(self, x):
            return self.zlast(self.block(x))

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    @register
    def scale_fn(x):
        return x * 2.0

    _CLASSES[lib.name] = (Block, Sub, scale_fn)
    return _CLASSES[lib.name]


def h5_layout(source):
    """``{name: (kind, shape, dtype, attrs)}`` of every group and dataset in an HDF5 file (a path or bytes)."""
    layout = {}

    def visit(name, obj):
        attrs = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in obj.attrs.items()}
        if isinstance(obj, h5py.Dataset):
            layout[name] = ("dataset", obj.shape, str(obj.dtype), attrs)
        else:
            layout[name] = ("group", None, None, attrs)

    with h5py.File(io.BytesIO(source) if isinstance(source, bytes) else source, "r") as f:
        f.visititems(visit)
    return layout


def archive_weights(path):
    """The bytes of ``model.weights.h5`` in a ``.keras`` archive."""
    with zipfile.ZipFile(path) as archive:
        return archive.read("model.weights.h5")


def assert_same_weights(real_model, vfw_model):
    """Both models' weights agree exactly, in order (and shapes)."""
    real_weights, vfw_weights = real_model.get_weights(), vfw_model.get_weights()
    assert len(real_weights) == len(vfw_weights)
    for a, b in zip(real_weights, vfw_weights):
        np.testing.assert_array_equal(np.asarray(b), np.asarray(a))


# -- the models the tests save, load and clone ---------------------------------------------------------------------
X3 = data(6, 3, seed=1)
X2 = data(6, 2, seed=2)


def reset(lib):
    """A fresh session, with the custom classes registered (as a program defining them would)."""
    lib.keras.backend.clear_session(free_memory=False)
    custom_classes(lib)


def sequential(lib):
    keras = lib.keras
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                             keras.layers.Dropout(0.5), keras.layers.Dense(2, name="out")])


def functional(lib):
    """Two inputs, a nested Sequential, a registered custom layer, two outputs."""
    keras = lib.keras
    block_class, _, _ = custom_classes(lib)
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    inner = keras.Sequential([keras.layers.Dense(3)], name="inner")
    hidden = block_class(4)(inner(a))
    hidden_b = keras.layers.Dense(4)(b)
    return keras.Model({"a": a, "b": b}, [keras.layers.Dense(1, name="y1")(hidden),
                                          keras.layers.Dense(2, name="y2")(hidden_b)], name="two_heads")


def subclassed(lib):
    _, sub_class, _ = custom_classes(lib)
    model = sub_class(2)
    model(X3)
    return model


def dense_pair(lib, first_units, second_units, use_bias=True):
    """Input(3) -> Dense(first_units) -> Dense(second_units)."""
    keras = lib.keras
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(first_units, use_bias=use_bias),
                             keras.layers.Dense(second_units)])


INPUTS = {sequential: X3, functional: {"a": X3, "b": X2}, subclassed: X3}


def outputs(model, inputs):
    """The model's outputs on ``inputs`` as a list of numpy arrays."""
    result = model(inputs)
    return [np.asarray(o) for o in (result if isinstance(result, (list, tuple)) else [result])]


def without_shared_ids(config):
    """``config`` without Keras' ``shared_object_id`` entries (memory addresses of the saving process)."""
    if isinstance(config, dict):
        return {k: without_shared_ids(v) for k, v in config.items() if k != "shared_object_id"}
    if isinstance(config, list):
        return [without_shared_ids(v) for v in config]
    return config


# -- comparing outcomes --------------------------------------------------------------------------------------------
def outcome(fn, lib, *args):
    """``fn(lib, *args)`` after a session reset; an exception as ``("raised", type name, message)`` (messages
    without the values that differ between processes and libraries: memory addresses in ``shared_object_id``,
    the module paths of classes, the reprs of functions)."""
    reset(lib)
    try:
        return fn(lib, *args)
    except Exception as e:  # compared with the other library's
        message = re.sub(r"'shared_object_id': \d+", "'shared_object_id': ID", str(e))
        message = re.sub(r"<function [\w.<>]+ at 0x[0-9a-f]+>", "<function>", message)
        return ("raised", type(e).__name__, re.sub(r"<class '[\w.]+\.(\w+)'>", r"<class \1>", message))


def same_outcome(fn, *args):
    """``fn`` gives the same result (arrays compared exactly) or error in both libraries; returns vfw's."""
    real, ours = outcome(fn, REAL, *args), outcome(fn, VFW, *args)
    assert_same(comparable(real), comparable(ours), rtol=0, atol=0)
    return ours
