"""``keras.utils.FeatureSpace``: preprocess and encode a dict of structured-data features (Keras 3.15.1).

A FeatureSpace maps feature names to feature specs (a preprocessing layer, the dtype it reads and
how its output is encoded).  ``adapt(dataset)`` adapts the preprocessing layers that learn from
data; calling the space on a dict of values (one example or a batch, eagerly or inside
``dataset.map``) preprocesses every feature, hashes the requested crosses, one-hot encodes what
asks for it and returns one concatenated float vector (``output_mode="concat"``) or a dict.

Encoded features come in sorted feature-name order, then the crosses in sorted name order, as in
Keras, so concatenated vectors are laid out exactly as Keras lays them out.

Configs and ``.keras`` files match Keras': ``Feature``, ``Cross`` and the identity preprocessor of
plain float features are named by Keras' internal module (``keras.src.layers.preprocessing.
feature_space``), and the space's sublayers sit under the attributes Keras' saving walk reaches
(``preprocessors``, ``crossers``, ``one_hot_encoders``, ``concat``).  ``Feature`` and ``Cross``
are plain objects (not saveables): Keras' walk skips all their attributes, so they hold nothing
a file stores.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import backend
from vfw.frontends.tensorflow.keras.src.engine import naming
from vfw.frontends.tensorflow.keras.src.engine.input_layer import Input
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.layers import preprocessing as numeric_layers
from vfw.frontends.tensorflow.keras.src.layers import preprocessing_hashing as hashing_layers
from vfw.frontends.tensorflow.keras.src.layers import preprocessing_lookup as lookup_layers
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_text import TextVectorization
from vfw.frontends.tensorflow.keras.src.utils import serialization

API = {"utils": ["FeatureSpace"]}

# The module Keras' configs name for the helper classes below.
_KERAS_MODULE = "keras.src.layers.preprocessing.feature_space"
_FEATURE_OUTPUT_MODES = ("int", "one_hot", "float")
_CROSS_OUTPUT_MODES = ("int", "one_hot")


def _check_output_mode(output_mode, allowed):
    if output_mode not in allowed:
        expected = "{" + ", ".join(repr(mode) for mode in allowed) + "}"
        raise ValueError(f"Invalid value for argument `output_mode`. Expected one of {expected}. "
                         f"Received: output_mode={output_mode}")


def _deserialize(config):
    """A Feature, Cross or preprocessing layer from its config (the helper classes resolve here, as Keras
    resolves them by its internal module)."""
    helpers = {"Feature": Feature, "Cross": Cross, "TFDIdentity": TFDIdentity}
    return serialization.deserialize_keras_object(config, custom_objects=helpers)


class TFDIdentity(Layer):
    """The preprocessor of plain float features: returns its input."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._allow_non_tensor_positional_args = True

    def call(self, x):
        return x


