"""The Keras "knowledge distillation" example, shrunk: a trained teacher CNN, a Distiller model whose compile takes
extra arguments (student loss, distillation loss, alpha, temperature), a custom train_step (KLDivergence of
temperature-softened softmaxes, scaled by temperature squared) and test_step, compiled metrics updated by hand, and
a student trained from scratch for comparison."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


class Distiller(keras.Model):
    def __init__(self, student, teacher):
        super().__init__()
        self.teacher = teacher
        self.student = student

    def compile(self, optimizer, metrics, student_loss_fn, distillation_loss_fn, alpha=0.1, temperature=3):
        super().compile(optimizer=optimizer, metrics=metrics)
        self.student_loss_fn = student_loss_fn
        self.distillation_loss_fn = distillation_loss_fn
        self.alpha = alpha
        self.temperature = temperature

    def train_step(self, data):
        x, y = data
        teacher_predictions = self.teacher(x, training=False)
        with tf.GradientTape() as tape:
            student_predictions = self.student(x, training=True)
            student_loss = self.student_loss_fn(y, student_predictions)
            distillation_loss = self.distillation_loss_fn(
                tf.nn.softmax(teacher_predictions / self.temperature, axis=1),
                tf.nn.softmax(student_predictions / self.temperature, axis=1)) * self.temperature ** 2
            loss = self.alpha * student_loss + (1 - self.alpha) * distillation_loss
        trainable_vars = self.student.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply_gradients(zip(gradients, trainable_vars))
        for metric in self.metrics:
            if metric.name != "loss":
                metric.update_state(y, student_predictions)
        results = {m.name: m.result() for m in self.metrics}
        results.update({"student_loss": student_loss, "distillation_loss": distillation_loss})
        return results

    def test_step(self, data):
        x, y = data
        y_prediction = self.student(x, training=False)
        student_loss = self.student_loss_fn(y, y_prediction)
        for metric in self.metrics:
            if metric.name != "loss":
                metric.update_state(y, y_prediction)
        results = {m.name: m.result() for m in self.metrics}
        results.update({"student_loss": student_loss})
        return results

    def call(self, x):
        return self.student(x)


def cnn(name, filters):
    return keras.Sequential([
        keras.Input(shape=(12, 12, 1)),
        layers.Conv2D(filters, (3, 3), strides=(2, 2), padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.MaxPooling2D(pool_size=(2, 2), strides=(1, 1), padding="same"),
        layers.Conv2D(filters * 2, (3, 3), strides=(2, 2), padding="same"),
        layers.Flatten(),
        layers.Dense(4),
    ], name=name)


def main():
    keras.utils.set_random_seed(3)
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 128)
    x = rng.normal(0, 1, (128, 12, 12, 1)).astype(np.float32)
    x[np.arange(128), 3 * y, 3 * y, 0] += 4.0
    teacher, student = cnn("teacher", 8), cnn("student", 2)
    student_scratch = keras.models.clone_model(student)

    teacher.compile(optimizer=keras.optimizers.Adam(), loss=keras.losses.SparseCategoricalCrossentropy(
        from_logits=True), metrics=[keras.metrics.SparseCategoricalAccuracy()])
    values = teacher.fit(x, y, epochs=3, batch_size=32, verbose=0).history["loss"]
    values += teacher.evaluate(x, y, verbose=0)

    distiller = Distiller(student=student, teacher=teacher)
    distiller.compile(optimizer=keras.optimizers.Adam(), metrics=[keras.metrics.SparseCategoricalAccuracy()],
                      student_loss_fn=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      distillation_loss_fn=keras.losses.KLDivergence(), alpha=0.1, temperature=10)
    history = distiller.fit(x, y, epochs=3, batch_size=32, verbose=0)
    values += [v for key in sorted(history.history) for v in history.history[key]]
    values += [" ".join(sorted(history.history))]
    evaluation = distiller.evaluate(x, y, verbose=0, return_dict=True)
    values += [evaluation[key] for key in sorted(evaluation)] + [" ".join(sorted(evaluation))]

    student_scratch.compile(optimizer=keras.optimizers.Adam(), loss=keras.losses.SparseCategoricalCrossentropy(
        from_logits=True), metrics=[keras.metrics.SparseCategoricalAccuracy()])
    values += student_scratch.fit(x, y, epochs=3, batch_size=32, verbose=0).history["loss"]
    values += student_scratch.evaluate(x, y, verbose=0)
    return values


if __name__ == "__main__":
    print(main())
