"""tf.nn.RNNCellDropoutWrapper / RNNCellResidualWrapper / RNNCellDeviceWrapper against real TF 2.21 around Keras
cells with fixed weights: outputs, states (dropout masks to the bit with seeds), gradients and errors."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

X = np.linspace(0.5, 1.5, 8).reshape(2, 4).astype(np.float32)


def _cell(tf, kind, units=4):
    def init(shape, dtype=None):
        return tf.constant(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape), dtype)
    return getattr(tf.keras.layers, kind)(units, kernel_initializer=init, recurrent_initializer=init)


def _zeros(tf, kind, batch=2, units=4):
    state = [tf.zeros([batch, units])]
    return state * 2 if kind == "LSTMCell" else state


@pytest.mark.parametrize("kind", ["SimpleRNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("keep", [dict(input_keep_prob=0.5), dict(output_keep_prob=0.7, state_keep_prob=0.6),
                                  dict(input_keep_prob=0.8, output_keep_prob=0.9, state_keep_prob=0.75)])
def test_dropout_wrapper_seeded(kind, keep):
    def case(tf, x):
        tf.random.set_seed(None)
        wrapper = tf.nn.RNNCellDropoutWrapper(_cell(tf, kind), seed=3, **keep)
        return [wrapper(x, _zeros(tf, kind)) for _ in range(2)]
    check(case, X)


@pytest.mark.parametrize("kind", ["SimpleRNNCell", "LSTMCell"])
def test_dropout_wrapper_variational(kind):
    def case(tf, x):
        tf.random.set_seed(None)
        wrapper = tf.nn.RNNCellDropoutWrapper(_cell(tf, kind), input_keep_prob=0.5, output_keep_prob=0.6,
                                              state_keep_prob=0.7, variational_recurrent=True, input_size=4,
                                              dtype=tf.float32, seed=11)
        return [wrapper(x, _zeros(tf, kind)) for _ in range(2)]
    check(case, X)


def test_dropout_wrapper_state_filter_and_gradients():
    def case(tf, x):
        tf.random.set_seed(None)
        wrapper = tf.nn.RNNCellDropoutWrapper(_cell(tf, "LSTMCell"), state_keep_prob=0.5, seed=2,
                                              dropout_state_filter_visitor=lambda s: False)
        return wrapper(x, _zeros(tf, "LSTMCell"))
    check_grad(case, X)


@pytest.mark.parametrize("options", [dict(input_keep_prob=1.5), dict(output_keep_prob=-0.1),
                                     dict(variational_recurrent=True, input_keep_prob=0.5),
                                     dict(variational_recurrent=True, input_keep_prob=0.5, dtype="float32")])
def test_dropout_wrapper_errors(options):
    check(lambda tf: tf.nn.RNNCellDropoutWrapper(_cell(tf, "SimpleRNNCell"), **options).state_size)


@pytest.mark.parametrize("kind", ["SimpleRNNCell", "LSTMCell"])
def test_residual_and_device_wrappers(kind):
    def case(tf, x):
        residual = tf.nn.RNNCellResidualWrapper(_cell(tf, kind))(x, _zeros(tf, kind))
        custom = tf.nn.RNNCellResidualWrapper(_cell(tf, kind), residual_fn=lambda i, o: i * 2.0 - o)(
            x, _zeros(tf, kind))
        device = tf.nn.RNNCellDeviceWrapper(_cell(tf, kind), "/cpu:0")
        return residual, custom, device(x, _zeros(tf, kind)), device.state_size, device.output_size
    check_grad(case, X)


def test_residual_wrapper_shape_mismatch():
    check(lambda tf, x: tf.nn.RNNCellResidualWrapper(_cell(tf, "SimpleRNNCell", 3))(x, [tf.zeros([2, 3])]), X)
