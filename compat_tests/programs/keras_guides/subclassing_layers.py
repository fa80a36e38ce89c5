"""The keras.io guide "Making new layers and models via subclassing": Linear with add_weight, non-trainable
weights (ComputeSum), deferred build, nested layers (MLPBlock) and their weight tracking, add_loss activity
regularization and the losses property (reset at each call, kernel regularizers), losses used in fit(), get_config
and from_config, the training argument (CustomDropout), and the end-to-end VAE trained with a custom loop and
with fit()."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


class Linear(keras.layers.Layer):
    def __init__(self, units=32, input_dim=32):
        super().__init__()
        self.w = self.add_weight(shape=(input_dim, units), initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


class ComputeSum(keras.layers.Layer):
    def __init__(self, input_dim):
        super().__init__()
        self.total = self.add_weight(initializer="zeros", shape=(input_dim,), trainable=False)

    def call(self, inputs):
        self.total.assign_add(tf.reduce_sum(inputs, axis=0))
        return self.total


class LazyLinear(keras.layers.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="random_normal", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b

    def get_config(self):
        return {"units": self.units}


class MLPBlock(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.linear_1 = LazyLinear(32)
        self.linear_2 = LazyLinear(32)
        self.linear_3 = LazyLinear(1)

    def call(self, inputs):
        x = self.linear_1(inputs)
        x = tf.nn.relu(x)
        x = self.linear_2(x)
        x = tf.nn.relu(x)
        return self.linear_3(x)


class ActivityRegularizationLayer(keras.layers.Layer):
    def __init__(self, rate=1e-2):
        super().__init__()
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * tf.reduce_sum(inputs))
        return inputs


class OuterLayer(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.activity_reg = ActivityRegularizationLayer(1e-2)

    def call(self, inputs):
        return self.activity_reg(inputs)


class OuterLayerWithKernelRegularizer(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(32, kernel_regularizer=keras.regularizers.l2(1e-3))

    def call(self, inputs):
        return self.dense(inputs)


class ConfigLinear(keras.layers.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="random_normal", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})
        return config


class CustomDropout(keras.layers.Layer):
    def __init__(self, rate, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate
        self.seed_generator = keras.random.SeedGenerator(1337)

    def call(self, inputs, training=None):
        if training:
            return keras.random.dropout(inputs, rate=self.rate, seed=self.seed_generator)
        return inputs


class Sampling(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator(1337)

    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch = tf.shape(z_mean)[0]
        dim = tf.shape(z_mean)[1]
        epsilon = keras.random.normal(shape=(batch, dim), seed=self.seed_generator)
        return z_mean + tf.exp(0.5 * z_log_var) * epsilon


class Encoder(layers.Layer):
    def __init__(self, latent_dim=4, intermediate_dim=16, name="encoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
        self.dense_mean = layers.Dense(latent_dim)
        self.dense_log_var = layers.Dense(latent_dim)
        self.sampling = Sampling()

    def call(self, inputs):
        x = self.dense_proj(inputs)
        z_mean = self.dense_mean(x)
        z_log_var = self.dense_log_var(x)
        z = self.sampling((z_mean, z_log_var))
        return z_mean, z_log_var, z


class Decoder(layers.Layer):
    def __init__(self, original_dim, intermediate_dim=16, name="decoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
        self.dense_output = layers.Dense(original_dim, activation="sigmoid")

    def call(self, inputs):
        x = self.dense_proj(inputs)
        return self.dense_output(x)


class VariationalAutoEncoder(keras.Model):
    def __init__(self, original_dim, intermediate_dim=16, latent_dim=4, name="autoencoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.original_dim = original_dim
        self.encoder = Encoder(latent_dim=latent_dim, intermediate_dim=intermediate_dim)
        self.decoder = Decoder(original_dim, intermediate_dim=intermediate_dim)

    def call(self, inputs):
        z_mean, z_log_var, z = self.encoder(inputs)
        reconstructed = self.decoder(z)
        kl_loss = -0.5 * tf.reduce_mean(z_log_var - tf.square(z_mean) - tf.exp(z_log_var) + 1)
        self.add_loss(kl_loss)
        return reconstructed


def basics():
    x = tf.ones((2, 2))
    linear_layer = Linear(4, 2)
    y = linear_layer(x)
    values = [float(tf.reduce_sum(y)), str([w.name for w in linear_layer.weights]), repr(linear_layer.b),
              str(linear_layer.w.shape)]
    my_sum = ComputeSum(2)
    my_sum(x)
    y = my_sum(x)
    values += [str(y.numpy()), float(len(my_sum.weights)), float(len(my_sum.non_trainable_weights)),
               float(len(my_sum.trainable_weights))]
    lazy = LazyLinear(32)
    values += [str(lazy.built), str(len(lazy.weights))]
    lazy(x)
    values += [str(lazy.built), str(len(lazy.weights))]
    mlp = MLPBlock()
    y = mlp(tf.ones(shape=(3, 64)))
    values += [float(len(mlp.weights)), float(len(mlp.trainable_weights)), float(tf.reduce_sum(y))]
    return values


def losses():
    layer = OuterLayer()
    values = [float(len(layer.losses))]
    _ = layer(tf.zeros((1, 1)))
    values += [float(len(layer.losses))]
    _ = layer(tf.zeros((1, 1)))
    values += [float(len(layer.losses))]
    layer = OuterLayerWithKernelRegularizer()
    _ = layer(tf.zeros((1, 1)))
    values += [str([loss.shape for loss in layer.losses]), float(layer.losses[0])]

    inputs = keras.Input(shape=(3,))
    outputs = ActivityRegularizationLayer()(inputs)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(3)
    history = model.fit(rng.random((4, 3)), rng.random((4, 3)), verbose=0)
    values += history.history["loss"]
    model.compile(optimizer="adam")
    history = model.fit(rng.random((4, 3)), rng.random((4, 3)), verbose=0)
    values += history.history["loss"]
    return values


def config_and_training():
    layer = ConfigLinear(64)
    config = layer.get_config()
    new_layer = ConfigLinear.from_config(config)
    values = [str(config), str(new_layer.units), new_layer.name]
    dropout = CustomDropout(0.5)
    x = tf.ones((2, 6))
    values += [float(tf.reduce_sum(dropout(x))), float(tf.reduce_sum(dropout(x, training=True)))]
    values += [float(v) for v in dropout(x, training=True).numpy().ravel()]
    return values


def vae():
    original_dim = 12
    vae = VariationalAutoEncoder(original_dim, 16, 4)
    optimizer = keras.optimizers.Adam(learning_rate=1e-3)
    mse_loss_fn = keras.losses.MeanSquaredError()
    loss_metric = keras.metrics.Mean()
    rng = np.random.default_rng(5)
    x_train = rng.random((64, original_dim)).astype("float32")
    train_dataset = tf.data.Dataset.from_tensor_slices(x_train)
    train_dataset = train_dataset.shuffle(buffer_size=64, seed=5).batch(16)
    values = []
    for epoch in range(2):
        for step, x_batch_train in enumerate(train_dataset):
            with tf.GradientTape() as tape:
                reconstructed = vae(x_batch_train)
                loss = mse_loss_fn(x_batch_train, reconstructed)
                loss += sum(vae.losses)
            grads = tape.gradient(loss, vae.trainable_weights)
            optimizer.apply_gradients(zip(grads, vae.trainable_weights))
            loss_metric(loss)
            if step % 2 == 0:
                values += [float(epoch), float(step), float(loss_metric.result())]
    vae = VariationalAutoEncoder(original_dim, 16, 4)
    vae.compile(keras.optimizers.Adam(learning_rate=1e-3), loss=keras.losses.MeanSquaredError())
    history = vae.fit(x_train, x_train, epochs=2, batch_size=16, verbose=0)
    values += history.history["loss"]

    original_inputs = keras.Input(shape=(original_dim,), name="encoder_input")
    x = layers.Dense(16, activation="relu")(original_inputs)
    z_mean = layers.Dense(4, name="z_mean")(x)
    z_log_var = layers.Dense(4, name="z_log_var")(x)
    z = Sampling()((z_mean, z_log_var))
    encoder = keras.Model(inputs=original_inputs, outputs=z, name="encoder")
    latent_inputs = keras.Input(shape=(4,), name="z_sampling")
    x = layers.Dense(16, activation="relu")(latent_inputs)
    outputs = layers.Dense(original_dim, activation="sigmoid")(x)
    decoder = keras.Model(inputs=latent_inputs, outputs=outputs, name="decoder")
    outputs = decoder(z)
    functional_vae = keras.Model(inputs=original_inputs, outputs=outputs, name="vae")
    kl_loss = -0.5 * keras.ops.mean(z_log_var - keras.ops.square(z_mean) - keras.ops.exp(z_log_var) + 1)
    values += [str(type(kl_loss).__name__), str(encoder.output_shape), str(len(functional_vae.layers))]
    functional_vae.compile(keras.optimizers.Adam(learning_rate=1e-3), loss=keras.losses.MeanSquaredError())
    history = functional_vae.fit(x_train, x_train, epochs=2, batch_size=16, verbose=0)
    return values + history.history["loss"]


class Block(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense_1 = layers.Dense(4, kernel_regularizer="l2")
        self.dense_2 = layers.Dense(3, activity_regularizer="l1")

    def call(self, inputs):
        return self.dense_2(self.dense_1(inputs))


class Net(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.block = Block()
        self.head = layers.Dense(1, dtype="float64")

    def call(self, inputs, training=False):
        return self.head(self.block(inputs))


def _summary(model, **kwargs):
    lines = []
    model.summary(print_fn=lambda line, *args, **print_kwargs: lines.append(line), **kwargs)
    return "\n".join(lines)


def nested_model_summary():
    net = Net()
    values = [_summary(net)]
    net.build((None, 5))
    values += [_summary(net)]
    y = net(np.ones((2, 5), "float32"))
    values += [str(y.dtype), float(tf.reduce_sum(y))] + [float(loss) for loss in net.losses]
    values += [_summary(net, expand_nested=True, show_trainable=True), str([w.path for w in net.weights])]
    net.compile(optimizer="sgd", loss="mse")
    values += net.fit(np.ones((8, 5), "float32"), np.ones((8, 1)), batch_size=4, epochs=2, verbose=0).history["loss"]
    return values + [_summary(net)]


def main():
    keras.utils.set_random_seed(42)
    return basics() + losses() + config_and_training() + vae() + nested_model_summary()


if __name__ == "__main__":
    print(main())
