"""The tensorflow.org tutorials "Customization basics", "Custom layers" and "Custom training walkthrough", shrunken:
tensors vs numpy (type, shape, dtype, automatic conversion), a tf.Module with tf.Variables and a @tf.function that
records the traced tensor's str, a custom Layer with build/add_weight and a ResnetIdentityBlock Model (summary-free
layer/variable listing), then the iris-like classifier trained in a GradientTape loop with
SparseCategoricalCrossentropy(from_logits=True), tf.keras.metrics.Mean and SparseCategoricalAccuracy per epoch, and
a test accuracy computed with tf.math.argmax."""

import numpy as np
import tensorflow as tf


class LinearModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(5.0, name="w")
        self.b = tf.Variable(0.0, name="b")

    def __call__(self, x):
        return self.w * x + self.b


class MyDenseLayer(tf.keras.layers.Layer):
    def __init__(self, num_outputs):
        super().__init__()
        self.num_outputs = num_outputs

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=[int(input_shape[-1]), self.num_outputs])

    def call(self, inputs):
        return tf.matmul(inputs, self.kernel)


class ResnetIdentityBlock(tf.keras.Model):
    def __init__(self, kernel_size, filters):
        super().__init__(name="")
        filters1, filters2 = filters
        self.conv2a = tf.keras.layers.Conv2D(filters1, (1, 1))
        self.bn2a = tf.keras.layers.BatchNormalization()
        self.conv2b = tf.keras.layers.Conv2D(filters2, kernel_size, padding="same")
        self.bn2b = tf.keras.layers.BatchNormalization()

    def call(self, input_tensor, training=False):
        x = self.conv2a(input_tensor)
        x = self.bn2a(x, training=training)
        x = tf.nn.relu(x)
        x = self.conv2b(x)
        x = self.bn2b(x, training=training)
        x += input_tensor
        return tf.nn.relu(x)


def main():
    tf.keras.utils.set_random_seed(7)
    rng = np.random.default_rng(7)
    values = []
    traced = []

    x = tf.matmul([[1]], [[2, 3]])
    values += [str(x), str(x.shape), str(x.dtype)]
    ndarray = np.ones([3, 3])
    tensor = tf.math.multiply(ndarray, 42)
    values += [str(tensor), str(type(np.add(tensor, 1)).__name__), str(type(tensor.numpy()).__name__)]
    values += [str(tf.math.square(2) + tf.math.square(3)), str(tf.reduce_sum([1, 2, 3])),
               str(tf.io.encode_base64("hello world"))]

    module = LinearModule(name="simple")
    values += [str([v.name for v in module.trainable_variables]), module.name]

    @tf.function
    def scaled(v):
        traced.append(str(v))
        return module(v) * 2.0

    values += [float(scaled(tf.constant(3.0))), float(scaled(tf.constant(4.0)))]
    values += [float(v) for v in scaled(tf.constant([1.0, 2.0]))]
    values += traced

    layer = MyDenseLayer(4)
    out = layer(tf.zeros([2, 3]))
    values += [str(out.shape), str([v.name for v in layer.trainable_variables]), str(layer.kernel.shape)]

    block = ResnetIdentityBlock(1, [1, 3])
    y = block(tf.constant(rng.normal(size=(1, 2, 3, 3)).astype("float32")))
    values += [str(y.shape), len(block.layers), len(block.variables), len(block.trainable_variables)]
    values += [str([layer.__class__.__name__ for layer in block.layers])]

    # "Custom training walkthrough" on an iris-like table
    features = rng.normal(size=(60, 4)).astype("float32") + np.repeat(np.eye(3, 4) * 2, 20, axis=0).astype("float32")
    labels = np.repeat(np.arange(3), 20).astype("int32")
    train_dataset = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(60, seed=1).batch(12)
    features_batch, labels_batch = next(iter(train_dataset))
    values += [str(features_batch.shape), str(labels_batch.dtype)]

    model = tf.keras.Sequential([
        tf.keras.layers.Dense(10, activation=tf.nn.relu, input_shape=(4,)),
        tf.keras.layers.Dense(10, activation=tf.nn.relu),
        tf.keras.layers.Dense(3),
    ])
    predictions = model(features_batch)
    values += [float(v) for v in tf.nn.softmax(predictions[:2]).numpy().ravel()]
    values += [str(tf.math.argmax(predictions, axis=1).dtype)]
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def loss(model, x, y, training):
        y_ = model(x, training=training)
        return loss_object(y_true=y, y_pred=y_)

    def grad(model, inputs, targets):
        with tf.GradientTape() as tape:
            loss_value = loss(model, inputs, targets, training=True)
        return loss_value, tape.gradient(loss_value, model.trainable_variables)

    optimizer = tf.keras.optimizers.SGD(learning_rate=0.05)
    loss_value, grads = grad(model, features_batch, labels_batch)
    values += [str(optimizer.iterations.numpy()), float(loss_value)]
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    values += [str(optimizer.iterations.numpy()), float(loss(model, features_batch, labels_batch, training=True))]

    for _epoch in range(3):
        epoch_loss_avg = tf.keras.metrics.Mean()
        epoch_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
        for x, y in train_dataset:
            loss_value, grads = grad(model, x, y)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            epoch_loss_avg.update_state(loss_value)
            epoch_accuracy.update_state(y, model(x, training=True))
        values += [float(epoch_loss_avg.result()), float(epoch_accuracy.result())]

    test_accuracy = tf.keras.metrics.Accuracy()
    for (x, y) in tf.data.Dataset.from_tensor_slices((features, labels)).batch(20):
        logits = model(x, training=False)
        prediction = tf.math.argmax(logits, axis=1, output_type=tf.int64)
        test_accuracy(prediction, y)
    values += [float(test_accuracy.result())]
    predict_dataset = tf.convert_to_tensor([[2.1, 0.1, 0.3, -0.2], [0.0, 2.2, 0.1, 0.4]])
    for i, logits in enumerate(model(predict_dataset, training=False)):
        class_idx = tf.math.argmax(logits).numpy()
        p = tf.nn.softmax(logits)[class_idx]
        values += [f"Example {i} prediction: {class_idx} ({100 * p:4.1f}%)"]
    return values
