"""The raw ops ``tf.fftnd``, ``tf.ifftnd``, ``tf.rfftnd`` and ``tf.irfftnd`` (no CPU kernel in TF 2.21: see
``_signal_fftnd``)."""

from vfw.frontends.tensorflow._dispatch import convert_to_tensor
from vfw.frontends.tensorflow._signal_fftnd import complex_input, real_input


def _raw(tf_op, check):
    def raw(input, fft_length, axes, name=None, **type_attrs):  # noqa: A002  (TF's argument name)
        raise check(tf_op, convert_to_tensor(input))

    raw.__name__ = raw.__qualname__ = tf_op.lower()
    raw.__doc__ = f"The raw ``{tf_op}`` op: TF 2.21 has no CPU kernel for it (NotFoundError)."
    return raw


fftnd = _raw("FFTND", complex_input)
ifftnd = _raw("IFFTND", complex_input)
rfftnd = _raw("RFFTND", real_input)
irfftnd = _raw("IRFFTND", lambda tf_op, x: complex_input(tf_op, x, with_real=True))

NAMESPACES = {"tf": ["fftnd", "ifftnd", "rfftnd", "irfftnd"]}
TENSOR_METHODS = {}
