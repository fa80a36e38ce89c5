"""A custom TensorFlow training loop: tf.Module, tf.data, tf.GradientTape and a tf.function train step.

A two-layer network on synthetic 8x8 digits, written the way TF2 code without Keras' ``fit`` is
written: the train step is a ``tf.function``, traced once into an engine graph (forward pass,
gradients and the optimizer's updates together) and then run compiled for every batch.
"""

import vfw.tensorflow as tf
from digits import make_digits


class MLP(tf.Module):
    """64 -> 64 (ReLU) -> 10, with Glorot-uniform weights drawn from a seeded generator."""

    def __init__(self, generator):
        super().__init__()
        limit1, limit2 = (6 / (64 + 64)) ** 0.5, (6 / (64 + 10)) ** 0.5
        self.w1 = tf.Variable(generator.uniform([64, 64], -limit1, limit1), name="w1")
        self.b1 = tf.Variable(tf.zeros([64]), name="b1")
        self.w2 = tf.Variable(generator.uniform([64, 10], -limit2, limit2), name="w2")
        self.b2 = tf.Variable(tf.zeros([10]), name="b2")

    def __call__(self, images):
        hidden = tf.nn.relu(tf.matmul(tf.reshape(images, [-1, 64]), self.w1) + self.b1)
        return tf.matmul(hidden, self.w2) + self.b2


def main():
    generator = tf.random.Generator.from_seed(0)
    model = MLP(generator)
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    train_images, train_labels = make_digits(2000, seed=0)
    test_images, test_labels = make_digits(500, seed=1)
    dataset = tf.data.Dataset.from_tensor_slices((train_images, train_labels)).shuffle(2000, seed=0).batch(50)

    @tf.function
    def train_step(images, labels):
        with tf.GradientTape() as tape:
            logits = model(images)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    @tf.function
    def accuracy(images, labels):
        predicted = tf.argmax(model(images), axis=1)
        return tf.reduce_mean(tf.cast(tf.equal(predicted, labels), tf.float32))

    for epoch in range(5):
        losses = [float(train_step(images, labels)) for images, labels in dataset]
        print(f"epoch {epoch + 1}: mean loss {sum(losses) / len(losses):.4f}, "
              f"test accuracy {float(accuracy(test_images, test_labels)):.3f}")
    print(f"train_step traced {train_step.experimental_get_tracing_count()} time(s) for "
          f"{5 * len(losses)} steps")


if __name__ == "__main__":
    main()
