"""A structured-data model in the style of the Keras "structured data classification from scratch" example and
Stack Overflow answers on preprocessing layers: Normalization.adapt on float64 columns (with mean/variance read
back), StringLookup (num_oov_indices, mask_token, one_hot and count modes, invert), IntegerLookup (vocabulary given,
oov), CategoryEncoding (multi_hot, count with count_weights), Hashing (num_bins, salt, mask_value) applied in a
tf.data map; a subclassed keras.Model overriding train_step and test_step (its own loss tracker and metrics,
returned as dicts) trained with fit(validation_data=...), then evaluate(return_dict=True) and predict_on_batch."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers

CITIES = np.array(["paris", "rome", "oslo", "lima", "rome", "paris", "kyiv", "oslo", "rome", "lima", "", "paris"] * 3)


class TabularModel(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = layers.Dense(8, activation="relu")
        self.out = layers.Dense(1, activation="sigmoid")
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.auc = keras.metrics.AUC(num_thresholds=20, name="auc")
        self.loss_fn = keras.losses.BinaryCrossentropy(label_smoothing=0.05)

    def call(self, inputs, training=False):
        return self.out(self.hidden(inputs))

    @property
    def metrics(self):
        return [self.loss_tracker, self.auc]

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            pred = self(x, training=True)
            loss = self.loss_fn(y, pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.auc.update_state(y, pred)
        return {"loss": self.loss_tracker.result(), "auc": self.auc.result()}

    def test_step(self, data):
        x, y = data
        pred = self(x, training=False)
        self.loss_tracker.update_state(self.loss_fn(y, pred))
        self.auc.update_state(y, pred)
        return {m.name: m.result() for m in self.metrics}


def main():
    keras.utils.set_random_seed(31)
    rng = np.random.default_rng(31)
    values = []
    n = len(CITIES)
    numeric = np.stack([rng.normal(3.0, 2.0, size=n), rng.uniform(0, 100, size=n)], axis=1)
    codes = rng.integers(0, 6, size=n)
    tags = rng.integers(0, 5, size=(n, 3))
    labels = ((numeric[:, 0] > 3.0) ^ (codes % 2 == 0)).astype(np.float32)[:, None]

    norm = layers.Normalization(axis=-1)
    norm.adapt(numeric)
    values += np.ravel(norm.mean).tolist() + np.ravel(norm.variance).tolist() + [str(norm(numeric).dtype)]

    cities = layers.StringLookup(num_oov_indices=2, mask_token="", output_mode="int")
    cities.adapt(CITIES)
    values += [str(cities.get_vocabulary()), int(cities.vocabulary_size())]
    values += cities(tf.constant(["rome", "", "berlin", "kyiv"])).numpy().tolist()
    inverse = layers.StringLookup(vocabulary=cities.get_vocabulary()[3:], invert=True)
    values += [s.decode() for s in inverse(tf.constant([1, 3, 0])).numpy().tolist()]
    city_hot = layers.StringLookup(vocabulary=["paris", "rome", "oslo"], output_mode="one_hot")
    city_count = layers.StringLookup(vocabulary=["paris", "rome", "oslo"], output_mode="count")
    values += city_hot(tf.constant(["rome", "lima"])).numpy().ravel().tolist()
    values += city_count(tf.constant([["rome", "rome", "oslo"]])).numpy().ravel().tolist()

    code_lookup = layers.IntegerLookup(vocabulary=[0, 2, 4], num_oov_indices=1, output_mode="one_hot")
    coded = code_lookup(tf.constant([4, 5, 0]))
    values += coded.numpy().ravel().tolist() + [str(coded.dtype)]
    multi_hot = layers.CategoryEncoding(num_tokens=5, output_mode="multi_hot")
    counts = layers.CategoryEncoding(num_tokens=5, output_mode="count")
    values += multi_hot(tags[:2]).numpy().ravel().tolist()
    values += counts(tags[:2], count_weights=np.full((2, 3), 0.5, np.float32)).numpy().ravel().tolist()
    hashing = layers.Hashing(num_bins=7, salt=1337)
    masked_hashing = layers.Hashing(num_bins=5, mask_value="")
    values += hashing(tf.constant(["paris", "rome", "oslo"])).numpy().ravel().tolist()
    values += masked_hashing(tf.constant([["", "lima", "kyiv"]])).numpy().ravel().tolist()

    def encode(num, city, code, tag, label):
        city_ids = tf.cast(cities(city)[:, None], tf.float32) / 8.0
        features = tf.concat([norm(num), city_ids, tf.cast(code_lookup(code), tf.float32), multi_hot(tag),
                              tf.one_hot(hashing(city), 7)], axis=-1)
        return features, label

    ds = tf.data.Dataset.from_tensor_slices((numeric, CITIES, codes, tags, labels)).batch(6).map(encode)
    first, _ = next(iter(ds))
    values += [str(first.shape), str(first.dtype), float(tf.reduce_sum(first))]
    train, val = ds.take(4), ds.skip(4)

    model = TabularModel()
    model.compile(optimizer=keras.optimizers.Adam(0.03))
    history = model.fit(train, validation_data=val, epochs=2, verbose=0)
    for key in sorted(history.history):
        values += [key] + history.history[key]
    result = model.evaluate(val, return_dict=True, verbose=0)
    values += [str(sorted(result))] + [result[k] for k in sorted(result)]
    predicted = model.predict_on_batch(first)
    values += [str(predicted.shape), float(np.sum(predicted))]
    return values
