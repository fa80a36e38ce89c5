"""``keras.saving.serialize_keras_object`` / ``deserialize_keras_object`` against real Keras 3.15.1: the same
configs for the same objects, configs of one library rebuilt by the other, shared objects, the registry, scopes,
safe mode and the errors."""

import copy
import json

import pytest

from compat_tests.keras.saving_harness import (
    REAL,
    VFW,
    custom_classes,
    outcome,
    reset,
    same_outcome,
    without_shared_ids,
)


def _plain(config):
    """A config as JSON has it (tuples as lists), without ``shared_object_id`` entries (memory addresses)."""
    return without_shared_ids(json.loads(json.dumps(config)))


def unregistered_function(x):
    return x + 1


def _model(lib):
    keras = lib.keras
    block_class, _, _ = custom_classes(lib)
    inputs = keras.Input((3,), name="x")
    hidden = keras.layers.Dense(4, kernel_regularizer=keras.regularizers.L2(0.01),
                                kernel_constraint=keras.constraints.MaxNorm(2.0))(inputs)
    return keras.Model(inputs, block_class(2)(hidden), name="m")


OBJECTS = {
    "initializer": lambda lib: lib.keras.initializers.GlorotUniform(seed=1),
    "variance_scaling": lambda lib: lib.keras.initializers.VarianceScaling(2.0, mode="fan_out",
                                                                          distribution="uniform"),
    "regularizer": lambda lib: lib.keras.regularizers.L1L2(l1=0.1, l2=0.2),
    "constraint": lambda lib: lib.keras.constraints.MinMaxNorm(0.5, 2.0),
    "activation": lambda lib: lib.keras.activations.gelu,
    "loss_function": lambda lib: lib.keras.losses.mean_squared_error,
    "loss": lambda lib: lib.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1),
    "metric": lambda lib: lib.keras.metrics.SparseCategoricalAccuracy(name="acc"),
    "optimizer": lambda lib: lib.keras.optimizers.Adam(
        lib.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5), amsgrad=True),
    "optimizer_with_function": lambda lib: lib.keras.optimizers.SGD(learning_rate=0.5, momentum=0.9),
    "layer": lambda lib: lib.keras.layers.Dense(3, activation="relu", bias_initializer="ones"),
    "embedding": lambda lib: lib.keras.layers.Embedding(10, 4, mask_zero=True),
    "dtype_policy": lambda lib: lib.keras.DTypePolicy("mixed_float16"),
    "seed_generator": lambda lib: lib.keras.random.SeedGenerator(7),
    "registered_layer": lambda lib: custom_classes(lib)[0](5, name="blk"),
    "registered_function": lambda lib: custom_classes(lib)[2],
    "unregistered_function": lambda lib: unregistered_function,
    "sequential": lambda lib: lib.keras.Sequential([lib.keras.Input((2,)), lib.keras.layers.Dense(1)]),
    "functional": _model,
    "nested_values": lambda lib: {"a": (1, 2.5, "s"), "b": [None, True], "c": {"d": lib.keras.initializers.Ones()}},
}


@pytest.mark.parametrize("make", OBJECTS.values(), ids=OBJECTS.keys())
def test_same_config_as_real_keras(make):
    same_outcome(lambda lib: _plain(lib.keras.saving.serialize_keras_object(make(lib))))


REBUILDABLE = {name: make for name, make in OBJECTS.items() if name != "unregistered_function"}


@pytest.mark.parametrize("make", REBUILDABLE.values(), ids=REBUILDABLE.keys())
@pytest.mark.parametrize("direction", ["real_to_vfw", "vfw_to_real"])
def test_configs_rebuild_in_the_other_library(make, direction):
    """A config written by one library gives, in the other, an object whose config is the same."""
    source, target = (REAL, VFW) if direction == "real_to_vfw" else (VFW, REAL)
    reset(source)
    config = json.loads(json.dumps(source.keras.saving.serialize_keras_object(make(source))))
    reset(target)
    rebuilt = target.keras.saving.deserialize_keras_object(copy.deepcopy(config))  # from_config may consume it
    assert _plain(target.keras.saving.serialize_keras_object(rebuilt)) == _plain(config)


def test_models_from_json_of_the_other_library():
    for source, target in ((REAL, VFW), (VFW, REAL)):
        reset(source)
        text = _model(source).to_json()
        reset(target)
        rebuilt = target.keras.models.model_from_json(text)
        assert _plain(json.loads(rebuilt.to_json())) == _plain(json.loads(text))


def _sharing_scope(lib):
    if lib is REAL:
        from keras.src.saving.serialization_lib import ObjectSharingScope
    else:
        from vfw.frontends.tensorflow.keras.src.utils.serialization import ObjectSharingScope
    return ObjectSharingScope()


def test_shared_objects():
    def fn(lib):
        saving = lib.keras.saving
        initializer = lib.keras.initializers.RandomNormal(seed=3)
        objects = [initializer, lib.keras.initializers.Zeros(), initializer]
        unscoped = saving.serialize_keras_object(objects)
        with _sharing_scope(lib):
            scoped = saving.serialize_keras_object(objects)
        ids = [config.get("shared_object_id") for config in scoped]
        with _sharing_scope(lib):
            rebuilt = saving.deserialize_keras_object(json.loads(json.dumps(scoped)))
        rebuilt_unscoped = saving.deserialize_keras_object(json.loads(json.dumps(scoped)))
        return (["shared_object_id" in config for config in unscoped], [i is not None for i in ids],
                ids[0] == ids[2], rebuilt[0] is rebuilt[2], rebuilt_unscoped[0] is rebuilt_unscoped[2])

    assert same_outcome(fn) == ([False] * 3, [True, False, True], True, True, False)


