"""keras.quantizers, quantized dtype policies and int8 ``quantize`` against real Keras 3.15.1."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")

import vfw.tensorflow as vtf  # noqa: E402

vk = vtf.keras
RNG = np.random.default_rng(0)


def _variables(layer):
    return [(v.path, v.dtype, tuple(v.shape), v.trainable) for v in layer.variables]


def _dense_pair(units=5, in_dim=6, **kwargs):
    real, ours = keras.layers.Dense(units, **kwargs), vk.layers.Dense(units, **kwargs)
    real.build((None, in_dim))
    ours.build((None, in_dim))
    weights = [RNG.standard_normal(w.shape).astype("float32") for w in real.get_weights()]
    real.set_weights(weights)
    ours.set_weights(weights)
    return real, ours


def test_abs_max_quantize_matches():
    x = RNG.standard_normal((4, 7)).astype("float32")
    for axis in (0, -1):
        for to_numpy in (False, True):
            rq, rs = keras.quantizers.abs_max_quantize(x, axis, to_numpy=to_numpy)
            oq, os_ = vk.quantizers.abs_max_quantize(x, axis, to_numpy=to_numpy)
            np.testing.assert_array_equal(np.asarray(rq), oq.numpy())
            assert oq.dtype.name == "int8"
            np.testing.assert_allclose(np.asarray(rs), os_.numpy(), rtol=1e-6)


def test_quantizer_configs_serialize_like_keras():
    assert vk.quantizers.AbsMaxQuantizer().get_config() == keras.quantizers.AbsMaxQuantizer().get_config()
    assert (vk.quantizers.serialize(vk.quantizers.AbsMaxQuantizer(axis=0))
            == keras.quantizers.serialize(keras.quantizers.AbsMaxQuantizer(axis=0)))
    assert (vk.quantizers.serialize(vk.quantizers.Int8QuantizationConfig())
            == keras.quantizers.serialize(keras.quantizers.Int8QuantizationConfig()))
    restored = vk.quantizers.deserialize(vk.quantizers.serialize(vk.quantizers.AbsMaxQuantizer(axis=0)))
    assert restored.axis == (0,)
    assert isinstance(vk.quantizers.get("abs_max_quantizer"), vk.quantizers.AbsMaxQuantizer)
    with pytest.raises(ValueError):
        keras.quantizers.AbsMaxQuantizer(value_range=(-200, 127))
    with pytest.raises(ValueError):
        vk.quantizers.AbsMaxQuantizer(value_range=(-200, 127))


def test_pack_unpack_int4_match():
    x = RNG.integers(-8, 8, size=(5, 3)).astype("int8")
    for axis in (0, -1):
        real = keras.quantizers.pack_int4(x, axis=axis)
        ours = vk.quantizers.pack_int4(x, axis=axis)
        np.testing.assert_array_equal(np.asarray(real[0]), ours[0].numpy())
        assert tuple(real[1]) == tuple(ours[1]) and real[2] == ours[2]
        np.testing.assert_array_equal(vk.quantizers.unpack_int4(ours[0], ours[2], axis=axis).numpy(), x)


def test_float8_helpers_match():
    amax = np.array(3.0, "float32")
    for a in (amax, np.array(0.0, "float32"), np.array(np.inf, "float32")):
        real = keras.quantizers.compute_float8_scale(a, np.array(2.0, "float32"), np.array(448.0, "float32"))
        ours = vk.quantizers.compute_float8_scale(a, np.array(2.0, "float32"), np.array(448.0, "float32"))
        np.testing.assert_allclose(np.asarray(real), ours.numpy(), rtol=1e-6)
    history = np.arange(5, dtype="float32")
    x = RNG.standard_normal((3, 3)).astype("float32")
    np.testing.assert_array_equal(np.asarray(keras.quantizers.compute_float8_amax_history(x, history)),
                                  vk.quantizers.compute_float8_amax_history(x, history).numpy())


@pytest.mark.parametrize("name", ["int8_from_float32", "float8_from_mixed_bfloat16", "int4_from_float32",
                                  "int4/64_from_float32", "gptq/4/128_from_float32", "awq/4/-1_from_float32"])
def test_quantized_policies_match(name):
    real, ours = keras.dtype_policies.get(name), vk.dtype_policies.get(name)
    assert type(real).__name__ == type(ours).__name__
    assert (real.name, real.quantization_mode, real.compute_dtype, real.variable_dtype) == \
        (ours.name, ours.quantization_mode, ours.compute_dtype, ours.variable_dtype)
    assert repr(real) == repr(ours)
    assert keras.dtype_policies.serialize(real) == vk.dtype_policies.serialize(ours)
    assert vk.dtype_policies.deserialize(vk.dtype_policies.serialize(ours)) == ours


@pytest.mark.parametrize("name", ["int8_from_float16", "int8xx", "gptq/5/128_from_float32", "int4/0_from_float32"])
def test_bad_policies_raise_like_keras(name):
    with pytest.raises(ValueError):
        keras.dtype_policies.get(name)
    with pytest.raises(ValueError):
        vk.dtype_policies.get(name)


def test_dtype_policy_map():
    real = keras.dtype_policies.DTypePolicyMap(default_policy="bfloat16")
    ours = vk.dtype_policies.DTypePolicyMap(default_policy="bfloat16")
    for m in (real, ours):
        m["dense/kernel"] = "int8_from_float32"
    assert real.name == ours.name and len(real) == len(ours) and list(real) == list(ours)
    assert real.get_config() == ours.get_config()
    assert ours["other"].name == real["other"].name == "bfloat16"
    assert ours["dense/kernel"].name == "int8_from_float32"
    assert vk.dtype_policies.get(vk.dtype_policies.serialize(ours)).get_config() == ours.get_config()


def test_dense_int8_matches_keras():
    real, ours = _dense_pair(activation="relu")
    real.quantize("int8")
    ours.quantize("int8")
    assert [v[1:] for v in _variables(real)] == [v[1:] for v in _variables(ours)]
    assert [v.name for v in real.variables] == [v.name for v in ours.variables]
    for r, o in zip(real.get_weights(), ours.get_weights()):
        np.testing.assert_array_equal(r, o)
    assert repr(real.dtype_policy) == repr(ours.dtype_policy)
    x = RNG.standard_normal((3, 6)).astype("float32")
    np.testing.assert_allclose(np.asarray(real(x)), ours(x).numpy(), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError):
        ours.quantize("int8")


def test_dense_int8_gradients_match_keras():
    import tensorflow as tf

    real, ours = _dense_pair()
    real.quantize("int8")
    ours.quantize("int8")
    x = RNG.standard_normal((3, 6)).astype("float32")
    tx, vx = tf.constant(x), vtf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(tx)
        loss = tf.reduce_sum(real(tx) ** 2)
    real_grads = tape.gradient(loss, [tx, real.bias.value])
    with vtf.GradientTape() as tape:
        tape.watch(vx)
        loss = vtf.reduce_sum(ours(vx) ** 2)
    our_grads = tape.gradient(loss, [vx, ours.bias.value])
    for r, o in zip(real_grads, our_grads):
        np.testing.assert_allclose(r.numpy(), o.numpy(), rtol=1e-5, atol=1e-5)


def test_embedding_int8_matches_keras():
    real, ours = keras.layers.Embedding(7, 4), vk.layers.Embedding(7, 4)
    real.build()
    ours.build()
    weights = [RNG.standard_normal((7, 4)).astype("float32")]
    real.set_weights(weights)
    ours.set_weights(weights)
    real.quantize("int8")
    ours.quantize("int8")
    assert [v[1:] for v in _variables(real)] == [v[1:] for v in _variables(ours)]
    ids = np.array([[0, 3, 6], [1, 1, 2]], "int32")
    np.testing.assert_allclose(np.asarray(real(ids)), ours(ids).numpy(), rtol=1e-6)


def test_model_quantize_warns_and_saves_round_trip(tmp_path):
    def build(k):
        inputs = k.Input((6,))
        outputs = k.layers.Dense(3)(k.layers.BatchNormalization()(k.layers.Dense(5)(inputs)))
        return k.Model(inputs, outputs)

    real, ours = build(keras), build(vk)
    ours.set_weights(real.get_weights())
    with pytest.warns(UserWarning):
        real.quantize("int8")
    with pytest.warns(UserWarning):
        ours.quantize("int8")
    x = RNG.standard_normal((4, 6)).astype("float32")
    np.testing.assert_allclose(np.asarray(real(x)), ours(x).numpy(), rtol=1e-5, atol=1e-6)
    path = str(tmp_path / "q.keras")
    ours.save(path)
    loaded = vk.saving.load_model(path)
    assert loaded.layers[1].dtype_policy.name == "int8_from_float32"
    np.testing.assert_allclose(loaded(x).numpy(), ours(x).numpy(), rtol=1e-6)
    real_path = str(tmp_path / "real.keras")
    real.save(real_path)
    from_real = vk.saving.load_model(real_path)
    np.testing.assert_allclose(from_real(x).numpy(), np.asarray(real(x)), rtol=1e-5, atol=1e-6)
    to_real = keras.saving.load_model(path)
    np.testing.assert_allclose(np.asarray(to_real(x)), ours(x).numpy(), rtol=1e-5, atol=1e-6)


def test_unsupported_modes():
    with pytest.raises(ValueError):
        _dense_pair()[1].quantize("int2")
    unbuilt = vk.layers.Dense(3)
    with pytest.raises(ValueError):
        unbuilt.quantize("int8")


def test_remat_scope_and_device_match_keras():
    assert vk.RematScope(mode="full").__dict__ == keras.RematScope(mode="full").__dict__
    with pytest.raises(ValueError):
        keras.RematScope(mode="bad")
    with pytest.raises(ValueError):
        vk.RematScope(mode="bad")
    real, ours = _dense_pair()
    x = RNG.standard_normal((2, 6)).astype("float32")
    with keras.RematScope(mode="full"), vk.RematScope(mode="full"):
        np.testing.assert_allclose(np.asarray(keras.remat(real)(x)), vk.remat(ours)(x).numpy(), rtol=1e-6)
    with keras.device("cpu:0"), vk.device("cpu:0"):
        np.testing.assert_allclose(np.asarray(real(x)), ours(x).numpy(), rtol=1e-6)
