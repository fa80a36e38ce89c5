"""The Keras "OCR model for reading captchas" example on synthetic glyph strips: characters mapped with StringLookup
(and its inverse), a Conv2D/MaxPooling2D feature extractor reshaped into a sequence, Bidirectional LSTMs, a CTCLayer
adding tf.keras.backend.ctc_batch_cost with add_loss, a prediction model sharing the layers, keras.ops.ctc_decode
greedy decoding and tf.strings.reduce_join of the decoded characters; keras.ops.ctc_loss checked beside it."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers, ops

CHARACTERS = sorted("abcde")
WIDTH, HEIGHT, LABEL_LENGTH = 32, 8, 3

char_to_num = layers.StringLookup(vocabulary=CHARACTERS, mask_token=None)
num_to_char = layers.StringLookup(vocabulary=char_to_num.get_vocabulary(), mask_token=None, invert=True)


class CTCLayer(layers.Layer):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.loss_fn = tf.keras.backend.ctc_batch_cost

    def call(self, y_true, y_pred):
        batch_len = ops.cast(ops.shape(y_true)[0], dtype="int64")
        input_length = ops.cast(ops.shape(y_pred)[1], dtype="int64")
        label_length = ops.cast(ops.shape(y_true)[1], dtype="int64")
        input_length = input_length * ops.ones(shape=(batch_len, 1), dtype="int64")
        label_length = label_length * ops.ones(shape=(batch_len, 1), dtype="int64")
        self.add_loss(ops.mean(self.loss_fn(y_true, y_pred, input_length, label_length)))
        return y_pred


def build_model():
    input_img = layers.Input(shape=(WIDTH, HEIGHT, 1), name="image", dtype="float32")
    labels = layers.Input(name="label", shape=(None,), dtype="float32")
    x = layers.Conv2D(8, (3, 3), activation="relu", kernel_initializer="he_normal", padding="same", name="Conv1")(
        input_img)
    x = layers.MaxPooling2D((2, 2), name="pool1")(x)
    new_shape = ((WIDTH // 2), (HEIGHT // 2) * 8)
    x = layers.Reshape(target_shape=new_shape, name="reshape")(x)
    x = layers.Dense(16, activation="relu", name="dense1")(x)
    x = layers.Dropout(0.2)(x)
    x = layers.Bidirectional(layers.LSTM(12, return_sequences=True, dropout=0.25))(x)
    x = layers.Bidirectional(layers.LSTM(8, return_sequences=True, dropout=0.25))(x)
    x = layers.Dense(len(char_to_num.get_vocabulary()) + 1, activation="softmax", name="dense2")(x)
    output = CTCLayer(name="ctc_loss")(labels, x)
    return keras.models.Model(inputs=[input_img, labels], outputs=output, name="ocr_model_v1")


def synthetic_captchas(rng, count):
    glyphs = rng.normal(size=(len(CHARACTERS), 8, HEIGHT)).astype(np.float32)
    texts, images = [], np.zeros((count, WIDTH, HEIGHT, 1), np.float32)
    for i in range(count):
        chosen = rng.integers(0, len(CHARACTERS), LABEL_LENGTH)
        texts.append("".join(CHARACTERS[c] for c in chosen))
        for j, c in enumerate(chosen):
            images[i, 4 + 9 * j:12 + 9 * j, :, 0] = glyphs[c]
    return texts, images + 0.1 * rng.normal(size=images.shape).astype(np.float32)


def decode_batch_predictions(pred):
    input_len = np.ones(pred.shape[0]) * pred.shape[1]
    results = ops.ctc_decode(pred, sequence_lengths=input_len, strategy="greedy")[0][0][:, :LABEL_LENGTH]
    output_text = []
    for res in results:
        res = tf.strings.reduce_join(num_to_char(res + 1)).numpy().decode("utf-8")
        output_text.append(res)
    return output_text


def main():
    keras.utils.set_random_seed(41)
    rng = np.random.default_rng(41)
    texts, images = synthetic_captchas(rng, 64)
    labels = np.stack([char_to_num(tf.strings.unicode_split(t, input_encoding="UTF-8")).numpy() for t in texts])
    dataset = tf.data.Dataset.from_tensor_slices({"image": images, "label": labels.astype(np.float32)}).batch(16)

    model = build_model()
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01))
    history = model.fit(dataset, epochs=4, verbose=0)
    prediction_model = keras.models.Model(model.input[0], model.get_layer(name="dense2").output)
    preds = prediction_model.predict(images[:8], verbose=0)
    decoded = decode_batch_predictions(preds)

    loss = ops.ctc_loss(labels[:8].astype(np.int32), preds, np.full(8, LABEL_LENGTH, np.int32),
                        np.full(8, WIDTH // 2, np.int32), mask_index=0)
    legacy = tf.keras.backend.ctc_decode(preds, np.full(8, WIDTH // 2), greedy=True)
    return (history.history["loss"] + [float(v) for v in loss.numpy()] + [" ".join(decoded), " ".join(texts[:8])]
            + [float(v) for v in legacy[1].numpy().ravel()] + [str(legacy[0][0].shape)]
            + [" ".join(char_to_num.get_vocabulary()), str(num_to_char(tf.constant([0, 1, 5])).numpy().tolist())])


if __name__ == "__main__":
    print(main())
