"""``SpectralNormalization``: a wrapper dividing its layer's kernel by the kernel's largest singular value.

In training, each call runs ``power_iterations`` steps of the power method from the non-trainable
``vector_u`` ``[1, out]`` (initialized TruncatedNormal(stddev=0.02)) on the kernel reshaped to
``[-1, out]``, stores the new ``u`` and assigns ``kernel / sigma`` to the wrapped layer's kernel
(an all-zero kernel is left as it is), then calls the layer.  Outside training the layer runs on
its kernel as it is.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import initializers, ops
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.layers.rnn.wrappers import Wrapper


class SpectralNormalization(Wrapper):
    """Spectral normalization of a layer with a ``kernel`` (or ``embeddings``) weight.

    Parameters
    ----------
    layer : keras.layers.Layer
        The wrapped layer (Dense, Conv2D, Embedding...).
    power_iterations : int
        Power-method steps per training call (> 0).
    """

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError(f"`power_iterations` should be greater than zero. Received: "
                             f"`power_iterations={power_iterations}`")
        self.power_iterations = power_iterations

    def build(self, input_shape):
        super().build(input_shape)
        self.input_spec = InputSpec(min_ndim=1, axes={-1: input_shape[-1]})
        if hasattr(self.layer, "kernel"):
            self.kernel = self.layer.kernel
        elif hasattr(self.layer, "embeddings"):
            self.kernel = self.layer.embeddings
        else:
            raise ValueError(f"{type(self.layer).__name__} object has no attribute 'kernel' nor 'embeddings'")
        self.kernel_shape = self.kernel.shape
        self.vector_u = self.add_weight(shape=(1, self.kernel_shape[-1]),
                                        initializer=initializers.TruncatedNormal(stddev=0.02), trainable=False,
                                        name="vector_u", dtype=self.kernel.dtype)

    def call(self, inputs, training=False):
        if training:
            kernel = tf.convert_to_tensor(self.kernel)
            vector_u = tf.convert_to_tensor(self.vector_u)
            new_vector_u, new_kernel = tf.cond(tf.reduce_all(tf.equal(kernel, 0)), lambda: (vector_u, kernel),
                                               self.normalized_weights)
            self.vector_u.assign(new_vector_u)
            self.kernel.assign(new_kernel)
        return tf.cast(self.layer(inputs), inputs.dtype)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def normalized_weights(self):
        """``(new vector_u, kernel / sigma)``: the power method's results from the current ``vector_u``."""
        kernel = tf.convert_to_tensor(self.kernel)
        weights = tf.reshape(kernel, [-1, self.kernel_shape[-1]])
        vector_u = tf.convert_to_tensor(self.vector_u)
        for _ in range(self.power_iterations):
            vector_v = ops.normalize(tf.matmul(vector_u, weights, transpose_b=True), axis=None)
            vector_u = ops.normalize(tf.matmul(vector_v, weights), axis=None)
        vector_u, vector_v = tf.stop_gradient(vector_u), tf.stop_gradient(vector_v)
        sigma = tf.matmul(tf.matmul(vector_v, weights), vector_u, transpose_b=True)
        normalized = tf.reshape(kernel / sigma, self.kernel_shape)
        return tf.cast(vector_u, self.vector_u.dtype), tf.cast(normalized, self.kernel.dtype)

    def get_config(self):
        return {**super().get_config(), "power_iterations": self.power_iterations}


API = {"layers": ["SpectralNormalization"]}
