"""Core layers (Dense, EinsumDense, Embedding, Identity, Lambda, Masking) against real Keras 3.15.1: outputs and
gradients with copied weights, weight names/shapes, configs, masks and errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, run, same


def _outputs_and_gradients(lib, make_layer, inputs, weights, float_input=True):
    """The layer's output on ``inputs`` (weights set to ``weights``) and the gradients of a weighted sum of
    the output with respect to the weights and (float) inputs."""
    layer = make_layer(lib)
    layer(inputs)
    layer.set_weights(weights)
    x = lib.tf.constant(inputs)
    with lib.tf.GradientTape() as tape:
        if float_input:
            tape.watch(x)
        y = layer(x)
        ramp = lib.tf.reshape(lib.tf.cast(lib.tf.range(1, 1 + lib.tf.size(y)), y.dtype), lib.tf.shape(y))
        loss = lib.tf.reduce_sum(y * ramp / lib.tf.cast(lib.tf.size(y), y.dtype))
    sources = list(layer.trainable_weights) + ([x] if float_input else [])
    gradients = [lib.tf.convert_to_tensor(g) for g in tape.gradient(loss, sources)]  # TF: IndexedSlices of gathers
    return [y, [w.path for w in layer.weights]] + gradients


DENSE_CASES = {
    "plain": (lambda lib: lib.keras.layers.Dense(3), (4, 5)),
    "relu_no_bias": (lambda lib: lib.keras.layers.Dense(3, activation="relu", use_bias=False), (4, 5)),
    "3d": (lambda lib: lib.keras.layers.Dense(2, activation="tanh"), (2, 3, 5)),
}


@pytest.mark.parametrize("case", sorted(DENSE_CASES))
def test_dense(case):
    make, shape = DENSE_CASES[case]
    x = data(*shape)
    weights = [data(5, DENSE_CASES[case][0](VFW).units, seed=1), data(DENSE_CASES[case][0](VFW).units, seed=2)]
    if case == "relu_no_bias":
        weights = weights[:1]
    same(lambda lib: _outputs_and_gradients(lib, make, x, weights))


def test_dense_default_initialization_matches_keras_seeded():
    def fn(lib):
        lib.keras.utils.set_random_seed(1)
        layer = lib.keras.layers.Dense(3)
        layer.build((None, 4))
        return layer.get_weights()
    same(fn)


def test_dense_config_and_round_trip():
    def fn(lib):
        keras = lib.keras
        layer = keras.layers.Dense(4, activation="relu", use_bias=False, kernel_initializer="he_normal",
                                   kernel_regularizer=keras.regularizers.L2(0.01), name="fc")
        config = layer.get_config()
        clone = keras.layers.Dense.from_config(config)
        lora = keras.layers.Dense(2, lora_rank=2).get_config()
        return [config, clone.get_config(), lora, keras.layers.deserialize(keras.layers.serialize(layer)).name]
    same(fn)


def test_dense_lora():
    x = data(3, 4)

    def fn(lib):
        layer = lib.keras.layers.Dense(2, lora_rank=2, lora_alpha=4)
        layer.build((None, 4))
        layer.set_weights([data(4, 2, seed=1), data(2, seed=2), data(4, 2, seed=3), data(2, 2, seed=4)])
        return [[(w.path, w.trainable) for w in layer.weights], layer(x), layer.kernel]
    same(fn)


@pytest.mark.parametrize("units", [0, -1, 2.5])
def test_dense_invalid_units(units):
    same(lambda lib: lib.keras.layers.Dense(units))


def test_dense_mixed_precision_gradients():
    x = data(2, 3)
    weights = [data(3, 2, seed=1), data(2, seed=2)]
    same(lambda lib: _outputs_and_gradients(
        lib, lambda lib: lib.keras.layers.Dense(2, dtype="mixed_float16"), x, weights), rtol=2e-3, atol=2e-3)


EINSUM_CASES = {
    "matrix": ("ab,bc->ac", 4, "c", (3, 5)),
    "sequence": ("abc,cd->abd", (None, 4), "d", (2, 3, 5)),
    "ellipsis": ("...b,bc->...c", 4, None, (2, 3, 5)),
    "heads": ("abc,cde->abde", (None, 2, 3), "de", (2, 4, 5)),
}


@pytest.mark.parametrize("case", sorted(EINSUM_CASES))
def test_einsum_dense(case):
    equation, output_shape, bias_axes, shape = EINSUM_CASES[case]
    x = data(*shape)

    def make(lib):
        return lib.keras.layers.EinsumDense(equation, output_shape=output_shape, bias_axes=bias_axes,
                                           activation="relu")

    probe = make(VFW)
    probe.build(shape)
    weights = [data(*w.shape, seed=i + 1) for i, w in enumerate(probe.weights)]
    same(lambda lib: _outputs_and_gradients(lib, make, x, weights) + [make(lib).compute_output_shape(shape)])


def test_einsum_dense_config_and_symbolic_shape():
    def fn(lib):
        layer = lib.keras.layers.EinsumDense("abc,cd->abd", output_shape=(None, 6), bias_axes="d")
        y = layer(lib.keras.Input((3, 4)))
        return [layer.get_config(), y.shape, [tuple(w.shape) for w in layer.weights], layer.kernel.path]
    same(fn)


@pytest.mark.parametrize("case", ["bad_equation", "bad_bias", "bad_shape"])
def test_einsum_dense_errors(case):
    def fn(lib):
        equation, output_shape, bias_axes = {"bad_equation": ("ab->b", 2, None), "bad_bias": ("ab,bc->ac", 2, "x"),
                                             "bad_shape": ("abc,cd->abd", (7, 2), None)}[case]
        return lib.keras.layers.EinsumDense(equation, output_shape, bias_axes=bias_axes)(np.ones((2, 3, 4), "float32"))
    real, ours = run(fn, REAL), run(fn, VFW)
    assert real[:2] == ours[:2] and real[0] == "raised"
    assert real[2].split("\x1b[1m")[-1].split("\x1b[0m")[0] == ours[2].split("\x1b[1m")[-1].split("\x1b[0m")[0]


def test_embedding():
    ids = np.array([[1, 0, 4], [3, 3, 0]], "int32")
    table = data(5, 3)
    same(lambda lib: _outputs_and_gradients(lib, lambda lib: lib.keras.layers.Embedding(5, 3), ids, [table],
                                            float_input=False))


def test_embedding_masks_configs_and_errors():
    ids = np.array([[1, 0, 4], [3, 3, 0]], "int64")

    def fn(lib):
        keras = lib.keras
        layer = keras.layers.Embedding(5, 2, mask_zero=True, name="emb")
        y = layer(ids)
        float_ids = layer(ids.astype("float32"))
        symbolic = layer(keras.Input((None,), dtype="int32"))
        errors = []
        for args in ((0, 2), (5, -1), (True, 2)):
            try:
                keras.layers.Embedding(*args)
            except ValueError as e:
                errors.append(str(e))
        return [y._keras_mask, layer.compute_mask(ids), float_ids.shape, symbolic.shape, symbolic._keras_mask.shape,
                symbolic._keras_mask.dtype, layer.get_config(), [w.path for w in layer.weights], errors,
                layer.embeddings.shape]
    same(fn)


def test_identity_and_masking():
    x = data(2, 4, 3)
    x[0, 1] = 0.0
    x[1, 3] = 0.0

    def fn(lib):
        keras = lib.keras
        masking = keras.layers.Masking(mask_value=0.0)
        y = masking(x)
        z = keras.layers.Identity()(y)
        symbolic = keras.layers.Identity()(keras.Input((4, 3)))
        return [y, y._keras_mask, z._keras_mask, masking.compute_mask(x), masking.get_config(),
                keras.layers.Identity(name="i").get_config(), symbolic.shape, masking.built]
    same(fn)


def test_lambda_layer():
    x = data(2, 3)

    def fn(lib):
        keras = lib.keras

        def scale(t, factor=1.0):
            return t * factor

        doubled = keras.layers.Lambda(lambda t: t * 2.0)
        scaled = keras.layers.Lambda(scale, arguments={"factor": 3.0}, output_shape=(3,))
        shaped = keras.layers.Lambda(lambda t: lib.tf.concat([t, t], axis=-1))
        inputs = keras.Input((3,))
        model = keras.Model(inputs, shaped(scaled(doubled(inputs))))
        return [doubled(x), scaled(x), model(x), model.output_shape, scaled.compute_output_shape((None, 3)),
                scaled.get_config()["arguments"], "function" in doubled.get_config()]
    same(fn)


def test_lambda_config_safety():
    def fn(lib):
        keras = lib.keras
        layer = keras.layers.Lambda(lambda t: t + 1.0, name="plus")
        config = layer.get_config()
        out = [config["function"]["class_name"], config["name"]]
        try:
            keras.layers.Lambda.from_config(config)
        except ValueError as e:
            out.append(str(e))
        clone = keras.layers.Lambda.from_config(dict(config), safe_mode=False)
        out.append(clone(np.ones((1, 2), "float32")))
        return out
    same(fn)


def test_dense_and_einsum_dense_promote_inputs():
    def fn(lib):
        keras = lib.keras
        dense = keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="ones")
        einsum = keras.layers.EinsumDense("ab,bc->ac", 2, bias_axes="c", kernel_initializer="ones")
        ints, doubles = np.arange(6, dtype="int32").reshape(2, 3), np.ones((2, 3), "float64")
        out = [dense(ints), dense(doubles), einsum(ints), dense(np.ones((2, 4, 3), "int64"))]
        try:
            dense([[1, 2, 3]])
        except ValueError as e:
            out.append(str(e))
        return out
    same(fn)
