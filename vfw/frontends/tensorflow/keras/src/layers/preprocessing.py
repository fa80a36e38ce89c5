"""Preprocessing layers: Rescaling, Normalization (``adapt``), CategoryEncoding, Discretization (``adapt``).

They accept non-tensor positional inputs (numpy arrays, lists), as Keras' data layers do, and
work inside tf.data pipelines (``dataset.map(layer)``).  ``adapt`` computes statistics in numpy
for numpy data and with tf ops for tensors and batches (datasets, PyDatasets, iterables), in
Keras' formulas, so the adapted values are Keras'.
"""

import itertools
import math

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import backend
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.utils import serialization


class _DataLayer(Layer):
    """A layer taking data as positional input (arrays and lists as well as tensors)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._allow_non_tensor_positional_args = True


class Rescaling(_DataLayer):
    """``inputs * scale + offset`` in the compute dtype (``scale`` may be per channel).

    Parameters
    ----------
    scale : float or array
    offset : float or array
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset
        self.supports_masking = True

    def call(self, inputs):
        dtype = self.compute_dtype
        scale = tf.cast(self.scale, dtype)
        offset = tf.cast(self.offset, dtype)
        if scale.shape.rank and backend.image_data_format() == "channels_first":
            scale = tf.reshape(scale, scale.shape.as_list() + [1] * (3 - scale.shape.rank))
        return tf.cast(inputs, dtype) * scale + offset

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "scale": serialization.serialize_keras_object(self.scale),
                "offset": serialization.serialize_keras_object(self.offset)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        for key in ("scale", "offset"):
            config[key] = serialization.deserialize_keras_object(config[key], custom_objects=custom_objects)
        return cls(**config)


def _first_batch(batch):
    """The inputs of a batch that may be an ``(x, y, ...)`` tuple."""
    return batch[0] if isinstance(batch, tuple) else batch


def _batches_and_shape(data):
    """``(data, input_shape, is_batches)`` for ``adapt``: arrays and tensors as they are, datasets and iterables as
    batches (a dataset of single examples batched by 128)."""
    from vfw.frontends.tensorflow.data import Dataset
    from vfw.frontends.tensorflow.keras.src.utils.data import PyDataset

    if isinstance(data, np.ndarray) or tf.is_tensor(data):
        return data, data.shape, False  # a tensor's TensorShape is kept (it is the build config)
    if isinstance(data, Dataset):
        def spec_shape(dataset):
            spec = dataset.element_spec
            return tuple((spec[0] if isinstance(spec, tuple) else spec).shape)

        if len(spec_shape(data)) == 1:
            data = data.batch(128)
        return data, spec_shape(data), True
    if isinstance(data, PyDataset):
        return data, tuple(_first_batch(data[0]).shape), True
    if hasattr(data, "__iter__"):
        iterator = iter(data)
        first = next(iterator, None)
        if first is None:
            raise ValueError("adapt() received an empty iterable (no batches). Expected at least one batch. Pass a "
                             "non-empty iterable of arrays or tensors, e.g. layer.adapt([x]) or "
                             "layer.adapt(list_of_batches).")
        first = _first_batch(first)
        shape = getattr(first, "shape", None)
        if shape is None:
            raise TypeError("adapt() expects an iterable that yields arrays or tensors with a `.shape` attribute "
                            "(e.g. numpy arrays or backend tensors). Got an element of type "
                            f"{type(first).__name__}. Ensure each yielded element is array-like with a `.shape` "
                            "attribute.")
        return itertools.chain([first], iterator), tuple(shape), True
    raise TypeError(f"Unsupported data type: {type(data)}. `adapt` supports `np.ndarray`, backend tensors, "
                    "`tf.data.Dataset`, `keras.utils.PyDataset`, and iterables of batches (e.g. list, generator).")


