"""keras.Layer against real Keras 3.15.1: names, weights and their order, building, calling, masks, losses,
input specs, configs, dtype policies and Keras' errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, run, same


def _classes(lib):
    """Custom layers written once against ``lib.keras``."""
    keras = lib.keras

    class Scale(keras.layers.Layer):
        def __init__(self, units=2, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones", name="w")
            self.count = self.add_weight(shape=(), initializer="zeros", trainable=False, name="count")
            self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b")

        def call(self, inputs):
            return lib.tf.matmul(inputs, self.w) + self.b

    class Block(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.first = keras.layers.Dense(3)
            self.pair = [keras.layers.Dense(2), Scale(2)]
            self.named = {"z": keras.layers.Dense(1), "a": keras.layers.Dense(2)}

        def call(self, x):
            y = self.pair[1](self.pair[0](self.first(x)))
            return self.named["z"](y) + self.named["a"](y)

    class TrainingProbe(keras.layers.Layer):
        def call(self, x, training=None):
            return x + (1.0 if training else 0.0)

    class DefaultTrue(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.probe = TrainingProbe()

        def call(self, x, training=True):
            return self.probe(x) * 10.0

    return Scale, Block, TrainingProbe, DefaultTrue


def test_auto_names():
    def fn(lib):
        Scale, Block, _, _ = _classes(lib)
        layers = [lib.keras.layers.Dense(1), lib.keras.layers.Dense(1), Scale(), Scale(name="mine"), Block(),
                  lib.keras.layers.Dense(1, name="dense_9"), lib.keras.layers.Dense(1)]
        return [layer.name for layer in layers] + [repr(layers[0]), str(layers[2])]
    same(fn)


def test_weights_order_paths_and_counts():
    x = data(2, 4)

    def fn(lib):
        _, Block, _, _ = _classes(lib)
        block = Block()
        before = (len(block.weights), block.built)
        y = block(x)
        return [before, y.shape, [w.path for w in block.weights], [w.name for w in block.trainable_weights],
                [w.path for w in block.non_trainable_weights], [v.path for v in block.variables],
                [layer.name for layer in block._flatten_layers()], block.count_params(), block.built]
    same(fn)


def test_trainable_flag_is_recursive():
    x = data(2, 4)

    def fn(lib):
        _, Block, _, _ = _classes(lib)
        block = Block()
        block(x)
        block.trainable = False
        frozen = ([w.path for w in block.trainable_weights], len(block.non_trainable_weights),
                  block.first.trainable, block.pair[1].w.trainable)
        block.trainable = True
        return [frozen, len(block.trainable_weights), [w.path for w in block.non_trainable_weights]]
    same(fn)


def test_layer_constructed_untrainable():
    def fn(lib):
        Scale, _, _, _ = _classes(lib)
        layer = Scale(trainable=False)
        layer(np.ones((1, 3), "float32"))
        return [layer.trainable, [w.trainable for w in layer.weights], len(layer.trainable_weights)]
    same(fn)


def test_get_set_weights_and_errors():
    def fn(lib):
        dense = lib.keras.layers.Dense(2)
        dense.build((None, 3))
        values = [np.arange(6, dtype="float32").reshape(3, 2), np.array([1.0, -1.0], "float32")]
        dense.set_weights(values)
        out = [dense.get_weights(), dense(np.ones((1, 3), "float32"))]
        for bad in ([values[0]], [values[0].T, values[1]]):
            try:
                dense.set_weights(bad)
            except ValueError as e:
                out.append(str(e))
        return out
    same(fn)


def test_build_config_and_manual_build():
    def fn(lib):
        Scale, _, _, _ = _classes(lib)
        a = Scale()
        unbuilt = a.get_build_config()
        a.build((None, 5))
        b = Scale()
        b(np.ones((2, 3), "float32"))
        c = Scale()
        c.build_from_config({"input_shape": (None, 7)})
        return [unbuilt, a.get_build_config(), b.get_build_config(), a.built, c.w.shape, a.count_params(),
                a.path, a.w.path]
    same(fn)


def test_count_params_unbuilt_error():
    same(lambda lib: lib.keras.layers.Dense(2, name="d").count_params())


def test_training_flag_propagation():
    x = np.zeros((1, 2), "float32")

    def fn(lib):
        _, _, TrainingProbe, DefaultTrue = _classes(lib)
        probe, outer = TrainingProbe(), DefaultTrue()
        return [probe(x), probe(x, training=True), probe(x, training=False), outer(x), outer(x, training=False),
                outer(x, training=True)]
    same(fn)


def test_masks_flow_from_embedding():
    ids = np.array([[3, 0, 2, 0], [1, 2, 0, 0]], "int32")

    def fn(lib):
        class MaskUser(lib.keras.layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.supports_masking = True

            def call(self, x, mask=None):
                return x * lib.tf.cast(mask, x.dtype)[..., None]

        embedding = lib.keras.layers.Embedding(5, 3, mask_zero=True, embeddings_initializer="ones")
        user = MaskUser()
        y = user(embedding(ids))
        dense = lib.keras.layers.Dense(2, kernel_initializer="ones")
        z = dense(y)
        return [y, y._keras_mask, z._keras_mask, embedding.compute_mask(ids)]
    same(fn)


def test_losses_from_add_loss_and_regularizers():
    x = data(3, 4)

    def fn(lib):
        class WithLoss(lib.keras.layers.Layer):
            def call(self, inputs):
                self.add_loss(lib.tf.reduce_sum(inputs))
                return inputs * 2.0

        class Outer(lib.keras.layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.inner = WithLoss()
                self.dense = lib.keras.layers.Dense(2, kernel_initializer="ones", kernel_regularizer="l2",
                                                    activity_regularizer="l1")

            def call(self, inputs):
                return self.dense(self.inner(inputs))

        outer = Outer()
        outer(x)
        first = outer.losses
        outer(x[:2])
        return [first, outer.losses, outer.inner.losses, outer.dense.losses]
    same(fn)


@pytest.mark.parametrize("case", ["min_ndim", "axis", "ndim", "dtype", "shape", "count", "max_ndim"])
def test_input_spec_errors(case):
    def fn(lib):
        keras = lib.keras
        if case in ("min_ndim", "axis"):
            dense = keras.layers.Dense(2, name="d")
            dense(np.ones((1, 3), "float32"))
            return dense(np.ones((3,), "float32") if case == "min_ndim" else np.ones((1, 4), "float32"))
        spec = {"ndim": keras.InputSpec(ndim=3), "dtype": keras.InputSpec(dtype="int32"),
                "shape": keras.InputSpec(shape=(None, 4)), "count": [keras.InputSpec(), keras.InputSpec()],
                "max_ndim": keras.InputSpec(max_ndim=1)}[case]

        class Checked(keras.layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.input_spec = spec

            def call(self, x):
                return x

        return Checked(name="checked")(np.ones((2, 3), "float32"))
    same(fn)


def test_input_spec_object():
    def fn(lib):
        spec = lib.keras.InputSpec(shape=(None, 3), dtype="float32", axes={-1: 3})
        other = lib.keras.InputSpec(min_ndim=2, max_ndim=4)
        return [repr(spec), spec.ndim, spec.get_config(), repr(other), repr(lib.keras.InputSpec())]
    same(fn)


def test_custom_layer_config_round_trip():
    def fn(lib):
        Scale, _, _, _ = _classes(lib)
        layer = Scale(units=3, name="s", dtype="float64", trainable=False)
        config = layer.get_config()
        clone = Scale.from_config(config)
        return [config, clone.get_config(), clone.dtype, clone.trainable]
    same(fn)


def test_config_errors_for_unserializable_arguments():
    def fn(lib):
        class Holder(lib.keras.layers.Layer):
            def __init__(self, inner, **kwargs):
                super().__init__(**kwargs)
                self.inner = inner

        return Holder(lib.keras.layers.Dense(1)).get_config()
    real, ours = run(fn, REAL), run(fn, VFW)
    assert real[:2] == ours[:2] == ("raised", "NotImplementedError")
    assert "non-serializable argument values" in real[2] and "non-serializable argument values" in ours[2]


def test_mixed_precision_policy():
    x = data(2, 3)

    def fn(lib):
        dense = lib.keras.layers.Dense(2, dtype="mixed_float16", kernel_initializer="ones")
        y = dense(x)
        double = lib.keras.layers.Dense(2, dtype="float64", kernel_initializer="ones")
        z = double(x)
        policy = lib.keras.DTypePolicy("mixed_bfloat16")
        return [y.dtype.name, dense.kernel.dtype, dense.dtype, dense.compute_dtype, dense.variable_dtype,
                repr(dense.dtype_policy), dense.get_config()["dtype"], y, z.dtype.name, z, repr(policy),
                policy.compute_dtype, policy.variable_dtype, policy.get_config()]
    same(fn, rtol=1e-3, atol=1e-3)


def test_global_dtype_policy():
    def fn(lib):
        lib.keras.config.set_dtype_policy("mixed_float16")
        try:
            dense = lib.keras.layers.Dense(1)
            return [repr(lib.keras.config.dtype_policy()), dense.compute_dtype, dense.dtype]
        finally:
            lib.keras.config.set_dtype_policy("float32")
    same(fn)


@pytest.mark.parametrize("name", ["foo", "mixed_int8"])
def test_dtype_policy_errors(name):
    same(lambda lib: lib.keras.layers.Dense(1, dtype=name))


def test_state_locked_after_build():
    def fn(lib):
        class Late(lib.keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(1,), name="w")

            def call(self, x):
                self.extra = self.add_weight(shape=(1,), name="extra")
                return x

        return Late()(np.ones((1, 1), "float32"))
    same(fn)


def test_forgotten_super_init():
    def fn(lib):
        class Broken(lib.keras.layers.Layer):
            def __init__(self):
                pass

            def call(self, x):
                return x

        return Broken()(np.ones((1, 1), "float32"))
    same(fn)


def test_call_argument_errors():
    def fn(lib):
        out = []
        try:
            lib.keras.layers.Dense(1, foo=3)
        except ValueError as e:
            out.append(str(e))
        try:
            lib.keras.layers.Identity()(np.ones((1, 2), "float32"), 3)
        except Exception as e:
            out.append(type(e).__name__)
        try:
            lib.keras.layers.Layer()(np.ones((1, 2), "float32"))
        except NotImplementedError as e:
            out.append(str(e))
        return out
    same(fn)


def test_add_weight_arguments():
    def fn(lib):
        class Weights(lib.keras.layers.Layer):
            def build(self, input_shape):
                self.a = self.add_weight(shape=(2,), name="a")
                self.b = self.add_weight(shape=(2,), dtype="int32", name="b")
                self.c = self.add_weight((3,), "ones", "float64", name="c")
                self.d = self.add_weight(name="d")

            def call(self, x):
                return x

        layer = Weights()
        layer.build(None)
        errors = []
        for args in (("a",), ((2,),)):
            try:
                layer._tracker.unlock()
                layer.add_weight(*args, shape=(1,) if args != ("a",) else None)
            except ValueError as e:
                errors.append(str(e))
        return [[(w.name, w.dtype, tuple(w.shape)) for w in layer.weights], layer.b.numpy(), layer.c.numpy(),
                errors]
    same(fn)


def test_symbolic_call_of_custom_layer_infers_shapes():
    def fn(lib):
        class Outer(lib.keras.layers.Layer):
            def call(self, x):
                return lib.keras.ops.concatenate([x, x * 2.0], axis=-1)[:, :, :3]

        x = lib.keras.Input((None, 4))
        y = Outer()(x)
        return [y.shape, y.dtype, y.name]
    same(fn)


def test_multiple_tensor_arguments_and_nested_inputs():
    a, b = data(2, 3), data(2, 4, seed=1)

    def fn(lib):
        keras = lib.keras

        class Pair(keras.layers.Layer):
            def build(self, a_shape, b_shape):
                self.w = self.add_weight(shape=(a_shape[-1] + b_shape[-1], 2), initializer="ones", name="w")

            def call(self, a, b):
                return lib.tf.matmul(lib.tf.concat([a, b], axis=-1), self.w)

        class Listed(keras.layers.Layer):
            def build(self, input_shape):
                self.shapes = [tuple(s) for s in input_shape]

            def call(self, inputs):
                return inputs[0] * 2.0, inputs[1]

            def compute_output_shape(self, input_shape):
                return [tuple(input_shape[0]), tuple(input_shape[1])]

        pair, listed = Pair(), Listed()
        out = [pair(a, b), pair(a, b=b), pair.get_build_config(), listed([a, b]), listed.shapes,
               listed.get_build_config()]
        sa, sb = keras.Input((3,)), keras.Input((4,))
        symbolic = listed([sa, sb])
        out += [[t.shape for t in symbolic], pair(sa, sb).shape, type(symbolic).__name__]
        return out
    same(fn)


def test_training_passed_to_layer_without_training_argument():
    x = np.zeros((1, 2), "float32")

    def fn(lib):
        keras = lib.keras

        class Probe(keras.layers.Layer):
            def call(self, x, training=None):
                return x + (1.0 if training else 0.0)

        class Plain(keras.layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.probe = Probe()

            def call(self, x):
                return self.probe(x)

        plain = Plain()
        return [plain(x), plain(x, training=True), plain(x, training=False)]
    same(fn)


def test_tracking_of_containers_mutated_after_assignment():
    def fn(lib):
        keras = lib.keras

        class Holder(keras.layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.blocks = []
                self.table = {}
                self.blocks.append(keras.layers.Dense(2))
                self.blocks.extend([keras.layers.Dense(3), keras.layers.Dense(4)])
                self.table["b"] = keras.layers.Dense(5)
                self.table["a"] = keras.layers.Dense(6)
                self.blocks.pop(1)
                self.pair = (keras.layers.Dense(7), keras.layers.Dense(8))
                self.w = keras.Variable(np.ones(2, "float32"), name="w")

            def call(self, x):
                for layer in self.blocks:
                    x = layer(x)
                return x

        holder = Holder()
        names = [layer.name for layer in holder._layers]
        del holder.w
        return [names, [v.name for v in holder.weights]]
    same(fn)