def test_registry_and_scopes():
    def fn(lib):
        saving = lib.keras.saving
        block_class, _, scale_fn = custom_classes(lib)

        class Unregistered(lib.keras.layers.Layer):
            pass

        config = json.loads(json.dumps(saving.serialize_keras_object(Unregistered(name="u"))))
        outside = outcome(lambda _: saving.deserialize_keras_object(config), lib)
        with saving.custom_object_scope({"Unregistered": Unregistered}):
            inside = type(saving.deserialize_keras_object(config)).__name__
            with lib.keras.saving.CustomObjectScope({}):  # scopes do not merge: the innermost one is in force
                nested = outcome(lambda _: saving.deserialize_keras_object(config), lib)
        by_argument = type(saving.deserialize_keras_object(config, custom_objects={"Unregistered": Unregistered}))
        saving.get_custom_objects()["Tests>Unregistered"] = Unregistered
        try:
            config["registered_name"] = "Tests>Unregistered"
            by_registry = type(saving.deserialize_keras_object(config)).__name__
        finally:
            del saving.get_custom_objects()["Tests>Unregistered"]
        return (outside, inside, nested, by_argument.__name__, by_registry,
                saving.get_registered_name(block_class), saving.get_registered_name(Unregistered),
                saving.get_registered_name(scale_fn), saving.get_registered_object("vfw_tests>Block") is block_class,
                saving.get_registered_object("Block"), saving.get_registered_object("x", custom_objects={"x": 1}),
                saving.get_registered_object("y", module_objects={"y": 2}))

    same_outcome(fn)


@pytest.mark.parametrize("config", [
    # A built-in function named by a "builtins" config is found in Keras' built-in modules.
    {"module": "builtins", "class_name": "function", "config": "softplus", "registered_name": "function"},
    {"module": "builtins", "class_name": "function", "config": "mean_absolute_error", "registered_name": "function"},
    # A registered function saved by name only (Keras <= 3.6) is found by its registered name's suffix.
    {"module": "builtins", "class_name": "function", "config": "scale_fn", "registered_name": "function"},
    {"module": "builtins", "class_name": "function", "config": "no_such_fn", "registered_name": "function"},
    {"module": "keras.src.models.functional", "class_name": "Functional", "registered_name": "Functional",
     "config": {"name": "f", "trainable": True, "layers": [
         {"module": "keras.layers", "class_name": "InputLayer", "registered_name": None, "name": "i",
          "config": {"batch_shape": [None, 2], "dtype": "float32", "sparse": False, "name": "i"},
          "inbound_nodes": []}], "input_layers": ["i", 0, 0], "output_layers": ["i", 0, 0]}},
    {"module": "keras.layers", "class_name": "Dense", "config": {"units": 2}, "registered_name": "x>Dense"},
    {"module": "keras.layers", "class_name": "Dense", "config": {"units": 2}, "registered_name": "Dense"},
    {"module": "keras.models", "class_name": "function", "config": "save_model", "registered_name": "save_model"},
    {"module": None, "class_name": "Mystery", "config": {}, "registered_name": "Mystery"},
    {"module": "builtins", "class_name": "function", "config": "unregistered_function", "registered_name": "function"},
], ids=lambda c: f"{c['module']}.{c['class_name']}:{c['config'] if isinstance(c['config'], str) else ''}")
def test_resolving_names(config):
    def fn(lib):
        obj = lib.keras.saving.deserialize_keras_object(copy.deepcopy(config))
        return getattr(obj, "__name__", None) or type(obj).__name__

    same_outcome(fn)


def test_lambdas_cross_libraries():
    """A lambda saved by one library loads in the other only with safe_mode=False (its code runs there)."""
    for source, target in ((REAL, VFW), (VFW, REAL)):
        reset(source)
        with pytest.warns(UserWarning, match="lambda"):
            config = json.loads(json.dumps(source.keras.saving.serialize_keras_object(lambda x, k=3: x * k)))
        reset(target)
        with pytest.raises(ValueError, match="Requested the deserialization of a Python lambda"):
            target.keras.saving.deserialize_keras_object(config)
        assert target.keras.saving.deserialize_keras_object(config, safe_mode=False)(2) == 6
        target.keras.config.enable_unsafe_deserialization()
        try:
            assert target.keras.saving.deserialize_keras_object(config)(5) == 15
        finally:
            target.keras.backend.clear_session(free_memory=False)


def test_safe_mode_reaches_nested_configs():
    """A Lambda layer inside a model config is refused by the same rule (``safe_mode`` flows to ``from_config``)."""
    def fn(lib):
        keras = lib.keras
        inputs = keras.Input((2,))
        model = keras.Model(inputs, keras.layers.Lambda(lambda x: x + 1.0)(inputs))
        config = json.loads(json.dumps(keras.saving.serialize_keras_object(model)))
        refused = outcome(lambda _: keras.saving.deserialize_keras_object(config), lib)
        loaded = keras.saving.deserialize_keras_object(config, safe_mode=False)
        return refused, [type(layer).__name__ for layer in loaded.layers]

    same_outcome(fn)


def test_unknown_internal_keras_classes():
    """Keras imports the internal module a config names; vfw imports nothing a config names: it resolves the
    internal classes it implements (``Functional``, the operations of ``keras.ops`` calls) and refuses others."""
    config = {"module": "keras.src.layers.core.dense", "class_name": "Mystery", "config": {}, "registered_name": None}
    with pytest.raises(TypeError, match="cannot be imported"):
        VFW.keras.saving.deserialize_keras_object(config)
