"""Layers that compose other preprocessing layers: Pipeline, RandAugment, AugMix; and MaxNumBoundingBoxes.

``Pipeline`` applies its layers in order (passing ``training`` and masks on) and takes data as it comes (tensors,
arrays, dicts), so it works in ``dataset.map``.  RandAugment and AugMix apply random augmentation layers of their own
(RandomShear, RandomTranslation, RandomRotation, RandomBrightness, RandomColorDegeneration, RandomContrast,
RandomSharpness, RandomPosterization, Solarization, AutoContrast, Equalization), built as Keras builds them from the
layer's ``factor`` and ``value_range``.  Keras draws those layers' parameters from the composing layer's own seed
stream; here each sub-layer draws from its own generator (seeded from ``seed``), so with the same seed the
augmentations are Keras' in distribution, not number for number.
"""

import random as py_random

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import random
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.layers import (
    preprocessing_image,
    preprocessing_image_color,
    preprocessing_image_geometry,
    preprocessing_image_hsv,
)
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import _base_factor, _ImageLayer
from vfw.frontends.tensorflow.keras.src.utils import serialization

API = {"layers": ["Pipeline", "RandAugment", "AugMix", "MaxNumBoundingBoxes"]}


class Pipeline(Layer):
    """Applies ``layers`` to the input one after the other (a plain layer, not a Model).

    Parameters
    ----------
    layers : list of Layer
    name : str, optional
    """

    def __init__(self, layers, name=None):
        super().__init__(name=name)
        self._pipeline_layers = layers
        # data goes to the layers as given (dicts, arrays), as in a tf.data map
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True

    @property
    def layers(self):
        """list of Layer: the layers, in order."""
        return self._pipeline_layers

    def call(self, inputs, training=True, mask=None):
        outputs = inputs
        for layer in self._pipeline_layers:
            kwargs = {}
            if layer._call_has_mask_arg:
                kwargs["mask"] = mask
            if layer._call_has_training_arg and training is not None:
                kwargs["training"] = training
            outputs = layer(outputs, **kwargs)
            mask = tf.nest.map_structure(lambda value: getattr(value, "_keras_mask", None), outputs)
        return outputs

    def get_config(self):
        return {"layers": serialization.serialize_keras_object(self._pipeline_layers), "name": self.name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError(f"`Pipeline` config must contain a `layers` key mapping to a list of serialized layers. "
                             f"Received config with layers={layers}.")
        layers = [serialization.deserialize_keras_object(layer, custom_objects=custom_objects) for layer in layers]
        return cls(**{**config, "layers": layers})


# The augmentations RandAugment and AugMix choose from: name -> builder(factor, value_range, common keyword arguments)
_AUGMENTATIONS = {
    "random_shear": lambda f, r, kw: preprocessing_image_geometry.RandomShear(x_factor=f, y_factor=f, **kw),
    "random_translation": lambda f, r, kw: preprocessing_image.RandomTranslation(f, f, **kw),
    "random_rotation": lambda f, r, kw: preprocessing_image.RandomRotation(f, **kw),
    "random_brightness": lambda f, r, kw: preprocessing_image.RandomBrightness(f, value_range=r, **kw),
    "random_color_degeneration": lambda f, r, kw: preprocessing_image_hsv.RandomColorDegeneration(
        f, value_range=r, **kw),
    "random_contrast": lambda f, r, kw: preprocessing_image.RandomContrast(f, value_range=r, **kw),
    "random_sharpness": lambda f, r, kw: preprocessing_image_color.RandomSharpness(f, value_range=r, **kw),
    "random_posterization": lambda f, r, kw: preprocessing_image_color.RandomPosterization(
        max(1, int(8 * f[1])), value_range=r, **kw),
    "solarization": lambda f, r, kw: preprocessing_image_color.Solarization(f, f, value_range=r, **kw),
    "auto_contrast": lambda f, r, kw: preprocessing_image_color.AutoContrast(value_range=r, **kw),
    "equalization": lambda f, r, kw: preprocessing_image_color.Equalization(value_range=r, **kw),
}
_GEOMETRIC = ("random_shear", "random_translation", "random_rotation")
_UNSEEDED = ("auto_contrast", "equalization")


class _AugmentingLayer(_ImageLayer):
    """Builds the named augmentation layers (attributes of the same names) from ``factor`` and ``value_range``."""

    def _init_augmentations(self, names, value_range, factor, interpolation, seed, **kwargs):
        self.value_range = value_range
        self.factor = _base_factor(factor, (0, 1))
        self.interpolation = interpolation
        self.seed = seed
        self.generator = random.SeedGenerator(seed)
        self._augmentation_names = list(names)
        for index, name in enumerate(names):
            common = dict(kwargs, data_format=self.data_format)
            if name not in _UNSEEDED:  # distinct streams per sub-layer, reproducible from ``seed``
                common["seed"] = None if seed is None else seed + 1 + index
            if name in _GEOMETRIC:
                common["interpolation"] = interpolation
            setattr(self, name, _AUGMENTATIONS[name](self.factor, value_range, common))

    def build(self, input_shape):
        for name in self._augmentation_names:
            getattr(self, name).build(input_shape)
        self.built = True

    def _augmented(self, images, name):
        return tf.cast(getattr(self, name)(images, training=True), self.compute_dtype)

    def _augmentation_config(self):
        return {"value_range": self.value_range, "factor": self.factor, "interpolation": self.interpolation,
                "seed": self.seed}


class RandAugment(_AugmentingLayer):
    """Applies ``num_ops`` augmentations, each chosen at random (one choice per call, for the whole batch) among 11,
    of magnitudes drawn in ``factor`` (in [0, 1]: a number f for (0, f)).

    Parameters
    ----------
    value_range : pair of float
    num_ops : int
    factor : float or pair of float
    interpolation : {"bilinear", "nearest"}
    seed : int, optional
    data_format : str, optional
    """

    _NAMES = ("random_shear", "random_translation", "random_rotation", "random_brightness",
              "random_color_degeneration", "random_contrast", "random_sharpness", "random_posterization",
              "solarization", "auto_contrast", "equalization")

    def __init__(self, value_range=(0, 255), num_ops=2, factor=0.5, interpolation="bilinear", seed=None,
                 data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.num_ops = num_ops
        self._init_augmentations(self._NAMES, value_range, factor, interpolation, seed, **kwargs)

    def call(self, inputs, training=True):
        images = tf.cast(self._images(inputs), self.compute_dtype)
        if not training:
            return images
        choices = random.randint((self.num_ops,), 0, len(self._NAMES), seed=self.generator)
        for step in range(self.num_ops):
            # every candidate is computed and one kept, so the choice may be a graph tensor (tf.data, tf.function)
            candidates = tf.stack([self._augmented(images, name) for name in self._NAMES])
            images = tf.gather(candidates, choices[step])
        return images

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, **self._augmentation_config(),
                "num_ops": self.num_ops}


class AugMix(_AugmentingLayer):
    """Mixes each batch with ``num_chains`` augmented copies of it (chains of up to ``chain_depth`` random
    augmentations, weights from Dirichlet(alpha)), by a weight from Beta(alpha, alpha); clipped to ``value_range``.

    As Keras, the augmentations of the chains are chosen with Python's ``random`` module (so
    ``keras.utils.set_random_seed`` fixes them; in a traced function they are fixed at tracing).

    Parameters
    ----------
    value_range : pair of float
    num_chains, chain_depth : int
    factor : float or pair of float
        Magnitude range, in [0, 1] (a number f for (0, f)).
    alpha : float
    all_ops : bool
        Also use brightness, color degeneration, contrast and sharpness (besides the geometric ones,
        posterization, solarization, auto contrast, equalization).
    interpolation : {"bilinear", "nearest"}
    seed : int, optional
    data_format : str, optional
    """

    _NAMES = ("random_shear", "random_translation", "random_rotation", "random_posterization", "solarization",
              "auto_contrast", "equalization")
    _COLOR_NAMES = ("random_brightness", "random_color_degeneration", "random_contrast", "random_sharpness")

    def __init__(self, value_range=(0, 255), num_chains=3, chain_depth=3, factor=0.3, alpha=1.0, all_ops=True,
                 interpolation="bilinear", seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.num_chains = num_chains
        self.chain_depth = chain_depth
        self.alpha = alpha
        self.all_ops = all_ops
        names = self._NAMES + (self._COLOR_NAMES if all_ops else ())
        self._init_augmentations(names, value_range, factor, interpolation, seed, **kwargs)

    def call(self, inputs, training=True):
        images = tf.cast(self._images(inputs), self.compute_dtype)
        if not training:
            return images
        dtype = self.compute_dtype
        gammas = random.gamma([self.num_chains], self.alpha, seed=self.generator)
        chain_weights = tf.cast(gammas / tf.reduce_sum(gammas, axis=-1, keepdims=True), dtype)
        image_weight = tf.cast(random.beta((), self.alpha, self.alpha, seed=self.generator), dtype)
        mixed = tf.zeros_like(images)
        for chain in range(self.num_chains):
            augmented = images
            for _ in range(self.chain_depth):
                name = py_random.choice(self._augmentation_names + [None])  # None: a shorter chain
                if name is not None:
                    augmented = self._augmented(augmented, name)
            mixed = mixed + augmented * chain_weights[chain]
        images = image_weight * images + (1 - image_weight) * mixed
        return tf.clip_by_value(images, tf.cast(self.value_range[0], dtype), tf.cast(self.value_range[1], dtype))

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, **self._augmentation_config(),
                "num_chains": self.num_chains, "chain_depth": self.chain_depth, "alpha": self.alpha,
                "all_ops": self.all_ops}


class MaxNumBoundingBoxes(_ImageLayer):
    """Pads (with ``fill_value``) or truncates the ``"boxes"`` ``[batch, n, 4]`` and ``"labels"`` ``[batch, n]`` of
    ``data["bounding_boxes"]`` to ``max_number`` boxes; the other entries pass through.

    Parameters
    ----------
    max_number : int
    fill_value : int
    bounding_box_format : str, optional
        Required with bounding boxes (as Keras); the boxes are not converted.
    """

    def __init__(self, max_number, fill_value=-1, bounding_box_format=None, **kwargs):
        super().__init__(**kwargs)
        self.max_number = int(max_number)
        self.fill_value = int(fill_value)
        self.bounding_box_format = bounding_box_format

    def call(self, data, training=True):
        if not isinstance(data, dict) or "bounding_boxes" not in data:
            return data
        if self.bounding_box_format is None:
            raise ValueError("You passed an input with a 'bounding_boxes' key, but you didn't specify a bounding box "
                             "format. Pass a `bounding_box_format` argument to your MaxNumBoundingBoxes layer, e.g. "
                             "`bounding_box_format='xyxy'`.")
        boxes = data["bounding_boxes"]
        result = dict(boxes, boxes=self._fitted(boxes["boxes"], 3), labels=self._fitted(boxes["labels"], 2))
        return dict(data, bounding_boxes=result)

    def _fitted(self, values, batched_rank):
        """``values`` cut or padded along the boxes axis (an unbatched one as a batch of one)."""
        values = tf.convert_to_tensor(values)
        unbatched = values.shape.rank == batched_rank - 1
        if unbatched:
            values = tf.expand_dims(values, 0)
        values = values[:, :self.max_number]
        paddings = [[0, 0], [0, self.max_number - values.shape[1]]] + [[0, 0]] * (batched_rank - 2)
        values = tf.pad(values, paddings, constant_values=tf.cast(self.fill_value, values.dtype))
        return tf.squeeze(values, 0) if unbatched else values

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, dict) and "bounding_boxes" in input_shape:
            extra_keys = set(input_shape["bounding_boxes"]) - {"boxes", "labels"}
            if extra_keys:
                raise KeyError(f"There are unsupported keys in `bounding_boxes`: {list(extra_keys)}. Only `boxes` "
                               f"and `labels` are supported.")
            for key in ("boxes", "labels"):
                shape = list(input_shape["bounding_boxes"][key])
                shape[1] = self.max_number
                input_shape["bounding_boxes"][key] = shape
        return input_shape

    def get_config(self):
        config = {**super().get_config(), "data_format": self.data_format}
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return {**config, "max_number": self.max_number}
