"""The keras.io guide "The Functional API": a small MLP built layer by layer (summary, fit, evaluate), a model
reused as a layer (encoder/decoder autoencoder, nested models), ensembling models, a multi-input multi-output
ticket classifier trained with per-output losses and loss weights (list and dict forms), a toy ResNet with
shared skip connections, shared Embedding layers, feature extraction from intermediate layer outputs, and a
custom layer with get_config used in a functional model reloaded through from_config."""

import numpy as np
from tensorflow import keras
from tensorflow.keras import layers


def _summary(model):
    lines = []
    model.summary(print_fn=lambda line, *args, **kwargs: lines.append(line))
    return "\n".join(lines)


def mnist_like_mlp(rng):
    inputs = keras.Input(shape=(64,))
    x = layers.Dense(32, activation="relu")(inputs)
    x = layers.Dense(32, activation="relu")(x)
    outputs = layers.Dense(10)(x)
    model = keras.Model(inputs=inputs, outputs=outputs, name="mnist_model")
    x_train = rng.random((96, 64)).astype("float32")
    y_train = rng.integers(0, 10, size=(96,))
    model.compile(loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  optimizer=keras.optimizers.RMSprop(), metrics=["accuracy"])
    history = model.fit(x_train, y_train, batch_size=32, epochs=2, validation_split=0.25, verbose=0)
    scores = model.evaluate(x_train, y_train, verbose=0)
    values = [str(inputs.shape), str(inputs.dtype), _summary(model)]
    values += history.history["loss"] + history.history["val_accuracy"] + list(scores)
    return values


def autoencoder():
    encoder_input = keras.Input(shape=(8, 8, 1), name="img")
    x = layers.Conv2D(4, 3, activation="relu")(encoder_input)
    x = layers.MaxPooling2D(2)(x)
    encoder_output = layers.GlobalMaxPooling2D()(x)
    encoder = keras.Model(encoder_input, encoder_output, name="encoder")
    decoder_input = keras.Input(shape=(4,), name="encoded_img")
    x = layers.Reshape((2, 2, 1))(decoder_input)
    x = layers.Conv2DTranspose(4, 3, activation="relu")(x)
    decoder_output = layers.UpSampling2D(2)(x)
    decoder = keras.Model(decoder_input, decoder_output, name="decoder")
    autoencoder_input = keras.Input(shape=(8, 8, 1), name="img")
    encoded_img = encoder(autoencoder_input)
    decoded_img = decoder(encoded_img)
    model = keras.Model(autoencoder_input, decoded_img, name="autoencoder")
    images = np.linspace(-1, 1, 2 * 64, dtype="float32").reshape(2, 8, 8, 1)
    out = model(images)
    return [_summary(encoder), _summary(model), str(tuple(out.shape)), float(np.sum(out))]


def ensemble():
    def get_model():
        inputs = keras.Input(shape=(16,))
        outputs = layers.Dense(1)(inputs)
        return keras.Model(inputs, outputs)

    models = [get_model() for _ in range(3)]
    inputs = keras.Input(shape=(16,))
    outputs = layers.average([m(inputs) for m in models])
    model = keras.Model(inputs=inputs, outputs=outputs)
    x = np.linspace(0, 1, 32, dtype="float32").reshape(2, 16)
    return [float(v) for v in np.ravel(model(x))] + [float(len(model.layers)), str(len(model.weights))]


def ticket_classifier(rng):
    num_tags, num_words, num_departments = 6, 50, 3
    title_input = keras.Input(shape=(None,), name="title")
    body_input = keras.Input(shape=(None,), name="body")
    tags_input = keras.Input(shape=(num_tags,), name="tags")
    title_features = layers.Embedding(num_words, 8)(title_input)
    body_features = layers.Embedding(num_words, 8)(body_input)
    title_features = layers.LSTM(16)(title_features)
    body_features = layers.LSTM(8)(body_features)
    x = layers.concatenate([title_features, body_features, tags_input])
    priority_pred = layers.Dense(1, name="priority")(x)
    department_pred = layers.Dense(num_departments, name="department")(x)
    model = keras.Model(inputs=[title_input, body_input, tags_input], outputs=[priority_pred, department_pred])
    values = [_summary(model)]
    title_data = rng.integers(num_words, size=(40, 5))
    body_data = rng.integers(num_words, size=(40, 12))
    tags_data = rng.integers(2, size=(40, num_tags)).astype("float32")
    priority_targets = rng.random(size=(40, 1)).astype("float32")
    dept_targets = rng.integers(2, size=(40, num_departments)).astype("float32")

    model.compile(optimizer=keras.optimizers.RMSprop(1e-3),
                  loss=[keras.losses.BinaryCrossentropy(from_logits=True),
                        keras.losses.CategoricalCrossentropy(from_logits=True)],
                  loss_weights=[1.0, 0.2])
    history = model.fit([title_data, body_data, tags_data], [priority_targets, dept_targets], epochs=2,
                        batch_size=16, verbose=0)
    values += [" ".join(sorted(history.history))] + history.history["loss"]

    model.compile(optimizer=keras.optimizers.RMSprop(1e-3),
                  loss={"priority": keras.losses.BinaryCrossentropy(from_logits=True),
                        "department": keras.losses.CategoricalCrossentropy(from_logits=True)},
                  loss_weights={"priority": 1.0, "department": 0.2})
    history = model.fit({"title": title_data, "body": body_data, "tags": tags_data},
                        {"priority": priority_targets, "department": dept_targets}, epochs=2, batch_size=16,
                        verbose=0)
    values += [" ".join(sorted(history.history))] + history.history["loss"]
    priority, department = model.predict({"title": title_data[:3], "body": body_data[:3], "tags": tags_data[:3]},
                                         verbose=0)
    return values + list(np.ravel(priority)) + list(np.ravel(department))


