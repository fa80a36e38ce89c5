"""Hashing and HashedCrossing: categorical features to hash bins, as Keras computes them with TF string hashes.

``Hashing`` hashes each value (integers and floats, truncated to int64, as their decimal strings) with FarmHash
Fingerprint64 (``tf.strings.to_hash_bucket_fast``), or with keyed SipHash-2-4 when a ``salt`` is given
(``tf.strings.to_hash_bucket_strong``).  ``HashedCrossing`` hashes the cross of two or more features per sample
with TF's sparse-cross fingerprint combination (``tf.sparse.cross_hashed``), so the bins are Keras' bins.
``sparse=True`` outputs are not supported (vfw's encodings are dense).
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _hash_ops
from vfw.frontends.tensorflow.keras.src import backend
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.layers.preprocessing import _check_not_sparse, _DataLayer, encode_categories

API = {"layers": ["Hashing", "HashedCrossing"]}


def _as_tensor(value):
    """``value`` as a tensor; numpy/Python text becomes a string tensor."""
    if isinstance(value, (list, tuple, np.ndarray)) and np.asarray(value).dtype.kind in "USO":
        value = np.asarray(value, object)
    return tf.convert_to_tensor(value)


class Hashing(_DataLayer):
    """Hashes strings or integers into ``num_bins`` bins.

    Parameters
    ----------
    num_bins : int
        The number of bins, including the mask bin 0 when ``mask_value`` is set.
    mask_value : str or int, optional
        Values equal to it go to bin 0; the others hash into bins ``1 .. num_bins - 1``.
    salt : int or pair of int, optional
        A SipHash key (an int ``s`` stands for ``[s, s]``): hash with keyed SipHash-2-4 instead of FarmHash.
    output_mode : {"int", "one_hot", "multi_hot", "count"}
    sparse : bool
        Must be False in vfw.
    dtype : str, optional
        The output dtype: int64 by default for ``"int"`` (int32 allowed), else floatx.

    Notes
    -----
    Input: strings, integers or floats of any shape (floats are truncated to integers first).  Output: int bins
    of the input's shape, or their encodings (see ``CategoryEncoding``).
    """

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs):
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else backend.floatx()
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive values. Received: "
                             f"num_bins={num_bins}.")
        if output_mode == "int" and self.dtype_policy.name not in ("int32", "int64"):
            raise ValueError(f"When `output_mode=\"int\"`, `dtype` should be an integer type, 'int32' or 'in64'. "
                             f"Received: dtype={kwargs['dtype']}")
        modes = ("int", "one_hot", "multi_hot", "count")
        if output_mode not in modes:
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of {modes}. Received: "
                             f"output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError(f"`sparse` may only be true if `output_mode` is `\"one_hot\"`, `\"multi_hot\"`, or "
                             f"`\"count\"`. Received: sparse={sparse} and output_mode={output_mode}")
        _check_not_sparse(sparse)
        self.num_bins = num_bins
        self.mask_value = mask_value
        self.output_mode = output_mode
        self.sparse = sparse
        self.strong_hash = salt is not None
        self.salt = None
        if salt is not None:
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                self.salt = list(salt)
            elif isinstance(salt, int):
                self.salt = [salt, salt]
            else:
                raise ValueError(f"The `salt` argument for `Hashing` can only be a tuple of size 2 integers, or a "
                                 f"single integer. Received: salt={salt}.")
        self._convert_input_args = False

    def _bins(self, values):
        """The bin of every value of ``values`` (int64, ``values``' shape)."""
        hash_bins = self.num_bins
        mask = None
        if self.mask_value is not None and hash_bins > 1:
            hash_bins -= 1
            mask = tf.equal(values, self.mask_value)
        if values.dtype.is_floating:
            values = tf.cast(values, "int64")
        if values.dtype != tf.string:
            values = tf.strings.as_string(values)
        if self.strong_hash:
            bins = tf.strings.to_hash_bucket_strong(values, hash_bins, key=self.salt)
        else:
            bins = tf.strings.to_hash_bucket_fast(values, hash_bins)
        if mask is None:
            return bins
        return tf.where(mask, tf.zeros_like(bins), bins + 1)

    def call(self, inputs):
        inputs = _as_tensor(inputs)
        if self.output_mode == "one_hot" and inputs.shape.rank and inputs.shape[-1] == 1:
            inputs = tf.squeeze(inputs, axis=-1)
        return encode_categories(self._bins(inputs), self.output_mode, self.num_bins, self.dtype)

    def compute_output_shape(self, input_shape):
        # As Keras: a one-hot encoding's shape is declared as (..., num_bins) in place of the last axis, although
        # the eager call adds an axis when the last one is not 1.
        if self.output_mode == "int":
            return tuple(input_shape)
        return tuple(input_shape[:-1]) + (self.num_bins,)

    def compute_output_spec(self, inputs):
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype=self.dtype)

    def get_config(self):
        return {**super().get_config(), "num_bins": self.num_bins, "salt": self.salt, "mask_value": self.mask_value,
                "output_mode": self.output_mode, "sparse": self.sparse}


