"""The Keras "image similarity estimation using a Siamese network with a triplet loss" example, shrunk: anchor /
positive / negative triplets from a tf.data pipeline (zip of three shuffled datasets, map, batch), a shared
embedding network (Conv2D, Flatten, Dense, BatchNormalization), a DistanceLayer returning the squared distances of
anchor-positive and anchor-negative embeddings, a SiameseModel subclass with a custom train_step / test_step and a
keras.metrics.Mean loss tracker, then cosine similarities with keras.metrics.CosineSimilarity."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers

SHAPE = (8, 8, 1)


class DistanceLayer(layers.Layer):
    def call(self, anchor, positive, negative):
        ap_distance = tf.reduce_sum(tf.square(anchor - positive), -1)
        an_distance = tf.reduce_sum(tf.square(anchor - negative), -1)
        return (ap_distance, an_distance)


class SiameseModel(keras.Model):
    def __init__(self, siamese_network, margin=0.5):
        super().__init__()
        self.siamese_network = siamese_network
        self.margin = margin
        self.loss_tracker = keras.metrics.Mean(name="loss")

    def call(self, inputs):
        return self.siamese_network(inputs)

    def train_step(self, data):
        with tf.GradientTape() as tape:
            loss = self._compute_loss(data)
        gradients = tape.gradient(loss, self.siamese_network.trainable_weights)
        self.optimizer.apply_gradients(zip(gradients, self.siamese_network.trainable_weights))
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}

    def test_step(self, data):
        loss = self._compute_loss(data)
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}

    def _compute_loss(self, data):
        ap_distance, an_distance = self.siamese_network(data)
        loss = ap_distance - an_distance
        return tf.maximum(loss + self.margin, 0.0)

    @property
    def metrics(self):
        return [self.loss_tracker]


def make_images(rng, count):
    classes = rng.integers(0, 3, count)
    images = rng.normal(size=(count,) + SHAPE).astype(np.float32) * 0.3
    for c in range(3):
        images[classes == c, 2 * c:2 * c + 3, :, 0] += 1.0
    return images, classes


def main():
    keras.utils.set_random_seed(62)
    rng = np.random.default_rng(62)
    images, classes = make_images(rng, 40)
    order = np.argsort(classes, kind="stable")
    anchors = images[order]
    positives = images[order][np.roll(np.arange(40), 1)]
    positives[classes[order] != classes[order][np.roll(np.arange(40), 1)]] = anchors[
        classes[order] != classes[order][np.roll(np.arange(40), 1)]]
    negatives = images[order][(np.arange(40) + 20) % 40]

    anchor_ds = tf.data.Dataset.from_tensor_slices(anchors)
    positive_ds = tf.data.Dataset.from_tensor_slices(positives)
    negative_ds = tf.data.Dataset.from_tensor_slices(negatives).shuffle(40, seed=5)
    dataset = tf.data.Dataset.zip((anchor_ds, positive_ds, negative_ds))
    dataset = dataset.map(lambda a, p, n: (a * 2.0, p * 2.0, n * 2.0))
    train_dataset = dataset.take(32).batch(8)
    val_dataset = dataset.skip(32).batch(8)

    base = keras.Sequential([keras.Input(SHAPE), layers.Conv2D(4, 3, activation="relu"), layers.Flatten(),
                             layers.Dense(16, activation="relu"), layers.BatchNormalization(), layers.Dense(8)],
                            name="Embedding")
    anchor_input = layers.Input(name="anchor", shape=SHAPE)
    positive_input = layers.Input(name="positive", shape=SHAPE)
    negative_input = layers.Input(name="negative", shape=SHAPE)
    distances = DistanceLayer()(base(anchor_input), base(positive_input), base(negative_input))
    siamese_network = keras.Model(inputs=[anchor_input, positive_input, negative_input], outputs=distances)

    siamese_model = SiameseModel(siamese_network)
    siamese_model.compile(optimizer=keras.optimizers.SGD(0.01))
    history = siamese_model.fit(train_dataset, epochs=2, validation_data=val_dataset, verbose=0)
    values = history.history["loss"] + history.history["val_loss"]
    values += [siamese_model.evaluate(val_dataset, verbose=0)]

    sample = next(iter(train_dataset))
    anchor_embedding, positive_embedding, negative_embedding = (base(sample[0]), base(sample[1]), base(sample[2]))
    cosine_similarity = keras.metrics.CosineSimilarity()
    positive_similarity = cosine_similarity(anchor_embedding, positive_embedding)
    values.append(float(positive_similarity.numpy()))
    cosine_similarity.reset_state()
    values.append(float(cosine_similarity(anchor_embedding, negative_embedding).numpy()))
    ap, an = siamese_network(sample)
    values += [float(v) for v in ap.numpy()] + [float(v) for v in an.numpy()]
    return values


if __name__ == "__main__":
    print(main())