def toy_resnet(rng):
    inputs = keras.Input(shape=(12, 12, 3), name="img")
    x = layers.Conv2D(8, 3, activation="relu")(inputs)
    x = layers.Conv2D(8, 3, activation="relu")(x)
    block_1_output = layers.MaxPooling2D(2)(x)
    x = layers.Conv2D(8, 3, activation="relu", padding="same")(block_1_output)
    x = layers.Conv2D(8, 3, activation="relu", padding="same")(x)
    block_2_output = layers.add([x, block_1_output])
    x = layers.Conv2D(8, 3, activation="relu")(block_2_output)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dense(16, activation="relu")(x)
    x = layers.Dropout(0.5)(x)
    outputs = layers.Dense(4)(x)
    model = keras.Model(inputs, outputs, name="toy_resnet")
    x_train = rng.random((32, 12, 12, 3)).astype("float32")
    y_train = keras.utils.to_categorical(rng.integers(0, 4, size=(32,)), 4)
    model.compile(optimizer=keras.optimizers.RMSprop(1e-3),
                  loss=keras.losses.CategoricalCrossentropy(from_logits=True), metrics=["acc"])
    history = model.fit(x_train, y_train, batch_size=16, epochs=2, validation_split=0.25, verbose=0)
    return [_summary(model)] + history.history["loss"] + history.history["val_loss"]


def shared_and_extraction():
    shared_embedding = layers.Embedding(20, 4)
    text_input_a = keras.Input(shape=(None,), dtype="int32")
    text_input_b = keras.Input(shape=(None,), dtype="int32")
    encoded_input_a = shared_embedding(text_input_a)
    encoded_input_b = shared_embedding(text_input_b)
    both = keras.Model([text_input_a, text_input_b], [encoded_input_a, encoded_input_b])
    a, b = both([np.array([[1, 2, 3]]), np.array([[3, 2]])])
    values = [float(np.sum(np.abs(a[0, 2] - b[0, 0]))), str(len(both.weights))]

    vgg_like = keras.Sequential([keras.Input((10,)), layers.Dense(6, activation="relu", name="first"),
                                 layers.Dense(5, activation="relu", name="second"), layers.Dense(2, name="third")])
    features_list = [layer.output for layer in vgg_like.layers]
    feat_extraction_model = keras.Model(inputs=vgg_like.inputs, outputs=features_list)
    img = np.linspace(-1, 1, 20, dtype="float32").reshape(2, 10)
    extracted = feat_extraction_model(img)
    values += [str([tuple(f.shape) for f in extracted])] + [float(np.sum(f)) for f in extracted]
    return values


class CustomDense(layers.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal",
                                 trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="random_normal", trainable=True)

    def call(self, inputs):
        return keras.ops.matmul(inputs, self.w) + self.b

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})
        return config


def custom_layer_config():
    inputs = keras.Input((4,))
    outputs = CustomDense(10)(inputs)
    model = keras.Model(inputs, outputs)
    config = model.get_config()
    values = [str(sorted(config)), str(config["layers"][1]["config"])]
    new_model = keras.Model.from_config(config, custom_objects={"CustomDense": CustomDense})
    new_model.set_weights(model.get_weights())
    x = np.ones((2, 4), dtype="float32")
    return values + [float(np.max(np.abs(model(x) - new_model(x)))), float(np.sum(model(x)))]


class CustomRNN(layers.Layer):
    def __init__(self):
        super().__init__()
        self.units = 8
        self.projection_1 = layers.Dense(units=self.units, activation="tanh")
        self.projection_2 = layers.Dense(units=self.units, activation="tanh")
        self.classifier = layers.Dense(1)

    def call(self, inputs):
        outputs = []
        state = keras.ops.zeros(shape=(inputs.shape[0], self.units))
        for t in range(inputs.shape[1]):
            x = inputs[:, t, :]
            h = self.projection_1(x)
            y = h + self.projection_2(state)
            state = y
            outputs.append(y)
        features = keras.ops.stack(outputs, axis=1)
        return self.classifier(features)


class MLP(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense_1 = layers.Dense(8, activation="relu")
        self.dense_2 = layers.Dense(3)

    def call(self, inputs):
        return self.dense_2(self.dense_1(inputs))


def mix_and_match():
    timesteps, input_dim = 5, 4
    inputs = keras.Input(batch_shape=(2, timesteps, input_dim))
    x = layers.Conv1D(6, 3)(inputs)
    outputs = CustomRNN()(x)
    model = keras.Model(inputs, outputs)
    out = model(np.linspace(-1, 1, 2 * timesteps * input_dim, dtype="float32").reshape(2, timesteps, input_dim))
    inputs = keras.Input(shape=(6,))
    mlp = MLP()
    functional = keras.Model(inputs, mlp(inputs))
    layer_names = str([layer.name for layer in functional.layers])
    return [str(tuple(out.shape)), float(np.sum(out)), _summary(model), layer_names, _summary(functional),
            str(functional.get_layer(index=1).name), str(len(functional.trainable_weights))]


def main():
    keras.utils.set_random_seed(1337)
    rng = np.random.default_rng(1337)
    values = mnist_like_mlp(rng)
    values += autoencoder()
    values += ensemble()
    values += ticket_classifier(rng)
    values += toy_resnet(rng)
    values += shared_and_extraction()
    values += custom_layer_config()
    values += mix_and_match()
    return values


if __name__ == "__main__":
    print(main())
