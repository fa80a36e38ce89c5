"""The Keras "collaborative filtering" example, shrunk: a RecommenderNet subclass with user and movie Embeddings
(he_normal, l2 regularizers) and bias embeddings, ops.tensordot scores, sigmoid ratings; then a functional
two-tower model with Dot(axes=1, normalize=True) cosine scores, sample_weight in fit, evaluate(return_dict=True)
and a top-k recommendation with tf.math.top_k."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers, ops

NUM_USERS, NUM_MOVIES, EMBEDDING_SIZE = 12, 20, 6


class RecommenderNet(keras.Model):
    def __init__(self, num_users, num_movies, embedding_size, **kwargs):
        super().__init__(**kwargs)
        self.user_embedding = layers.Embedding(num_users, embedding_size, embeddings_initializer="he_normal",
                                               embeddings_regularizer=keras.regularizers.l2(1e-6))
        self.user_bias = layers.Embedding(num_users, 1)
        self.movie_embedding = layers.Embedding(num_movies, embedding_size, embeddings_initializer="he_normal",
                                                embeddings_regularizer=keras.regularizers.l2(1e-6))
        self.movie_bias = layers.Embedding(num_movies, 1)

    def call(self, inputs):
        user_vector = self.user_embedding(inputs[:, 0])
        user_bias = self.user_bias(inputs[:, 0])
        movie_vector = self.movie_embedding(inputs[:, 1])
        movie_bias = self.movie_bias(inputs[:, 1])
        dot_user_movie = ops.tensordot(user_vector, movie_vector, 2)
        x = dot_user_movie + user_bias + movie_bias
        return ops.nn.sigmoid(x)


def main():
    keras.utils.set_random_seed(9)
    rng = np.random.default_rng(9)
    users = rng.integers(0, NUM_USERS, 300)
    movies = rng.integers(0, NUM_MOVIES, 300)
    taste = rng.normal(size=(NUM_USERS, 3)) @ rng.normal(size=(3, NUM_MOVIES))
    ratings = 1 / (1 + np.exp(-taste[users, movies]))
    x = np.stack([users, movies], axis=1)
    y = ratings.astype(np.float32)

    model = RecommenderNet(NUM_USERS, NUM_MOVIES, EMBEDDING_SIZE)
    model.compile(loss=keras.losses.BinaryCrossentropy(), optimizer=keras.optimizers.SGD(learning_rate=0.5))
    history = model.fit(x=x[:240], y=y[:240], batch_size=32, epochs=3, validation_data=(x[240:], y[240:]), verbose=0)
    values = history.history["loss"] + history.history["val_loss"] + [float(len(model.losses))]

    user_input = keras.Input(shape=(1,), name="user", dtype="int32")
    movie_input = keras.Input(shape=(1,), name="movie", dtype="int32")
    user_vec = layers.Flatten()(layers.Embedding(NUM_USERS, EMBEDDING_SIZE, name="user_tower")(user_input))
    movie_vec = layers.Flatten()(layers.Embedding(NUM_MOVIES, EMBEDDING_SIZE, name="movie_tower")(movie_input))
    cosine = layers.Dot(axes=1, normalize=True)([user_vec, movie_vec])
    output = layers.Dense(1, activation="sigmoid")(cosine)
    towers = keras.Model({"user": user_input, "movie": movie_input}, output)
    towers.compile(optimizer=keras.optimizers.SGD(0.5), loss="mse",
                   metrics=["mae", keras.metrics.RootMeanSquaredError()])
    sample_weight = np.where(y > 0.5, 2.0, 1.0).astype(np.float32)
    data = {"user": users[:, None], "movie": movies[:, None]}
    history = towers.fit(data, y, sample_weight=sample_weight, batch_size=50, epochs=3, verbose=0)
    values += [v for key in sorted(history.history) for v in history.history[key]]
    result = towers.evaluate(data, y, sample_weight=sample_weight, return_dict=True, verbose=0)
    values += [result[key] for key in sorted(result)] + [" ".join(sorted(result))]

    scores = towers.predict({"user": np.full((NUM_MOVIES, 1), 3), "movie": np.arange(NUM_MOVIES)[:, None]},
                            verbose=0)[:, 0]
    top = tf.math.top_k(scores, k=5)
    values += [float(v) for v in top.indices.numpy()] + [float(v) for v in top.values.numpy()]
    return values


if __name__ == "__main__":
    print(main())