class Normalization(_DataLayer):
    """``(inputs - mean) / sqrt(variance)`` per feature (``invert``: the inverse map).

    Parameters
    ----------
    axis : int, tuple of int or None
        The axes kept (one mean and variance per position on them); None: one scalar for all.
    mean, variance : array-like, optional
        Given statistics (else computed by ``adapt``, kept in the non-trainable weights ``mean``,
        ``variance`` and ``count``).
    invert : bool
        Map normalized values back (``mean + inputs * sqrt(variance)``).
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        self.axis = () if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
        self.input_mean = mean
        self.input_variance = variance
        self.invert = invert
        self.supports_masking = True
        self._build_input_shape = None
        self.mean = None
        if (mean is not None) != (variance is not None):
            raise ValueError(f"When setting values directly, both `mean` and `variance` must be set. Received: "
                             f"mean={mean} and variance={variance}")
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError(f"When setting values directly, `mean` and `variance` must have the same shape. "
                                 f"Received: mean shape {np.shape(mean)} and variance shape {np.shape(variance)}")
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError(f"The rank of `mean` must be less than or equal to the number of axes "
                                 f"({len(self.axis)}). Received: mean shape {np.shape(mean)} for axis {self.axis}")

    def build(self, input_shape):
        if input_shape is None:
            return
        ndim = len(input_shape)
        self._build_input_shape = input_shape
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Received inputs with ndim={ndim}, "
                             f"while axis={self.axis}")
        self._keep_axis = tuple(sorted(a % ndim for a in self.axis))
        for a in self._keep_axis:
            if input_shape[a] is None:
                raise ValueError(f"All `axis` values to be kept must have a known shape. Received axis={self.axis}, "
                                 f"inputs.shape={input_shape}, with unknown axis at index {a}")
        self._reduce_axis = tuple(a for a in range(ndim) if a not in self._keep_axis)
        self._broadcast_shape = [input_shape[a] if a in self._keep_axis else 1 for a in range(ndim)]
        self._mean_and_var_shape = tuple(input_shape[a] for a in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=self._mean_and_var_shape, initializer="zeros",
                                              trainable=False)
            self.adapt_variance = self.add_weight(name="variance", shape=self._mean_and_var_shape,
                                                  initializer="ones", trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int", initializer="zeros", trainable=False)
            self.built = True
            self.finalize_state()
        else:
            self.mean = self._broadcast_statistic(self.input_mean, ndim)
            self.variance = self._broadcast_statistic(self.input_variance, ndim)
            self.built = True

    def _broadcast_statistic(self, value, ndim):
        """A given mean/variance (scalar or over the last kept axes) broadcast to ``_broadcast_shape``."""
        value = tf.convert_to_tensor(value)
        if value.shape.rank:
            expanded = [1] * ndim
            for i in range(1, value.shape.rank + 1):
                expanded[self._keep_axis[-i]] = value.shape[-i]
            value = tf.reshape(value, expanded)
        return tf.cast(tf.broadcast_to(value, self._broadcast_shape), self.compute_dtype)

    def adapt(self, data):
        """Compute the mean and variance of ``data`` (array, tensor, dataset, PyDataset or iterable of batches)."""
        data, input_shape, is_batches = _batches_and_shape(data)
        if not self.built:
            self.build(input_shape)
        else:
            for a in self._keep_axis:
                if input_shape[a] != self._build_input_shape[a]:
                    raise ValueError(f"The layer was built with input_shape={self._build_input_shape}, but adapt() is "
                                     f"being called with data with an incompatible shape, data.shape={input_shape}")
        if isinstance(data, np.ndarray):
            mean, variance = np.mean(data, axis=self._reduce_axis), np.var(data, axis=self._reduce_axis)
        elif not is_batches:
            data = tf.cast(data, backend.result_type(tf.convert_to_tensor(data).dtype.name, "float32"))
            mean = tf.reduce_mean(data, axis=self._reduce_axis)
            variance = tf.math.reduce_variance(data, axis=self._reduce_axis)
        else:
            mean, variance = self._merged_moments(data)
        self.adapt_mean.assign(mean)
        self.adapt_variance.assign(variance)
        self.finalize_state()

    def _merged_moments(self, batches):
        """The mean and variance over batches, merged batch by batch (Chan et al.'s update, weights by counts)."""
        mean = tf.zeros(self._mean_and_var_shape)
        variance = tf.zeros(self._mean_and_var_shape)
        count = 0
        for batch in batches:
            batch = tf.cast(tf.convert_to_tensor(_first_batch(batch)), self.compute_dtype)
            for a in self._keep_axis:
                expected = self._build_input_shape[a]
                if batch.shape[a] is not None and expected is not None and batch.shape[a] != expected:
                    raise ValueError(f"adapt() yielded a batch with incompatible shape. Expected "
                                     f"{self._build_input_shape}, got {tuple(batch.shape)}.")
            batch_mean = tf.reduce_mean(batch, axis=self._reduce_axis)
            batch_variance = tf.math.reduce_variance(batch, axis=self._reduce_axis)
            batch_count = math.prod(batch.shape[a] for a in self._reduce_axis) if self._reduce_axis else 1
            count += batch_count
            batch_weight = float(batch_count) / count
            existing_weight = 1.0 - batch_weight
            new_mean = mean * existing_weight + batch_mean * batch_weight
            variance = ((variance + (mean - new_mean) ** 2) * existing_weight
                        + (batch_variance + (batch_mean - new_mean) ** 2) * batch_weight)
            mean = new_mean
        return mean, variance

    def finalize_state(self):
        """Refresh the statistics ``call`` uses from the adapted weights."""
        if self.input_mean is not None or not self.built:
            return
        self.mean = tf.cast(tf.reshape(self.adapt_mean, self._broadcast_shape), self.compute_dtype)
        self.variance = tf.cast(tf.reshape(self.adapt_variance, self._broadcast_shape), self.compute_dtype)

    def call(self, inputs):
        if self.mean is None:
            raise ValueError("You must call `.build(input_shape)` on the layer before using it.")
        inputs = tf.cast(tf.convert_to_tensor(inputs), self.compute_dtype)
        spread = tf.maximum(tf.sqrt(self.variance), backend.epsilon())
        if self.invert:
            return self.mean + inputs * spread
        return (inputs - self.mean) / spread

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "invert": self.invert,
                "mean": np.array(self.input_mean).tolist(), "variance": np.array(self.input_variance).tolist()}

    def load_own_variables(self, store):
        super().load_own_variables(store)
        self.finalize_state()

    def get_build_config(self):
        if self._build_input_shape:
            return {"input_shape": self._build_input_shape}
        return None

    def build_from_config(self, config):
        if config:
            self.build(config["input_shape"])


