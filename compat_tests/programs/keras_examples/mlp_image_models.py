"""The keras.io example "Image classification with modern MLP models", shrunk: a data_augmentation Sequential
(Normalization adapted on the training images, Resizing, RandomFlip, RandomZoom), a Patches layer built on
keras.ops.image.extract_patches, a PositionEmbedding layer (add_weight, ops.slice, ops.broadcast_to), MLP-Mixer
blocks (LayerNormalization, Dense(gelu) over the transposed patch axis), FNet blocks (keras.ops.fft2 real part) and
gMLP blocks (a spatial gating unit with ops.split), each classifier trained with AdamW on
SparseCategoricalCrossentropy(from_logits=True) with accuracy and top-5 accuracy, ReduceLROnPlateau and
EarlyStopping callbacks, then evaluated."""

import keras
import numpy as np
from keras import layers

num_classes = 6
input_shape = (8, 8, 3)
image_size = 8
patch_size = 4
num_patches = (image_size // patch_size) ** 2
embedding_dim = 8
dropout_rate = 0.2


class Patches(layers.Layer):
    def __init__(self, patch_size, **kwargs):
        super().__init__(**kwargs)
        self.patch_size = patch_size

    def call(self, x):
        patches = keras.ops.image.extract_patches(x, self.patch_size)
        batch_size = keras.ops.shape(patches)[0]
        num_patches = keras.ops.shape(patches)[1] * keras.ops.shape(patches)[2]
        patch_dim = keras.ops.shape(patches)[3]
        out = keras.ops.reshape(patches, (batch_size, num_patches, patch_dim))
        return out


class PositionEmbedding(keras.layers.Layer):
    def __init__(self, sequence_length, initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        if sequence_length is None:
            raise ValueError("`sequence_length` must be an Integer, received `None`.")
        self.sequence_length = int(sequence_length)
        self.initializer = keras.initializers.get(initializer)

    def get_config(self):
        config = super().get_config()
        config.update({"sequence_length": self.sequence_length,
                       "initializer": keras.initializers.serialize(self.initializer)})
        return config

    def build(self, input_shape):
        feature_size = input_shape[-1]
        self.position_embeddings = self.add_weight(name="embeddings", shape=[self.sequence_length, feature_size],
                                                   initializer=self.initializer, trainable=True)
        super().build(input_shape)

    def call(self, inputs, start_index=0):
        shape = keras.ops.shape(inputs)
        feature_length = shape[-1]
        sequence_length = shape[-2]
        position_embeddings = keras.ops.convert_to_tensor(self.position_embeddings)
        position_embeddings = keras.ops.slice(position_embeddings, (start_index, 0),
                                              (sequence_length, feature_length))
        return keras.ops.broadcast_to(position_embeddings, shape)

    def compute_output_shape(self, input_shape):
        return input_shape


class MLPMixerLayer(layers.Layer):
    def __init__(self, num_patches, hidden_units, dropout_rate, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.mlp1 = keras.Sequential([layers.Dense(units=num_patches, activation="gelu"),
                                      layers.Dense(units=num_patches), layers.Dropout(rate=dropout_rate)])
        self.mlp2 = keras.Sequential([layers.Dense(units=num_patches, activation="gelu"),
                                      layers.Dense(units=hidden_units), layers.Dropout(rate=dropout_rate)])
        self.normalize = layers.LayerNormalization(epsilon=1e-6)

    def build(self, input_shape):
        return super().build(input_shape)

    def call(self, inputs):
        x = self.normalize(inputs)
        x_channels = keras.ops.transpose(x, axes=(0, 2, 1))
        mlp1_outputs = self.mlp1(x_channels)
        mlp1_outputs = keras.ops.transpose(mlp1_outputs, axes=(0, 2, 1))
        x = mlp1_outputs + inputs
        x_patches = self.normalize(x)
        mlp2_outputs = self.mlp2(x_patches)
        x = x + mlp2_outputs
        return x


class FNetLayer(layers.Layer):
    def __init__(self, embedding_dim, dropout_rate, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ffn = keras.Sequential([layers.Dense(units=embedding_dim, activation="gelu"),
                                     layers.Dropout(rate=dropout_rate), layers.Dense(units=embedding_dim)])
        self.normalize1 = layers.LayerNormalization(epsilon=1e-6)
        self.normalize2 = layers.LayerNormalization(epsilon=1e-6)

    def call(self, inputs):
        real_part = inputs
        im_part = keras.ops.zeros_like(inputs)
        x = keras.ops.fft2((real_part, im_part))[0]
        x = x + inputs
        x = self.normalize1(x)
        x_ffn = self.ffn(x)
        x = x + x_ffn
        return self.normalize2(x)


class gMLPLayer(layers.Layer):  # noqa: N801 (the example's name)
    def __init__(self, num_patches, embedding_dim, dropout_rate, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.channel_projection1 = keras.Sequential([layers.Dense(units=embedding_dim * 2, activation="gelu"),
                                                     layers.Dropout(rate=dropout_rate)])
        self.channel_projection2 = layers.Dense(units=embedding_dim)
        self.spatial_projection = layers.Dense(units=num_patches, bias_initializer="Ones")
        self.normalize1 = layers.LayerNormalization(epsilon=1e-6)
        self.normalize2 = layers.LayerNormalization(epsilon=1e-6)

    def spatial_gating_unit(self, x):
        u, v = keras.ops.split(x, indices_or_sections=2, axis=2)
        v = self.normalize2(v)
        v_channels = keras.ops.transpose(v, axes=(0, 2, 1))
        v_projected = self.spatial_projection(v_channels)
        v_projected = keras.ops.transpose(v_projected, axes=(0, 2, 1))
        return u * v_projected

    def call(self, inputs):
        x = self.normalize1(inputs)
        x_projected = self.channel_projection1(x)
        x_spatial = self.spatial_gating_unit(x_projected)
        x_projected = self.channel_projection2(x_spatial)
        return x + x_projected


def build_classifier(blocks, data_augmentation, positional_encoding=False):
    inputs = layers.Input(shape=input_shape)
    augmented = data_augmentation(inputs)
    patches = Patches(patch_size)(augmented)
    x = layers.Dense(units=embedding_dim)(patches)
    if positional_encoding:
        x = x + PositionEmbedding(sequence_length=num_patches)(x)
    x = blocks(x)
    representation = layers.GlobalAveragePooling1D()(x)
    representation = layers.Dropout(rate=dropout_rate)(representation)
    logits = layers.Dense(num_classes)(representation)
    return keras.Model(inputs=inputs, outputs=logits)


def run_experiment(model, x_train, y_train, x_test, y_test):
    optimizer = keras.optimizers.AdamW(learning_rate=0.005, weight_decay=0.0001)
    model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc"),
                           keras.metrics.SparseTopKCategoricalAccuracy(5, name="top5-acc")])
    reduce_lr = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1)
    early_stopping = keras.callbacks.EarlyStopping(monitor="loss", patience=2, restore_best_weights=True)
    history = model.fit(x=x_train, y=y_train, batch_size=16, epochs=2, callbacks=[early_stopping, reduce_lr],
                        verbose=0)
    _, accuracy, top_5_accuracy = model.evaluate(x_test, y_test, verbose=0)
    values = [str(sorted(history.history))]
    for key in sorted(history.history):
        values += [float(v) for v in history.history[key]]
    return values + [accuracy, top_5_accuracy]


def main():
    keras.utils.set_random_seed(11)
    rng = np.random.default_rng(11)
    x_train = rng.uniform(0, 255, (32, 8, 8, 3)).astype("float32")
    y_train = rng.integers(0, num_classes, (32, 1))
    x_test = rng.uniform(0, 255, (8, 8, 8, 3)).astype("float32")
    y_test = rng.integers(0, num_classes, (8, 1))
    data_augmentation = keras.Sequential([layers.Normalization(), layers.Resizing(image_size, image_size),
                                          layers.RandomFlip("horizontal"), layers.RandomZoom(height_factor=0.2,
                                                                                             width_factor=0.2)],
                                         name="data_augmentation")
    data_augmentation.layers[0].adapt(x_train)
    values = [float(np.sum(data_augmentation.layers[0].mean)), float(np.sum(data_augmentation.layers[0].variance))]
    patches = Patches(patch_size)(x_train[:2])
    values += [str(tuple(patches.shape)), float(keras.ops.sum(patches))]

    # The example trains a classifier per block kind; to stay short this trains the MLP-Mixer one and runs the FNet
    # and gMLP blocks on embedded patches.
    embedded = layers.Dense(units=embedding_dim)(patches)
    for block in (FNetLayer(embedding_dim, dropout_rate), gMLPLayer(num_patches, embedding_dim, dropout_rate)):
        outputs = keras.ops.convert_to_numpy(block(embedded))
        values += [str(outputs.shape), *outputs[0, :, :2].ravel().tolist(), len(block.trainable_weights)]
    blocks = keras.Sequential([MLPMixerLayer(num_patches, embedding_dim, dropout_rate)])
    classifier = build_classifier(blocks, data_augmentation, positional_encoding=True)
    values += keras.ops.convert_to_numpy(classifier(x_test[:2])).ravel().tolist()
    values += run_experiment(classifier, x_train, y_train, x_test, y_test)
    values += [float(np.sum(w)) for w in classifier.get_weights()]
    return values


if __name__ == "__main__":
    print(main())
