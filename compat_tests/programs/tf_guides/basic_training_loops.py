"""The TensorFlow guide "Basic training loops": noisy linear data, a tf.Module model with two variables, an MSE
loss, a hand-written training loop (GradientTape, assign_sub) run for a few epochs, then the same model as a
tf.keras.Model subclass trained with a custom loop and with compile/fit; returns the losses and the variables."""

import tensorflow as tf


class MyModel(tf.Module):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

    def __call__(self, x):
        return self.w * x + self.b


class MyModelKeras(tf.keras.Model):
    # Keras 3 tracks weights made by add_weight (a bare tf.Variable attribute is not trained by fit).
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = self.add_weight(shape=(), initializer=tf.keras.initializers.Constant(5.0))
        self.b = self.add_weight(shape=(), initializer="zeros")

    def call(self, x):
        return self.w * x + self.b


def loss(target_y, predicted_y):
    return tf.reduce_mean(tf.square(target_y - predicted_y))


def train(model, x, y, learning_rate):
    with tf.GradientTape() as t:
        current_loss = loss(y, model(x))
    dw, db = t.gradient(current_loss, [model.w, model.b])
    model.w.assign_sub(learning_rate * dw)
    model.b.assign_sub(learning_rate * db)
    return current_loss


def main():
    out = []
    true_w, true_b, num_examples = 3.0, 2.0, 201
    x = tf.linspace(-2, 2, num_examples)
    x = tf.cast(x, tf.float32)
    noise = tf.random.stateless_normal(shape=[num_examples], seed=[1, 2])
    y = x * true_w + true_b + noise
    model = MyModel()
    out.append(repr(model.variables[0].numpy()))
    out.append(float(loss(y, model(x))))
    for _epoch in range(10):
        train(model, x, y, learning_rate=0.1)
        out.append(float(loss(y, model(x))))
    out += [float(model.w), float(model.b)]

    keras_model = MyModelKeras()
    for _epoch in range(3):
        out.append(float(train(keras_model, x, y, learning_rate=0.1)))
    keras_model = MyModelKeras()
    keras_model.compile(run_eagerly=False, optimizer=tf.keras.optimizers.SGD(learning_rate=0.1),
                        loss="mse")
    history = keras_model.fit(x, y, epochs=5, batch_size=1000, verbose=0, shuffle=False)
    out += [float(v) for v in history.history["loss"]]
    out += [float(keras_model.w), float(keras_model.b)]
    return out


if __name__ == "__main__":
    print("\n".join(str(v) for v in main()))
