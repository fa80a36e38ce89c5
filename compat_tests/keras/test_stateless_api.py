"""Keras' stateless API and state tree against Keras 3.15.1: ``Layer.stateless_call``,
``Model.stateless_compute_loss``, ``get_state_tree`` / ``set_state_tree``, ``distribute_reduction_method``,
``unrolled_steps_per_execution``."""

import numpy as np

from compat_tests.keras.core_harness import same

X = np.random.default_rng(0).normal(size=(4, 3)).astype("float32")
Y = np.random.default_rng(1).normal(size=(4, 2)).astype("float32")


def _model(lib, regularizer=None):
    """Dense -> BatchNormalization -> Dense with deterministic weights (no RNG involved)."""
    inputs = lib.keras.Input((3,))
    hidden = lib.keras.layers.Dense(4, kernel_regularizer=regularizer)(inputs)
    hidden = lib.keras.layers.BatchNormalization()(hidden)
    model = lib.keras.Model(inputs, lib.keras.layers.Dense(2)(hidden))
    model.set_weights([np.linspace(-1, 1, w.size, dtype="float32").reshape(w.shape) + i
                       for i, w in enumerate(model.get_weights())])
    return model


def _given_values(model):
    trainable = [np.full(v.shape, 0.1 * (i + 1), "float32") for i, v in enumerate(model.trainable_variables)]
    non_trainable = [np.full(v.shape, 0.5, "float32") for v in model.non_trainable_variables]
    return trainable, non_trainable


def test_stateless_call_training_updates_only_returned_state():
    def fn(lib):
        model = _model(lib)
        trainable, non_trainable = _given_values(model)
        outputs, new_non_trainable = model.stateless_call(trainable, non_trainable, X, training=True)
        unchanged = [v.numpy() for v in model.weights]
        return outputs, new_non_trainable, unchanged, model(X)

    same(fn)


def test_stateless_call_inference_and_losses():
    def fn(lib):
        model = _model(lib, regularizer=lib.keras.regularizers.L2(0.5))
        trainable, non_trainable = _given_values(model)
        outputs, new_non_trainable, losses = model.stateless_call(trainable, non_trainable, X, return_losses=True)
        return outputs, new_non_trainable, len(losses), model.losses[0]

    same(fn)


def test_stateless_call_on_a_layer_returns_the_given_state():
    def fn(lib):
        layer = lib.keras.layers.BatchNormalization()
        layer.build((None, 3))
        outputs, new_values = layer.stateless_call([np.ones(3, "float32")] * 2, [np.zeros(3, "float32")] * 2, X)
        return outputs, [v is None for v in new_values]

    same(fn)


def test_stateless_call_errors():
    def wrong_count(lib):
        model = _model(lib)
        trainable, non_trainable = _given_values(model)
        return model.stateless_call(trainable[:1], non_trainable, X)

    def wrong_non_trainable_count(lib):
        model = _model(lib)
        trainable, non_trainable = _given_values(model)
        return model.stateless_call(trainable, non_trainable + non_trainable, X)

    def unbuilt(lib):
        return lib.keras.layers.Dense(2).stateless_call([], [], X)

    for fn in (wrong_count, wrong_non_trainable_count, unbuilt):
        assert same(fn)[1] == "ValueError"


def test_stateless_compute_loss_updates_metric_state():
    def fn(lib):
        model = _model(lib)
        model.compile("sgd", "mse", metrics=["mae"])
        model.evaluate(X, Y, verbose=0)
        trainable, non_trainable = _given_values(model)
        metrics = [v.numpy() for v in model.metrics_variables]
        y_pred = model(X)
        loss, (new_trainable, new_non_trainable, new_metrics) = model.stateless_compute_loss(
            trainable, non_trainable, metrics, X, Y, y_pred)
        return (loss, new_trainable, new_non_trainable, new_metrics, [v.path for v in model.metrics_variables],
                [v.numpy() for v in model.metrics_variables])

    same(fn)


def _flat_tree(tree, prefix=""):
    """``{path: numpy value}`` of a state tree, keys in the tree's order."""
    flat = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(_flat_tree(value, f"{prefix}{key}/"))
        else:
            flat[prefix + key] = np.asarray(value)
    return flat


def test_get_and_set_state_tree():
    def fn(lib):
        model = _model(lib)
        model.compile("adam", "mse", metrics=["mae"])
        model.fit(X, Y, epochs=1, verbose=0)
        tensors = _flat_tree(model.get_state_tree())
        tree = model.get_state_tree("numpy_array")
        tree["trainable_variables"]["dense"]["bias"] = np.ones(4, "float32")
        tree["optimizer_variables"]["adam"]["iteration"] = np.int64(7)
        model.set_state_tree(tree)
        return (list(tensors), list(_flat_tree(tree)), model.layers[1].bias.numpy(),
                model.optimizer.iterations.numpy())

    same(fn, rtol=1e-4, atol=1e-5)  # one adam step of float32 rounding


def test_state_tree_errors():
    def bad_format(lib):
        model = _model(lib)
        model.compile("adam", "mse")
        return model.get_state_tree("tensors")

    def unknown_kind(lib):
        model = _model(lib)
        return model.set_state_tree({"trainable_variables": {}, "buffers": {}})

    def duplicate_paths(lib):
        inputs = lib.keras.Input((3,))
        outputs = lib.keras.layers.Dense(2, name="d")(lib.keras.Model(inputs, lib.keras.layers.Dense(3, name="d")(
            inputs))(inputs))
        model = lib.keras.Model(inputs, outputs)
        model.compile("sgd", "mse")
        return model.get_state_tree()

    for fn in (bad_format, unknown_kind, duplicate_paths):
        assert same(fn)[1] == "ValueError"


def test_trainer_attributes():
    def fn(lib):
        model = _model(lib)
        before = model.unrolled_steps_per_execution
        try:
            model.distribute_reduction_method  # noqa: B018  (Keras 3.15.1 raises before assignment)
            unset = "no error"
        except AttributeError as e:
            unset = str(e)
        model.distribute_reduction_method = "sum"
        model.unrolled_steps_per_execution = 4
        return before, unset, model.distribute_reduction_method, model.unrolled_steps_per_execution

    same(fn)
