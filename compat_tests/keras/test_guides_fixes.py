"""Fixes found running the keras.io developer guides on vfw, against real Keras 3.15.1: the repr of a variable read
inside a tf.function, and which variables Dense, EinsumDense, convolutions and Embedding write with
``save_own_variables`` (Keras writes a fixed list, the kernel with any LoRA update merged in, not every variable a
subclass adds)."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW

LIBS = [REAL, VFW]


def _variable_reprs(lib):
    variable = lib.keras.Variable(np.array([1.5, -2.0], dtype="float32"), name="scale")
    seen = []

    @lib.tf.function
    def read(x):
        seen.append(repr(variable))
        return x * variable

    read(lib.tf.ones((2,)))
    return repr(variable), seen


def test_variable_repr_inside_tf_function_leaves_the_value_out():
    real_eager, real_traced = _variable_reprs(REAL)
    eager, traced = _variable_reprs(VFW)
    assert eager == real_eager
    assert traced == real_traced and "value=" not in traced[0]


def _layer_with_extra_variable(lib, base, *args, **kwargs):
    keras = lib.keras

    class WithExtra(base):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.extra = keras.Variable(np.full((2,), 0.5, dtype="float32"), name="extra")

    return WithExtra(*args, name="with_extra", **kwargs)


LAYERS = {
    "dense": (lambda lib: lib.keras.layers.Dense(2), (None, 3)),
    "dense_no_bias": (lambda lib: lib.keras.layers.Dense(2, use_bias=False), (None, 3)),
    "dense_extra": (lambda lib: _layer_with_extra_variable(lib, lib.keras.layers.Dense, 2), (None, 3)),
    "conv_extra": (lambda lib: _layer_with_extra_variable(lib, lib.keras.layers.Conv1D, 2, 3), (None, 5, 3)),
    "einsum_extra": (lambda lib: _layer_with_extra_variable(lib, lib.keras.layers.EinsumDense, "ab,bc->ac", (2,),
                                                            bias_axes="c"), (None, 3)),
    "embedding_extra": (lambda lib: _layer_with_extra_variable(lib, lib.keras.layers.Embedding, 4, 2), (None, 3)),
    "unbuilt_dense": (lambda lib: lib.keras.layers.Dense(2), None),
}


def _saved(lib, name, lora=False):
    make, shape = LAYERS[name]
    layer = make(lib)
    if shape is not None:
        layer.build(shape)
        rng = np.random.default_rng(0)
        layer.set_weights([rng.normal(size=tuple(w.shape)).astype("float32") for w in layer.weights])
    if lora:
        layer.enable_lora(2)
        for w in (layer.lora_kernel_a, layer.lora_kernel_b):
            w.assign(np.random.default_rng(1).normal(size=tuple(w.shape)).astype("float32"))
    store = {}
    layer.save_own_variables(store)
    return layer, {key: np.asarray(value) for key, value in store.items()}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_save_own_variables_writes_keras_list(name):
    _, real_store = _saved(REAL, name)
    _, store = _saved(VFW, name)
    assert sorted(store) == sorted(real_store)
    for key in real_store:
        np.testing.assert_array_equal(store[key], real_store[key])


def _load_outcome(lib, name, store):
    layer = LAYERS[name][0](lib)
    layer.build(LAYERS[name][1])
    try:
        layer.load_own_variables(store)
    except ValueError as error:
        return "ValueError", str(error)
    return [np.asarray(w) for w in layer.weights]


@pytest.mark.parametrize("name", ["dense", "dense_extra", "conv_extra", "embedding_extra"])
def test_load_own_variables_reads_keras_list(name):
    _, real_store = _saved(REAL, name)
    real = _load_outcome(REAL, name, real_store)
    ours = _load_outcome(VFW, name, real_store)
    if isinstance(real, tuple):
        assert ours == real
    else:
        assert len(ours) == len(real)
        for a, b in zip(ours, real):
            np.testing.assert_array_equal(a, b)


def test_lora_dense_saves_the_merged_kernel_and_loads_with_zeroed_factors():
    _, real_store = _saved(REAL, "dense", lora=True)
    _, store = _saved(VFW, "dense", lora=True)
    assert sorted(store) == sorted(real_store)
    for key in real_store:
        np.testing.assert_allclose(store[key], real_store[key], rtol=1e-6, atol=1e-6)
    loaded = {}
    for lib in LIBS:
        layer, _ = _saved(lib, "dense", lora=True)
        layer.load_own_variables(real_store)
        loaded[lib.name] = [np.asarray(w) for w in layer.weights] + [np.asarray(layer.kernel)]
    assert len(loaded["vfw"]) == len(loaded["real"])
    for a, b in zip(loaded["vfw"], loaded["real"]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
