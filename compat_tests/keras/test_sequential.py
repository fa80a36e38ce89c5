"""keras.Sequential against real Keras 3.15.1: add/pop, deferred and explicit builds, shapes, outputs with
copied weights, configs, summaries and errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, copy_weights, data, run, same, summary_text


def _stack(lib, with_input=True):
    keras = lib.keras
    layers = [keras.layers.Dense(6, activation="relu"), keras.layers.Dense(3)]
    if with_input:
        layers.insert(0, keras.Input((4,)))
    return keras.Sequential(layers, name="stack")


@pytest.mark.parametrize("with_input", [True, False])
def test_structure(with_input):
    def fn(lib):
        model = _stack(lib, with_input)
        out = [model.built, [layer.name for layer in model.layers], [w.path for w in model.weights],
               len(model._layers)]
        if with_input:
            out += [model.input_shape, model.output_shape, [x.shape for x in model.inputs],
                    [x.shape for x in model.outputs], model.count_params()]
        else:
            for attribute in ("input_shape", "output_shape", "inputs", "outputs"):
                try:
                    getattr(model, attribute)
                except AttributeError as e:
                    out.append(str(e))
        return out
    same(fn)


def test_deferred_build_on_first_call():
    x = data(2, 4)

    def fn(lib):
        model = _stack(lib, with_input=False)
        y = model(x)
        return [y.shape, model.built, [w.path for w in model.weights], model.count_params(),
                [layer.name for layer in model.layers], summary_text(model)]
    same(fn)


def test_outputs_with_copied_weights():
    x = data(5, 4)
    for with_input in (True, False):
        REAL.keras.backend.clear_session(free_memory=False)
        VFW.keras.backend.clear_session(free_memory=False)
        real, ours = _stack(REAL, with_input), _stack(VFW, with_input)
        if not with_input:
            real.build((None, 4))
            ours.build((None, 4))
        copy_weights(real, ours)
        for training in (None, True, False):
            np.testing.assert_allclose(np.asarray(ours(x, training=training)), np.asarray(real(x, training=training)),
                                       rtol=1e-5, atol=1e-6)


def test_add_pop_and_rebuild():
    def fn(lib):
        keras = lib.keras
        model = keras.Sequential(name="grow")
        model.add(keras.Input((3,)))
        model.add(keras.layers.Dense(2))
        first = (model.built, model.output_shape)
        model.add(keras.layers.Dense(5))
        second = model.output_shape
        popped = model.pop()
        return [first, second, popped.name, model.output_shape, [layer.name for layer in model.layers],
                [w.path for w in model.weights]]
    same(fn)


def test_build_with_shape_and_input_shape_argument():
    def fn(lib):
        keras = lib.keras
        a = keras.Sequential([keras.layers.Dense(2), keras.layers.Dense(1)])
        a.build((None, 7))
        b = keras.Sequential([keras.layers.Dense(2, input_shape=(5,)), keras.layers.Dense(1)])
        return [a.built, a.input_shape, [w.shape for w in a.weights], b.built, b.input_shape,
                [layer.name for layer in b.layers]]
    same(fn)


def test_config_round_trip():
    def fn(lib):
        model = _stack(lib)
        config = model.get_config()
        clone = lib.keras.Sequential.from_config(config)
        unbuilt = _stack(lib, with_input=False).get_config()
        return [config, unbuilt, [layer.name for layer in clone.layers], clone.input_shape,
                [w.path for w in clone.weights]]
    same(fn)


@pytest.mark.parametrize("case", ["not_a_layer", "duplicate_name", "second_input", "build_other_shape",
                                  "empty_build"])
def test_errors(case):
    def fn(lib):
        keras = lib.keras
        model = keras.Sequential(name="s")
        if case == "not_a_layer":
            model.add(3)
        elif case == "duplicate_name":
            model.add(keras.layers.Dense(1, name="d"))
            model.add(keras.layers.Dense(1, name="d"))
        elif case == "second_input":
            model.add(keras.Input((2,)))
            model.add(keras.Input((3,)))
        elif case == "build_other_shape":
            model.add(keras.Input((2,)))
            model.add(keras.layers.Dense(1))
            model.build((None, 3))
        else:
            model.build((None, 3))
    real, ours = run(fn, REAL), run(fn, VFW)
    assert real[:2] == ours[:2] and real[0] == "raised"
    if case != "not_a_layer":  # Keras' message includes the type of the object
        assert real[2] == ours[2]


def test_summary_variants():
    def fn(lib):
        model = _stack(lib)
        model.layers[0].trainable = False
        return [summary_text(model), summary_text(model, show_trainable=True), summary_text(model, line_length=70),
                summary_text(model, positions=[0.5, 0.7, 1.0])]
    same(fn)


def test_layers_attribute_reserved():
    same(lambda lib: setattr(_stack(lib), "layers", []))


def test_summary_printed_to_stdout(capsys):
    outputs = []
    for lib in (REAL, VFW):
        lib.keras.backend.clear_session(free_memory=False)
        lib.keras.Sequential([lib.keras.layers.Dense(2), lib.keras.layers.Dense(1)], name="unbuilt").summary()
        _stack(lib).summary()
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