class HashedCrossing(_DataLayer):
    """Hashes the cross of two or more categorical features (one value per sample each) into ``num_bins`` bins.

    Parameters
    ----------
    num_bins : int
    output_mode : {"int", "one_hot"}
    sparse : bool
        Must be False in vfw.
    name, dtype : optional
        ``dtype`` defaults to int64 for ``"int"`` output, else floatx.

    Notes
    -----
    Input: a list/tuple of integer or string tensors of equal shape ``()``, ``(batch,)`` or ``(batch, 1)``.
    Output: int bins of that shape (or its one-hot encoding).
    """

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, dtype=None, **kwargs):
        if output_mode == "int" and dtype is None:
            dtype = "int64"
        super().__init__(name=name, dtype=dtype)
        if output_mode not in ("int", "one_hot"):
            raise ValueError(f"The `output_mode` argument value of the {type(self).__name__} layer should be one of "
                             f"('int', 'one_hot'). Received: output_mode={output_mode}")
        _check_not_sparse(sparse)
        self.num_bins = num_bins
        self.output_mode = output_mode
        self.sparse = sparse
        self._convert_input_args = False

    def compute_output_shape(self, input_shape):
        if len(input_shape) != 2 or not all(isinstance(shape, tuple) for shape in input_shape):
            raise ValueError(f"Expected as input a list/tuple of 2 tensors. Received input_shape={input_shape}")
        if input_shape[0][-1] != input_shape[1][-1]:
            raise ValueError(f"Expected the two input tensors to have identical shapes. Received "
                             f"input_shape={input_shape}")
        shape = tuple(input_shape[0])
        if self.output_mode == "int":
            return shape
        if shape[-1] != 1:
            return shape + (self.num_bins,)
        return shape[:-1] + (self.num_bins,)

    def compute_output_spec(self, inputs):
        shape = self.compute_output_shape(tuple(tuple(x.shape) for x in inputs))
        return KerasTensor(shape, dtype=self.dtype if self.output_mode == "int" else self.compute_dtype)

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"`HashedCrossing` should be called on a list or tuple of inputs. Received: "
                             f"inputs={inputs}")
        if len(inputs) < 2:
            raise ValueError(f"`HashedCrossing` should be called on at least two inputs. Received: inputs={inputs}")
        features = [_as_tensor(x) for x in inputs]
        self._check_features(features, inputs)
        shape = tuple(features[0].shape)
        bins = _hash_ops.cross_hashed_dense([tf.reshape(x, (-1, 1)) for x in features], self.num_bins)
        bins = tf.reshape(bins, shape)
        return tf.cast(encode_categories(bins, self.output_mode, self.num_bins, self.compute_dtype), self.dtype)

    @staticmethod
    def _check_features(features, inputs):
        shape = tuple(features[0].shape)
        if len(shape) > 2 or (len(shape) == 2 and shape[-1] != 1):
            raise ValueError(f"All `HashedCrossing` inputs should have shape `()`, `(batch_size)` or "
                             f"`(batch_size, 1)`. Received: inputs={inputs}")
        if any(tuple(x.shape) != shape for x in features[1:]):
            raise ValueError(f"All `HashedCrossing` inputs should have equal shape. Received: inputs={inputs}")
        if any(isinstance(x, tf.RaggedTensor) for x in features):
            raise ValueError(f"All `HashedCrossing` inputs should be dense tensors. Received: inputs={inputs}")
        if not all(x.dtype.is_integer or x.dtype == tf.string for x in features):
            raise ValueError(f"All `HashedCrossing` inputs should have an integer or string dtype. Received: "
                             f"inputs={inputs}")

    def get_config(self):
        return {"num_bins": self.num_bins, "output_mode": self.output_mode, "sparse": self.sparse, "name": self.name,
                "dtype": self.dtype}
