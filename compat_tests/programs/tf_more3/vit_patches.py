"""The Keras "image classification with Vision Transformer" example, shrunk: a Patches layer built on
tf.image.extract_patches, a PatchEncoder adding Embedding positions to a Dense projection, pre-norm Transformer
blocks with MultiHeadAttention and a GELU MLP, AdamW with weight decay, SparseCategoricalCrossentropy(from_logits)
and top-5 SparseTopKCategoricalAccuracy."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers

IMAGE, PATCH, CLASSES, WIDTH, TRANSFORMER_LAYERS = 12, 4, 8, 16, 1
NUM_PATCHES = (IMAGE // PATCH) ** 2


class Patches(layers.Layer):
    def __init__(self, patch_size):
        super().__init__()
        self.patch_size = patch_size

    def call(self, images):
        batch_size = tf.shape(images)[0]
        patches = tf.image.extract_patches(images=images, sizes=[1, self.patch_size, self.patch_size, 1],
                                           strides=[1, self.patch_size, self.patch_size, 1], rates=[1, 1, 1, 1],
                                           padding="VALID")
        patch_dims = patches.shape[-1]
        return tf.reshape(patches, [batch_size, -1, patch_dims])


class PatchEncoder(layers.Layer):
    def __init__(self, num_patches, projection_dim):
        super().__init__()
        self.num_patches = num_patches
        self.projection = layers.Dense(units=projection_dim)
        self.position_embedding = layers.Embedding(input_dim=num_patches, output_dim=projection_dim)

    def call(self, patch):
        positions = tf.expand_dims(tf.range(start=0, limit=self.num_patches, delta=1), axis=0)
        return self.projection(patch) + self.position_embedding(positions)


def mlp(x, hidden_units, dropout_rate):
    for units in hidden_units:
        x = layers.Dense(units, activation=keras.activations.gelu)(x)
        x = layers.Dropout(dropout_rate)(x)
    return x


def create_vit_classifier():
    inputs = keras.Input(shape=(IMAGE, IMAGE, 3))
    patches = Patches(PATCH)(inputs)
    encoded_patches = PatchEncoder(NUM_PATCHES, WIDTH)(patches)
    for _ in range(TRANSFORMER_LAYERS):
        x1 = layers.LayerNormalization(epsilon=1e-6)(encoded_patches)
        attention_output = layers.MultiHeadAttention(num_heads=2, key_dim=WIDTH, dropout=0.1)(x1, x1)
        x2 = layers.Add()([attention_output, encoded_patches])
        x3 = layers.LayerNormalization(epsilon=1e-6)(x2)
        x3 = mlp(x3, hidden_units=[WIDTH * 2, WIDTH], dropout_rate=0.1)
        encoded_patches = layers.Add()([x3, x2])
    representation = layers.LayerNormalization(epsilon=1e-6)(encoded_patches)
    representation = layers.Flatten()(representation)
    representation = layers.Dropout(0.5)(representation)
    features = mlp(representation, hidden_units=[32], dropout_rate=0.5)
    logits = layers.Dense(CLASSES)(features)
    return keras.Model(inputs=inputs, outputs=logits)


def main():
    keras.utils.set_random_seed(31)
    rng = np.random.default_rng(31)
    labels = rng.integers(0, CLASSES, 96)
    images = rng.normal(size=(96, IMAGE, IMAGE, 3)).astype(np.float32) * 0.3
    images[np.arange(96), labels, labels] += 2.0

    sample = Patches(PATCH)(images[:2])
    model = create_vit_classifier()
    optimizer = keras.optimizers.AdamW(learning_rate=0.003, weight_decay=0.0001)
    model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.SparseCategoricalAccuracy(name="accuracy"),
                           keras.metrics.SparseTopKCategoricalAccuracy(5, name="top-5-accuracy")])
    history = model.fit(x=images[:80], y=labels[:80], batch_size=16, epochs=3, validation_split=0.2, verbose=0)
    _, accuracy, top_5_accuracy = model.evaluate(images[80:], labels[80:], verbose=0)
    values = [v for key in sorted(history.history) for v in history.history[key]]
    values += [accuracy, top_5_accuracy, " ".join(sorted(history.history)), str(tuple(sample.shape)),
               float(tf.reduce_sum(sample[1, 4])), float(optimizer.iterations.numpy()),
               float(model.count_params())]
    return values


if __name__ == "__main__":
    print(main())
