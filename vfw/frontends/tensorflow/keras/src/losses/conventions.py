"""The few Keras backend conventions losses and metrics rely on.

Keras converts its inputs with ``ops.convert_to_tensor`` (a tensor of another dtype is cast; a
Python or numpy value of an integer or bool dtype is converted first and cast after) and resolves
a ``dtype`` argument that may also be a dtype policy to the dtype computations run in. (Masks
travel as ``_keras_mask`` attributes: ``engine.layer_call.get_keras_mask``/``set_keras_mask``.)
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend import config as backend_config
from vfw.frontends.tensorflow.keras.src.backend import dtypes as backend_dtypes
from vfw.frontends.tensorflow.keras.src.engine import dtype_policy
from vfw.frontends.tensorflow.keras.src.ops import _common as ops_common


def convert(x, dtype=None):
    """``x`` as a tensor of ``dtype`` (Keras' ``ops.convert_to_tensor``); a tensor already of it comes back as is.

    Returning the same object matters: the ``_keras_mask``/``_keras_logits`` attributes travel with it.
    A list or tuple holding tensors is stacked, as TF's conversion packs it (Keras maps conversions
    over nested structures, so a nested list of numbers reaches the loss functions as a list of
    scalar tensors).
    """
    if isinstance(x, (list, tuple)) and any(tf.is_tensor(leaf) for leaf in tf.nest.flatten(x)):
        x = tf.stack([convert(item) for item in x])
    return ops_common.convert_to_tensor(x, dtype)


def dtype_name(x):
    """The Keras dtype name (``"float32"``...) of a tensor or variable."""
    return backend_dtypes.standardize_dtype(x.dtype)


def compute_dtype(dtype):
    """The dtype computations run in for a ``dtype`` argument (None: ``floatx()``; a policy or its name: its
    compute dtype)."""
    return dtype_policy.get(dtype or backend_config.floatx()).compute_dtype


def epsilon():
    """Keras' fuzz factor (``keras.config.epsilon()``, 1e-7 unless set)."""
    return backend_config.epsilon()


def floatx():
    """Keras' default float dtype name (``keras.config.floatx()``)."""
    return backend_config.floatx()