def encode_categories(indices, output_mode, depth, dtype, count_weights=None):
    """Integer ``indices`` as ``output_mode`` encodings of ``depth`` classes (Keras' categorical encoding).

    ``"int"``: cast; ``"one_hot"``: one vector per index (a trailing size-1 axis is dropped);
    ``"multi_hot"`` / ``"count"``: presence / (weighted) counts over axis 1 (axis 0 for 1-D input).
    Out-of-range indices encode to zeros.
    """
    if output_mode == "int":
        return tf.cast(indices, dtype)
    if indices.shape.rank == 0:
        indices = tf.expand_dims(indices, -1)
    if output_mode == "one_hot":
        if indices.shape.rank > 1 and indices.shape[-1] == 1:
            indices = tf.squeeze(indices, axis=-1)
        return tf.one_hot(tf.cast(indices, "int32"), depth, dtype=dtype)
    reduction_axis = 1 if indices.shape.rank > 1 else 0
    encoded = tf.one_hot(tf.cast(indices, "int32"), depth, dtype=dtype)
    if output_mode == "multi_hot":
        return tf.reduce_max(encoded, axis=reduction_axis)
    if count_weights is not None:
        encoded = encoded * tf.expand_dims(tf.cast(count_weights, dtype), -1)
    return tf.reduce_sum(encoded, axis=reduction_axis)


def _check_not_sparse(sparse):
    if sparse:
        raise NotImplementedError("`sparse=True` is not supported by vfw (it has no sparse tensors).")


