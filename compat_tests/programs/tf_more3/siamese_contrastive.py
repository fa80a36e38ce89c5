"""The Keras "image similarity with a Siamese network and a contrastive loss" example, shrunk: pairs of synthetic
digit-like images, a shared embedding tower (BatchNormalization, Conv2D, AveragePooling2D, Dense tanh) applied to
both inputs of a functional model, a Lambda layer computing the Euclidean distance, a contrastive loss closure with
a margin, RMSprop, a binary accuracy metric; then the tower reused alone on new inputs."""

import keras
import numpy as np
from keras import ops


def make_pairs(x, y, rng):
    num_classes = int(y.max()) + 1
    digit_indices = [np.where(y == i)[0] for i in range(num_classes)]
    pairs, labels = [], []
    for idx1 in range(len(x)):
        x1, label1 = x[idx1], y[idx1]
        idx2 = rng.choice(digit_indices[label1])
        pairs += [[x1, x[idx2]]]
        labels += [0]
        label2 = rng.integers(0, num_classes - 1)
        label2 = label2 + 1 if label2 >= label1 else label2
        idx2 = rng.choice(digit_indices[label2])
        pairs += [[x1, x[idx2]]]
        labels += [1]
    return np.array(pairs), np.array(labels).astype("float32")


def euclidean_distance(vects):
    x, y = vects
    sum_square = ops.sum(ops.square(x - y), axis=1, keepdims=True)
    return ops.sqrt(ops.maximum(sum_square, keras.backend.epsilon()))


def loss(margin=1):
    def contrastive_loss(y_true, y_pred):
        square_pred = ops.square(y_pred)
        margin_square = ops.square(ops.maximum(margin - (y_pred), 0))
        return ops.mean((1 - y_true) * square_pred + (y_true) * margin_square)
    return contrastive_loss


def main():
    keras.utils.set_random_seed(44)
    rng = np.random.default_rng(44)
    prototypes = rng.random((4, 10, 10)).astype("float32")
    y = rng.integers(0, 4, 60)
    x = np.clip(prototypes[y] + 0.2 * rng.normal(size=(60, 10, 10)), 0, 1).astype("float32")
    pairs_train, labels_train = make_pairs(x[:48], y[:48], rng)
    pairs_val, labels_val = make_pairs(x[48:], y[48:], rng)

    input = keras.layers.Input((10, 10, 1))
    t = keras.layers.BatchNormalization()(input)
    t = keras.layers.Conv2D(4, (3, 3), activation="tanh")(t)
    t = keras.layers.AveragePooling2D(pool_size=(2, 2))(t)
    t = keras.layers.Flatten()(t)
    t = keras.layers.BatchNormalization()(t)
    t = keras.layers.Dense(6, activation="tanh")(t)
    embedding_network = keras.Model(input, t)

    input_1 = keras.layers.Input((10, 10, 1))
    input_2 = keras.layers.Input((10, 10, 1))
    tower_1 = embedding_network(input_1)
    tower_2 = embedding_network(input_2)
    merge_layer = keras.layers.Lambda(euclidean_distance, output_shape=(1,))([tower_1, tower_2])
    normal_layer = keras.layers.BatchNormalization()(merge_layer)
    output_layer = keras.layers.Dense(1, activation="sigmoid")(normal_layer)
    siamese = keras.Model(inputs=[input_1, input_2], outputs=output_layer)

    siamese.compile(loss=loss(margin=1), optimizer="RMSprop", metrics=["accuracy"])
    history = siamese.fit([pairs_train[:, 0], pairs_train[:, 1]], labels_train,
                          validation_data=([pairs_val[:, 0], pairs_val[:, 1]], labels_val), batch_size=16,
                          epochs=3, verbose=0)
    results = siamese.evaluate([pairs_val[:, 0], pairs_val[:, 1]], labels_val, verbose=0)
    predictions = siamese.predict([pairs_val[:6, 0], pairs_val[:6, 1]], verbose=0)
    embeddings = embedding_network.predict(x[:5, :, :, None], verbose=0)
    values = [v for key in sorted(history.history) for v in history.history[key]] + list(results)
    values += [float(v) for v in predictions.ravel()] + [float(v) for v in embeddings.ravel()]
    values += [len(siamese.layers), len(siamese.trainable_weights), len(siamese.non_trainable_weights),
               " ".join(type(layer).__name__ for layer in siamese.layers)]
    return values


if __name__ == "__main__":
    print(main())
