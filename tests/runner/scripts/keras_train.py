"""An ordinary Keras script (run by real TensorFlow/Keras and by ``python -m vfw run --as tensorflow``)."""

import json
import sys

import keras
import numpy as np
import tensorflow as tf
from keras import layers

rng = np.random.RandomState(0)
features = rng.randn(64, 4).astype("float32")
labels = (rng.randn(64) > 0).astype("int32")
model = keras.Sequential([keras.Input((4,)), layers.Dense(8, activation="tanh"), layers.Dense(3)])
model.set_weights([(rng.randn(*w.shape) * 0.5).astype("float32") for w in model.get_weights()])
model.compile(optimizer=keras.optimizers.Adam(0.05),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
history = model.fit(features, labels, epochs=int(sys.argv[1]), batch_size=16, shuffle=False, verbose=0)
print(json.dumps({"tensor_module": type(tf.constant(1.0)).__module__, "tensorflow_file": tf.__file__,
                  "keras_is_tf_keras": keras is tf.keras,
                  "losses": history.history["loss"]}))