class CategoryEncoding(_DataLayer):
    """Encodes integer category ids: ``"multi_hot"`` (default), ``"one_hot"`` or ``"count"``.

    Parameters
    ----------
    num_tokens : int
        The number of categories (ids in ``[0, num_tokens)``).
    output_mode : {"multi_hot", "one_hot", "count"}
        ``"binary"`` is an alias of ``"multi_hot"``.
    sparse : bool
        Must be False in vfw.

    Notes
    -----
    ``call(inputs, count_weights=None)``: ``count_weights`` (``"count"`` only) weight each id.
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of tokens is not known "
                             "beforehand, use the IntegerLookup layer instead.")
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        _check_not_sparse(sparse)
        self.num_tokens = num_tokens
        self.output_mode = output_mode
        self.sparse = sparse
        self._convert_input_args = False

    def compute_output_shape(self, input_shape):
        if input_shape is not None and len(input_shape) == 0:
            return (self.num_tokens,)
        if self.output_mode == "one_hot" and (input_shape[-1] != 1 or len(input_shape) == 1):
            return tuple(input_shape) + (self.num_tokens,)
        return tuple(input_shape[:-1]) + (self.num_tokens,)

    def compute_output_spec(self, inputs, count_weights=None):
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype=self.compute_dtype)

    def call(self, inputs, count_weights=None):
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError(f"`count_weights` is not used when `output_mode` is not `'count'`. Received "
                                 f"`count_weights={count_weights}`.")
            count_weights = tf.cast(tf.convert_to_tensor(count_weights), self.compute_dtype)
        return encode_categories(tf.convert_to_tensor(inputs), self.output_mode, self.num_tokens, self.dtype,
                                 count_weights)

    def get_config(self):
        return {**super().get_config(), "num_tokens": self.num_tokens, "output_mode": self.output_mode}


class Discretization(_DataLayer):
    """Buckets values by ``bin_boundaries`` (bucket ``i``: ``boundaries[i-1] <= x < boundaries[i]``).

    Parameters
    ----------
    bin_boundaries : list of float, optional
    num_bins : int, optional
        Boundaries learned by ``adapt`` (approximate quantiles).
    epsilon : float
        Error tolerance of the quantile summary.
    output_mode : {"int", "one_hot", "multi_hot", "count"}
    sparse : bool
        Must be False in vfw.
    """

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int", sparse=False, dtype=None,
                 name=None):
        super().__init__(name=name, dtype=dtype)
        if sparse and output_mode == "int":
            raise ValueError(f"`sparse=True` may only be used if `output_mode` is `'one_hot'`, `'multi_hot'`, or "
                             f"`'count'`. Received: sparse={sparse} and output_mode={output_mode}")
        modes = ("int", "one_hot", "multi_hot", "count")
        if not isinstance(output_mode, str) or output_mode not in modes:
            raise ValueError(f"Unknown value for `output_mode` argument of {type(self).__name__}. Allowed values are: "
                             f"{modes}. Received: output_mode={output_mode}")
        _check_not_sparse(sparse)
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"`num_bins` must be greater than or equal to 0. Received: `num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError(f"Both `num_bins` and `bin_boundaries` should not be set. Received: `num_bins={num_bins}` "
                             f"and `bin_boundaries={bin_boundaries}`")
        if num_bins is None and bin_boundaries is None:
            raise ValueError("You need to set either `num_bins` or `bin_boundaries`.")
        self.bin_boundaries = bin_boundaries
        self.num_bins = num_bins
        self.epsilon = epsilon
        self.output_mode = output_mode
        self.sparse = sparse
        self.summary = None if self.bin_boundaries else _empty_summary()

    @property
    def input_dtype(self):
        return backend.floatx()

    @property
    def output_dtype(self):
        """str: int32 for ``"int"`` output, else the compute dtype."""
        return self.compute_dtype if self.output_mode != "int" else "int32"

    def adapt(self, data, steps=None):
        """Learn ``num_bins`` boundaries from ``data`` (array, tensor, dataset or iterable of batches)."""
        from vfw.frontends.tensorflow.data import Dataset

        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized with `bin_boundaries`, "
                             "use `num_bins` instead.")
        self.reset_state()
        if isinstance(data, Dataset) or (hasattr(data, "__iter__") and not isinstance(data, np.ndarray)
                                         and not tf.is_tensor(data)):
            if isinstance(data, Dataset) and steps is not None:
                data = data.take(steps)
            for i, batch in enumerate(data):
                if steps is not None and i >= steps:
                    break
                self.update_state(batch)
        else:
            self.update_state(data)
        self.finalize_state()

    def update_state(self, data):
        """Merge ``data``'s values into the quantile summary."""
        self.summary = _merge_summaries(_summarize(np.array(data).astype("float32"), self.epsilon), self.summary,
                                        self.epsilon)

    def finalize_state(self):
        if self.num_bins is not None:
            self.bin_boundaries = _compress_summary(self.summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def reset_state(self):
        if self.num_bins is not None:
            self.summary = _empty_summary()

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return input_shape
        depth = len(self.bin_boundaries) + 1 if self.bin_boundaries is not None else self.num_bins
        if self.output_mode == "one_hot":
            if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
                return tuple(input_shape[:-1]) + (depth,)
            return tuple(input_shape) + (depth,)
        if input_shape and len(input_shape) >= 2:
            return (input_shape[0],) + tuple(input_shape[2:]) + (depth,)
        return (depth,)

    def compute_output_spec(self, inputs):
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype=self.output_dtype)

    def load_own_variables(self, store):
        if len(store) == 1:
            self.summary = store["0"]

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at construction time or call "
                             "`adapt(dataset)` before you can start using the `Discretization` layer.")
        # TF's Bucketize: float32 boundaries, each value's bucket = the number of boundaries <= it
        values = tf.cast(tf.convert_to_tensor(inputs), "float64")
        boundaries = tf.constant(np.asarray(self.bin_boundaries, dtype="float32").astype("float64"))
        indices = tf.reduce_sum(tf.cast(tf.expand_dims(values, -1) >= boundaries, "int32"), axis=-1)
        return encode_categories(indices, self.output_mode, len(self.bin_boundaries) + 1, self.output_dtype)

    def get_config(self):
        return {"bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins, "epsilon": self.epsilon,
                "output_mode": self.output_mode, "sparse": self.sparse, "name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        if config.get("bin_boundaries") is not None and config.get("num_bins") is not None:
            config = dict(config)
            boundaries = config.pop("bin_boundaries")
            layer = cls(**config)
            layer.bin_boundaries = boundaries
            return layer
        return cls(**config)


# -- Discretization's quantile summary: [values; weights], sorted by value, compressed to about 1 / epsilon points
def _empty_summary():
    return np.array([[], []], dtype="float32")


def _summarize(values, epsilon):
    """Every ``step``-th sorted value (``step`` = max(1, n / (1 / epsilon))), each weighing ``step``."""
    ordered = np.sort(np.reshape(values, [-1]))
    step = max(ordered.size / (1.0 / epsilon), 1)
    kept = ordered[int(step - 1)::int(step)]
    return np.stack([kept, np.ones_like(kept) * step])


def _merge_summaries(first, second, epsilon):
    merged = np.concatenate((first, second), axis=1)
    return _compress_summary(merged[:, np.argsort(merged[0])], epsilon)


def _compress_summary(summary, epsilon):
    """The summary interpolated at the cumulative-weight fractions ``epsilon, 2 * epsilon, ..., 1`` (unchanged when
    it has fewer than ``1 / epsilon`` points)."""
    if summary.shape[1] * epsilon < 1:
        return summary
    fractions = epsilon + np.arange(0.0, 1.0, epsilon)
    cumulative = summary[1].cumsum()
    cumulative_fractions = cumulative / cumulative[-1]
    values = np.interp(fractions, cumulative_fractions, summary[0])
    cumulative = np.interp(fractions, cumulative_fractions, cumulative)
    weights = np.diff(cumulative, prepend=0.0)
    return np.stack((values, weights)).astype("float32")


API = {"layers": ["Rescaling", "Normalization", "CategoryEncoding", "Discretization"]}
