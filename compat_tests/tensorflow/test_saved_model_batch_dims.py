"""tf.saved_model.save of functions whose inputs share an unknown batch dim (labels and logits), whose graph scales
by ``1 / batch`` (the gradient of a mean) and checks sparse labels, saved and loaded under real TF and vfw, then
called at several batch sizes (round 7 of the programs: these were refused, or saved for one batch size only)."""

import numpy as np

from compat_tests.tensorflow.harness import check

X = np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4)
Y = np.array([0, 2, 1, 1, 0], np.int32)


def _trainer(tf):
    class Trainer(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(np.linspace(-0.5, 0.5, 12, dtype=np.float32).reshape(4, 3))

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([None], tf.int32)])
        def train(self, x, y):
            with tf.GradientTape() as tape:
                logits = tf.matmul(x, self.w)
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            self.w.assign_sub(0.5 * tape.gradient(loss, self.w))
            return loss

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None], tf.float32)])
        def scaled_rows(self, x, weights):
            with tf.GradientTape() as tape:
                tape.watch(x)
                total = tf.reduce_mean(x * weights[:, None])
            return tape.gradient(total, x)

    return Trainer()


def test_inputs_sharing_a_batch_dim_train_at_every_batch_size(tmp_path):
    def program(tf):
        path = str(tmp_path / tf.__name__.split(".")[0])
        tf.saved_model.save(_trainer(tf), path)
        loaded = tf.saved_model.load(path)
        losses = [loaded.train(X[:n], Y[:n]) for n in (5, 2, 3, 1)]
        return losses, loaded.w.read_value()

    check(program, rtol=1e-5, atol=1e-6)


def test_gradient_of_a_mean_over_every_element(tmp_path):
    def program(tf):
        path = str(tmp_path / tf.__name__.split(".")[0])
        tf.saved_model.save(_trainer(tf), path)
        loaded = tf.saved_model.load(path)
        return [loaded.scaled_rows(X[:n, :3], np.arange(n, dtype=np.float32)) for n in (5, 2, 3, 1)]

    check(program)


def test_loaded_function_refuses_labels_out_of_range(tmp_path):
    def program(tf):
        path = str(tmp_path / tf.__name__.split(".")[0])
        tf.saved_model.save(_trainer(tf), path)
        loaded = tf.saved_model.load(path)
        return loaded.train(X[:2], np.array([0, 3], np.int32))

    check(program)