class TFDConcat(Layer):
    """Concatenates the encoded features along ``axis``."""

    def __init__(self, axis, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, xs):
        return tf.concat(xs, axis=self.axis)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class Cross:
    """A feature cross: the named features hashed together into ``crossing_dim`` bins.

    Parameters
    ----------
    feature_names : sequence of str
    crossing_dim : int
    output_mode : {"one_hot", "int"}
    """

    def __init__(self, feature_names, crossing_dim, output_mode="one_hot"):
        _check_output_mode(output_mode, _CROSS_OUTPUT_MODES)
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self):
        """str: the crossed feature names joined by ``_X_`` (the key of the cross's output)."""
        return "_X_".join(self.feature_names)

    def get_config(self):
        return {"feature_names": self.feature_names, "crossing_dim": self.crossing_dim,
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Feature:
    """A feature spec: the dtype of its raw values, its preprocessing layer and its encoding.

    Parameters
    ----------
    dtype : str
        The dtype of the feature's ``keras.Input`` ("float32", "int32", "string"...).
    preprocessor : keras.Layer or dict
        The layer (or its serialized config).
    output_mode : {"float", "one_hot", "int"}
        "one_hot" multi-hot encodes the preprocessor's integer output.
    """

    def __init__(self, dtype, preprocessor, output_mode):
        _check_output_mode(output_mode, _FEATURE_OUTPUT_MODES)
        self.dtype = dtype
        self.preprocessor = _deserialize(preprocessor) if isinstance(preprocessor, dict) else preprocessor
        self.output_mode = output_mode

    def get_config(self):
        return {"dtype": self.dtype, "preprocessor": serialization.serialize_keras_object(self.preprocessor),
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


for _helper in (TFDIdentity, TFDConcat, Cross, Feature):
    _helper.__module__ = _KERAS_MODULE  # Keras' configs name these classes by this module


def _preprocessor_name(name, kind):
    """``<name>_preprocessor``, ``name`` defaulting to a fresh name for ``kind`` (as Keras names them)."""
    return f"{name or naming.auto_name(kind)}_preprocessor"


def _cardinality(name, preprocessor):
    """The number of distinct integer values ``preprocessor`` outputs (None when Keras leaves it unknown)."""
    if isinstance(preprocessor, (lookup_layers.IntegerLookup, lookup_layers.StringLookup)):
        return preprocessor.vocabulary_size()
    if isinstance(preprocessor, numeric_layers.CategoryEncoding):
        return preprocessor.num_tokens
    if isinstance(preprocessor, (numeric_layers.Discretization, hashing_layers.Hashing,
                                 hashing_layers.HashedCrossing)):
        return preprocessor.num_bins
    raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. However it isn't a standard feature and the "
                     "dimensionality of its output space is not known, thus it cannot be one-hot encoded. Try using "
                     "`output_mode='int'`.")


def _as_tensor(value):
    """``value`` as a tf tensor (tensors, composite tensors and symbolic tensors pass through)."""
    if tf.is_tensor(value) or isinstance(value, (tf.SparseTensor, tf.RaggedTensor)):
        return value
    return tf.convert_to_tensor(value)


class FeatureSpace(Layer):
    """One-stop preprocessing and encoding of structured data (a dict of named features).

    Parameters
    ----------
    features : dict
        ``{name: spec}``; a spec is a ``Feature`` (``FeatureSpace.float_normalized()``...), its
        config dict, or one of the names "float", "float_normalized", "float_rescaled",
        "float_discretized", "integer_categorical", "string_categorical", "integer_hashed",
        "string_hashed" (default arguments).
    output_mode : {"concat", "dict"}
        "concat": one float vector per example (every feature must be float-encoded);
        "dict": ``{name: encoded feature}``, crosses included.
    crosses : list, optional
        ``FeatureSpace.cross(...)`` objects or tuples of feature names (hashed into
        ``crossing_dim`` bins, one-hot encoded).
    crossing_dim : int
        Default number of bins of crosses given as tuples.
    hashing_dim : int
        Number of bins of "integer_hashed" / "string_hashed" features given by name.
    num_discretization_bins : int
        Number of bins of "float_discretized" features given by name.
    name : str, optional
    """

    @classmethod
    def cross(cls, feature_names, crossing_dim, output_mode="one_hot"):
        """A ``Cross`` of ``feature_names`` hashed into ``crossing_dim`` bins."""
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype, preprocessor, output_mode):
        """A ``Feature`` with a custom preprocessing layer."""
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name=None):
        """Float values passed through unchanged."""
        preprocessor = TFDIdentity(dtype="float32", name=_preprocessor_name(name, "float"))
        return Feature(dtype="float32", preprocessor=preprocessor, output_mode="float")

    @classmethod
    def float_rescaled(cls, scale=1.0, offset=0.0, name=None):
        """Float values mapped to ``x * scale + offset`` (a ``Rescaling`` layer)."""
        preprocessor = numeric_layers.Rescaling(scale=scale, offset=offset,
                                                name=_preprocessor_name(name, "float_rescaled"))
        return Feature(dtype="float32", preprocessor=preprocessor, output_mode="float")

    @classmethod
    def float_normalized(cls, name=None):
        """Float values standardized with the adapted mean and variance (a ``Normalization`` layer)."""
        preprocessor = numeric_layers.Normalization(axis=-1, name=_preprocessor_name(name, "float_normalized"))
        return Feature(dtype="float32", preprocessor=preprocessor, output_mode="float")

    @classmethod
    def float_discretized(cls, num_bins, bin_boundaries=None, output_mode="one_hot", name=None):
        """Float values bucketized into ``num_bins`` adapted bins (or at ``bin_boundaries``)."""
        preprocessor = numeric_layers.Discretization(num_bins=num_bins, bin_boundaries=bin_boundaries,
                                                     name=_preprocessor_name(name, "float_discretized"))
        return Feature(dtype="float32", preprocessor=preprocessor, output_mode=output_mode)

    @classmethod
    def integer_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot", name=None):
        """Integer values indexed by an adapted vocabulary (an ``IntegerLookup`` layer)."""
        preprocessor = lookup_layers.IntegerLookup(name=_preprocessor_name(name, "integer_categorical"),
                                                   max_tokens=max_tokens, num_oov_indices=num_oov_indices)
        return Feature(dtype="int32", preprocessor=preprocessor, output_mode=output_mode)

    @classmethod
    def string_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot", name=None):
        """String values indexed by an adapted vocabulary (a ``StringLookup`` layer)."""
        preprocessor = lookup_layers.StringLookup(name=_preprocessor_name(name, "string_categorical"),
                                                  max_tokens=max_tokens, num_oov_indices=num_oov_indices)
        return Feature(dtype="string", preprocessor=preprocessor, output_mode=output_mode)

    @classmethod
    def string_hashed(cls, num_bins, output_mode="one_hot", name=None):
        """String values hashed into ``num_bins`` bins (a ``Hashing`` layer)."""
        preprocessor = hashing_layers.Hashing(name=_preprocessor_name(name, "string_hashed"), num_bins=num_bins)
        return Feature(dtype="string", preprocessor=preprocessor, output_mode=output_mode)

    @classmethod
    def integer_hashed(cls, num_bins, output_mode="one_hot", name=None):
        """Integer values hashed into ``num_bins`` bins (a ``Hashing`` layer)."""
        preprocessor = hashing_layers.Hashing(name=_preprocessor_name(name, "integer_hashed"), num_bins=num_bins)
        return Feature(dtype="int32", preprocessor=preprocessor, output_mode=output_mode)

    def __init__(self, features, output_mode="concat", crosses=None, crossing_dim=32, hashing_dim=32,
                 num_discretization_bins=32, name=None):
        super().__init__(name=name)
        if not features:
            raise ValueError("The `features` argument cannot be None or empty.")
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.features = {name: self._standardize_feature(name, spec) for name, spec in features.items()}
        self.crosses = [self._standardize_cross(cross, features) for cross in crosses or ()]
        self.crosses_by_name = {cross.name: cross for cross in self.crosses}
        _check_output_mode(output_mode, ("dict", "concat"))
        self.output_mode = output_mode
        self.inputs = {name: Input(shape=(1,), dtype=feature.dtype, name=name)
                       for name, feature in self.features.items()}
        self.preprocessors = {name: feature.preprocessor for name, feature in self.features.items()}
        self.encoded_features = None
        self.crossers = {cross.name: hashing_layers.HashedCrossing(cross.crossing_dim, name=cross.name)
                         for cross in self.crosses}
        self.one_hot_encoders = {}
        self._is_adapted = False
        self.concat = None
        self._preprocessed_features_names = None
        self._crossed_features_names = None
        self._sublayers_built = False

    def _standardize_feature(self, name, spec):
        if isinstance(spec, Feature):
            return spec
        if isinstance(spec, dict):
            return _deserialize(spec)
        by_name = {
            "float": lambda: self.float(name=name),
            "float_normalized": lambda: self.float_normalized(name=name),
            "float_rescaled": lambda: self.float_rescaled(name=name),
            "float_discretized": lambda: self.float_discretized(name=name, num_bins=self.num_discretization_bins),
            "integer_categorical": lambda: self.integer_categorical(name=name),
            "string_categorical": lambda: self.string_categorical(name=name),
            "integer_hashed": lambda: self.integer_hashed(self.hashing_dim, name=name),
            "string_hashed": lambda: self.string_hashed(self.hashing_dim, name=name),
        }
        if not isinstance(spec, str) or spec not in by_name:
            raise ValueError(f"Invalid feature type: {spec}")
        return by_name[spec]()

    def _standardize_cross(self, cross, features):
        if isinstance(cross, dict):
            cross = _deserialize(cross)
        if isinstance(cross, Cross):
            return cross
        if not self.crossing_dim:
            raise ValueError("When specifying `crosses`, the argument `crossing_dim` (dimensionality of the crossing "
                             "space) should be specified as well.")
        if any(key not in features for key in cross):
            raise ValueError("All features referenced in the `crosses` argument should be present in the `features` "
                             f"dict. Received unknown features: {cross}")
        return Cross(cross, crossing_dim=self.crossing_dim)

    # -- adapting ------------------------------------------------------------------------------------------------
    def _adaptable_feature_names(self):
        """Names of the features whose preprocessor still learns from data."""
        names = []
        for name, preprocessor in self.preprocessors.items():
            # Keras skips Normalization layers given their mean and variance and TextVectorization layers
            # given a vocabulary (other layers with an `adapt` method are adapted).
            if isinstance(preprocessor, numeric_layers.Normalization) and preprocessor.input_mean is not None:
                continue
            if isinstance(preprocessor, TextVectorization) and preprocessor._has_input_vocabulary:
                continue
            if hasattr(preprocessor, "adapt"):
                names.append(name)
        return names

    def adapt(self, dataset):
        """Adapt every adaptable preprocessor to its feature's values in ``dataset``.

        Parameters
        ----------
        dataset : tf.data.Dataset or dict
            A dataset of feature dicts (batched or not), or a dict of arrays/lists.
        """
        if not isinstance(dataset, tf.data.Dataset):
            if not isinstance(dataset, dict):
                raise ValueError("`adapt()` can only be called on a tf.data.Dataset or a dict of arrays/lists. "
                                 f"Received instead: {dataset} (of type {type(dataset)})")
            dataset = tf.data.Dataset.from_tensor_slices(dataset)
        for name in self._adaptable_feature_names():
            feature_dataset = dataset.map(lambda x, name=name: x[name])
            rank = len(next(iter(feature_dataset)).shape)
            if rank == 0:  # unbatched scalars
                feature_dataset = feature_dataset.batch(32)
            if rank in (0, 1):  # one value per example: give it a feature axis
                feature_dataset = feature_dataset.map(lambda x: tf.expand_dims(x, -1))
            self.preprocessors[name].adapt(feature_dataset)
        self._is_adapted = True
        self.get_encoded_features()  # creates the encoders
        self.built = True
        self._sublayers_built = True

    def _check_if_adapted(self):
        if not self._is_adapted:
            if self._adaptable_feature_names():
                raise ValueError("You need to call `.adapt(dataset)` on the FeatureSpace before you can start using "
                                 "it.")
            self._is_adapted = True

    def _check_if_built(self):
        if not self._sublayers_built:
            self._check_if_adapted()
            self.get_encoded_features()
            self._sublayers_built = True

    # -- the functional API ----------------------------------------------------------------------------------------
    def get_inputs(self):
        """dict: ``{name: keras.Input(shape=(1,), dtype=feature dtype)}``."""
        self._check_if_built()
        return self.inputs

    def get_encoded_features(self):
        """The encoded symbolic features of ``get_inputs()`` (one KerasTensor in concat mode, else a dict)."""
        self._check_if_adapted()
        if self.encoded_features is None:
            preprocessed = self._preprocess_features(self.inputs)
            self.encoded_features = self._merge_features(preprocessed, self._cross_features(preprocessed))
        return self.encoded_features

    # -- encoding --------------------------------------------------------------------------------------------------
    def _preprocess_features(self, features):
        return {name: self.preprocessors[name](value) for name, value in features.items()}

    def _cross_features(self, features):
        return {cross.name: self.crossers[cross.name]([features[name] for name in cross.feature_names])
                for cross in self.crosses}

    def _merge_features(self, preprocessed_features, crossed_features):
        """The encoded features in Keras' order, concatenated or as a dict; the first call creates the
        one-hot encoders and the concatenation layer and checks the specs."""
        if not self._preprocessed_features_names:
            self._preprocessed_features_names = sorted(preprocessed_features)
            self._crossed_features_names = sorted(crossed_features)
        named = [(name, preprocessed_features[name], self.features[name])
                 for name in self._preprocessed_features_names]
        named += [(name, crossed_features[name], self.crosses_by_name[name]) for name in self._crossed_features_names]
        creating = not self._sublayers_built
        encoded = {}
        for name, value, spec in named:
            if creating:
                self._make_encoder(name, value, spec)
            encoder = self.one_hot_encoders.get(name)
            encoded[name] = encoder(value) if encoder else value
            if creating and self.output_mode == "concat":
                dtype = backend.standardize_dtype(encoded[name].dtype)
                if dtype.startswith("int") or dtype == "string":
                    raise ValueError(f"Cannot concatenate features because feature '{name}' has not been encoded (it "
                                     f"has dtype {dtype}). Consider using `output_mode='dict'`.")
        if self.output_mode == "dict":
            return encoded
        if creating:
            self.concat = TFDConcat(axis=-1)
        return self.concat(list(encoded.values()))

    def _make_encoder(self, name, value, spec):
        """Create the multi-hot encoder of a one-hot feature or cross (checking its preprocessor's dtype)."""
        if spec.output_mode != "one_hot":
            return
        dtype = backend.standardize_dtype(tf.nest.flatten(value)[0].dtype)
        if not dtype.startswith("int"):
            raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. Thus its preprocessor should return an "
                             f"integer dtype. Instead it returns a {dtype} dtype.")
        preprocessor = self.preprocessors.get(name) or self.crossers.get(name)
        cardinality = _cardinality(name, preprocessor)
        if cardinality is not None:
            self.one_hot_encoders[name] = numeric_layers.CategoryEncoding(num_tokens=cardinality,
                                                                          output_mode="multi_hot")

    def __call__(self, data):
        """Encode ``data``, a dict of one example (scalars) or a batch (vectors or ``(batch, 1)`` arrays).

        Returns
        -------
        tf.Tensor or dict
            Concat mode: ``(batch, encoded size)``, or ``(encoded size,)`` for one example of scalars.
            Dict mode: the encoded features (a leading axis of 1 dropped for one example of scalars).
        """
        self._check_if_built()
        if not isinstance(data, dict):
            raise ValueError(f"A FeatureSpace can only be called with a dict. Received: data={data} (of type "
                             f"{type(data)}")
        data = {key: _as_tensor(value) for key, value in data.items()}
        rebatched = False
        for name, value in data.items():
            if len(value.shape) == 0:
                data[name] = tf.reshape(value, (1, 1))
                rebatched = True
            elif len(value.shape) == 1:
                data[name] = tf.expand_dims(value, -1)
        preprocessed = tf.nest.map_structure(_as_tensor, self._preprocess_features(data))
        crossed = tf.nest.map_structure(_as_tensor, self._cross_features(preprocessed))
        merged = self._merge_features(preprocessed, crossed)
        if not rebatched:
            return merged
        if self.output_mode == "concat":
            if merged.shape[0] != 1:
                raise ValueError(f"Expected rebatched data to have batch size 1. Received: shape={merged.shape}")
            return tf.squeeze(merged, axis=0)
        return {name: tf.squeeze(value, axis=0) if len(value.shape) == 2 and value.shape[0] == 1 else value
                for name, value in merged.items()}

    # -- configs and saving ------------------------------------------------------------------------------------------
    def get_config(self):
        return {"features": serialization.serialize_keras_object(self.features), "output_mode": self.output_mode,
                "crosses": serialization.serialize_keras_object(self.crosses), "crossing_dim": self.crossing_dim,
                "hashing_dim": self.hashing_dim, "num_discretization_bins": self.num_discretization_bins}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def get_build_config(self):
        return {name: feature.preprocessor.get_build_config() for name, feature in self.features.items()}

    def build_from_config(self, config):
        for name, build_config in config.items():
            preprocessor = self.features[name].preprocessor
            if not preprocessor.built:
                preprocessor.build_from_config(build_config)
        self._is_adapted = True

    def save(self, filepath):
        """Save the FeatureSpace to a ``.keras`` file (reload it with ``keras.saving.load_model``)."""
        from vfw.frontends.tensorflow.keras.src.saving import archive

        archive.save_model(self, str(filepath))

    def save_own_variables(self, store):
        return

    def load_own_variables(self, store):
        return
