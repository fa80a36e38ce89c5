"""Sequence tagging (NER-style) as in the Keras "named entity recognition" example, on synthetic tokens: variable
length sentences from Dataset.from_generator with an output_signature, padded_batch with padding_values, a
Bidirectional GRU over Embedding(mask_zero=True), a Dense over every step, a custom masked loss
(keras.losses.Loss subclass, reduction="sum_over_batch_size", per-token sparse_categorical_crossentropy; Keras also
applies the outputs' mask), a masked
accuracy metric written as a keras.metrics.Metric subclass, and argmax decoding of predictions."""

import numpy as np
import tensorflow as tf
from tensorflow import keras

VOCAB, TAGS = 30, 4


class MaskedLoss(keras.losses.Loss):
    def __init__(self, name="masked_loss"):
        super().__init__(name=name, reduction="sum_over_batch_size")

    def call(self, y_true, y_pred):
        loss = keras.losses.sparse_categorical_crossentropy(y_true, y_pred, from_logits=True)
        return loss * tf.cast(y_true > 0, loss.dtype)


class MaskedAccuracy(keras.metrics.Metric):
    def __init__(self, name="masked_accuracy", **kwargs):
        super().__init__(name=name, **kwargs)
        self.correct = self.add_variable(shape=(), initializer="zeros", name="correct")
        self.total = self.add_variable(shape=(), initializer="zeros", name="total")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = tf.cast(y_true, tf.int64)
        mask = tf.cast(y_true > 0, tf.float32)
        hits = tf.cast(tf.equal(y_true, tf.argmax(y_pred, axis=-1)), tf.float32) * mask
        self.correct.assign_add(tf.reduce_sum(hits))
        self.total.assign_add(tf.reduce_sum(mask))

    def result(self):
        return self.correct / tf.maximum(self.total, 1.0)

    def reset_state(self):
        self.correct.assign(0.0)
        self.total.assign(0.0)


def sentences(seed, n):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        length = int(rng.integers(3, 9))
        tokens = rng.integers(1, VOCAB, length)
        tags = 1 + (tokens % 3 == 0) + (tokens > 24).astype(np.int64)
        yield tokens.astype(np.int32), tags.astype(np.int32)


def main():
    keras.utils.set_random_seed(111)
    signature = (tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.int32))
    train = tf.data.Dataset.from_generator(lambda: sentences(1, 96), output_signature=signature)
    train = train.padded_batch(16, padded_shapes=([None], [None]), padding_values=(0, 0))
    valid = tf.data.Dataset.from_generator(lambda: sentences(2, 32), output_signature=signature).padded_batch(16)
    values = [str(train.element_spec), float(train.cardinality())]
    tokens, tags = next(iter(train))
    values += [str(tokens.shape), float(tf.reduce_sum(tokens)), float(tf.reduce_sum(tags))]

    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(VOCAB, 12, mask_zero=True)(inputs)
    x = keras.layers.Bidirectional(keras.layers.GRU(10, return_sequences=True), merge_mode="concat")(x)
    x = keras.layers.Dropout(0.1)(x)
    outputs = keras.layers.Dense(TAGS)(x)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=MaskedLoss(), metrics=[MaskedAccuracy()])
    history = model.fit(train, validation_data=valid, epochs=3, verbose=0)
    values += history.history["loss"] + history.history["masked_accuracy"] + history.history["val_loss"]
    values += [float(v) for v in model.evaluate(valid, verbose=0)]
    logits = model.predict(tokens[:2], verbose=0)
    decoded = np.argmax(logits, axis=-1) * (tokens[:2].numpy() > 0)
    values += [str(decoded.tolist()), str(model.layers[1].compute_mask(tokens[:2]).numpy().tolist())]
    values += [str(model.layers[2].forward_layer.name), str(model.layers[2].backward_layer.go_backwards)]
    return values


if __name__ == "__main__":
    print(main())
