"""Batch, layer, group and RMS normalization: vfw.torch == vfw.tensorflow == onnxruntime.

Conventions that differ and are converted here: Keras' BatchNormalization ``momentum`` is the
weight of the old statistics (torch's ``1 - momentum``), its ``epsilon`` defaults to 1e-3 (torch
1e-5), and its moving variance is updated with the biased batch variance where torch's running
variance uses the unbiased one (n / (n - 1) times larger): a documented difference, asserted below.
"""

from compat_tests.cross.harness import CHANNELS_LAST, SAME, assert_close, check, check_layer, normal, tf, torch, uniform

IMAGE = CHANNELS_LAST[4]


def test_batch_norm_training_statistics():
    def torch_bn(torch, x, gamma, beta):
        return torch.nn.functional.batch_norm(x, None, None, gamma, beta, training=True, eps=1e-3)

    def tf_bn(tf, x, gamma, beta):
        mean, variance = tf.nn.moments(x, axes=[0, 1, 2])
        return tf.nn.batch_normalization(x, mean, variance, beta, gamma, variance_epsilon=1e-3)

    check(torch_bn, tf_bn, dict(x=normal((4, 3, 5, 5), scale=2.0), gamma=normal((3,), 1), beta=normal((3,), 2)),
          layouts=dict(x=IMAGE), out_layouts=[IMAGE])


def test_batch_norm_inference_with_running_statistics():
    mean, variance = normal((3,), 3), uniform((3,), 0.5, 2.0, 4)

    def torch_bn(torch, x, gamma, beta):
        return torch.nn.functional.batch_norm(x, torch.tensor(mean), torch.tensor(variance), gamma, beta,
                                              training=False, eps=1e-5)

    def tf_bn(tf, x, gamma, beta):
        return tf.nn.batch_normalization(x, tf.constant(mean), tf.constant(variance), beta, gamma, 1e-5)

    check(torch_bn, tf_bn, dict(x=normal((2, 3, 4, 4)), gamma=normal((3,), 1), beta=normal((3,), 2)),
          layouts=dict(x=IMAGE), out_layouts=[IMAGE])


BATCH_NORM_WEIGHTS = [("gamma", ("weight",), SAME), ("beta", ("bias",), SAME),
                      ("moving_mean", ("running_mean",), SAME), ("moving_variance", ("running_var",), SAME)]


def batch_norm_pair(seed):
    torch.manual_seed(seed)
    module = torch.nn.BatchNorm2d(3, eps=1e-3, momentum=0.1)
    with torch.no_grad():
        module.weight.copy_(torch.tensor(uniform((3,), 0.5, 1.5, seed)))
        module.bias.copy_(torch.tensor(normal((3,), seed + 1)))
        module.running_mean.copy_(torch.tensor(normal((3,), seed + 2)))
        module.running_var.copy_(torch.tensor(uniform((3,), 0.5, 2.0, seed + 3)))
    return module, tf.keras.layers.BatchNormalization(momentum=0.9, epsilon=1e-3)


def test_batch_norm_layer_in_training_and_its_moving_statistics():
    module, layer = batch_norm_pair(0)
    x = normal((4, 3, 3, 5), 5, 2.0)
    old_mean, old_var = module.running_mean.numpy().copy(), module.running_var.numpy().copy()
    check_layer(module.train(), layer, dict(x=x), BATCH_NORM_WEIGHTS, layouts=dict(x=IMAGE), out_layouts=[IMAGE],
                tf_call=lambda layer, x: layer(x, training=True), exports=False)
    assert_close(layer.moving_mean.numpy(), module.running_mean.numpy(), "moving mean")
    # The documented difference: torch's running variance takes the unbiased batch variance.
    n = x.shape[0] * x.shape[2] * x.shape[3]
    batch_var = x.transpose(1, 0, 2, 3).reshape(3, -1).var(axis=1)
    assert_close(module.running_var.numpy(), 0.9 * old_var + 0.1 * batch_var * n / (n - 1), "torch running_var")
    assert_close(layer.moving_variance.numpy(), 0.9 * old_var + 0.1 * batch_var, "Keras moving_variance")
    assert_close(layer.moving_mean.numpy(), 0.9 * old_mean + 0.1 * x.mean(axis=(0, 2, 3)), "Keras moving_mean")


def test_batch_norm_layer_in_inference():
    module, layer = batch_norm_pair(1)
    check_layer(module.eval(), layer, dict(x=normal((2, 3, 4, 4), 6)), BATCH_NORM_WEIGHTS, layouts=dict(x=IMAGE),
                out_layouts=[IMAGE], tf_call=lambda layer, x: layer(x, training=False))


def test_layer_norm_functional():
    def tf_ln(tf, x, gamma, beta):
        mean, variance = tf.nn.moments(x, axes=[-1], keepdims=True)
        return (x - mean) * tf.math.rsqrt(variance + 1e-5) * gamma + beta

    check(lambda torch, x, gamma, beta: torch.nn.functional.layer_norm(x, (6,), gamma, beta, eps=1e-5), tf_ln,
          dict(x=normal((2, 4, 6), scale=3.0), gamma=normal((6,), 1), beta=normal((6,), 2)))


def layer_norm_weights(shape):
    """A LayerNorm whose affine weights are not the initial ones (so a swapped gamma/beta shows)."""
    module = torch.nn.LayerNorm(shape, eps=1e-5)
    with torch.no_grad():
        module.weight.copy_(torch.tensor(uniform(shape, 0.5, 1.5, 7)))
        module.bias.copy_(torch.tensor(normal(shape, 8)))
    return module


def test_layer_norm_module_vs_keras_layer():
    check_layer(layer_norm_weights((6,)), tf.keras.layers.LayerNormalization(epsilon=1e-5),
                dict(x=normal((3, 2, 6), scale=2.0)), [("gamma", ("weight",), SAME), ("beta", ("bias",), SAME)])


def test_layer_norm_over_two_axes():
    check_layer(layer_norm_weights((4, 6)), tf.keras.layers.LayerNormalization(axis=[-2, -1], epsilon=1e-5),
                dict(x=normal((3, 4, 6), scale=2.0)), [("gamma", ("weight",), SAME), ("beta", ("bias",), SAME)])


def test_group_norm_module_vs_keras_layer():
    module = torch.nn.GroupNorm(2, 4, eps=1e-3)
    with torch.no_grad():
        module.weight.copy_(torch.tensor(uniform((4,), 0.5, 1.5, 9)))
        module.bias.copy_(torch.tensor(normal((4,), 10)))
    check_layer(module, tf.keras.layers.GroupNormalization(groups=2, epsilon=1e-3), dict(x=normal((2, 4, 3, 5))),
                [("gamma", ("weight",), SAME), ("beta", ("bias",), SAME)], layouts=dict(x=IMAGE),
                out_layouts=[IMAGE])


def test_rms_norm_module_vs_keras_layer():
    module = torch.nn.RMSNorm(6, eps=1e-6)
    with torch.no_grad():
        module.weight.copy_(torch.tensor(uniform((6,), 0.5, 1.5, 11)))
    check_layer(module, tf.keras.layers.RMSNormalization(epsilon=1e-6), dict(x=normal((3, 6), scale=2.0)),
                [("scale", ("weight",), SAME)])


def test_moments_match_torch_var_mean():
    # tf.nn.moments gives the biased variance: torch.var_mean(correction=0).
    check(lambda torch, x: torch.var_mean(x, dim=(0, 2), correction=0),
          lambda tf, x: tuple(reversed(tf.nn.moments(x, axes=[0, 2]))), dict(x=normal((3, 4, 5), scale=2.0)))
