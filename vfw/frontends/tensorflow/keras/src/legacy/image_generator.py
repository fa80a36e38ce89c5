"""tf.keras' legacy ``ImageDataGenerator``: random augmentation and standardization of images, batched by the
iterators of ``image_iterators``."""

import math

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.backend.config import floatx, image_data_format
from vfw.frontends.tensorflow.keras.src.legacy import image_transforms as transforms
from vfw.frontends.tensorflow.keras.src.legacy.image_iterators import DirectoryIterator, NumpyArrayIterator


def _not_fit_warning(option):
    warn_for_user(f"This ImageDataGenerator specifies `{option}`, but it hasn't been fit on any training data. Fit "
                  "it first by calling `.fit(numpy_data)`.")


def _draw_shift(shift_range, size):
    """A shift in pixels: ``choice(range) * choice([-1, 1])`` for an int or a list of values, uniform in
    ``[-range, range]`` for a float; fractions (all values below 1) are scaled by ``size``."""
    try:
        shift = np.random.choice(shift_range)
        shift *= np.random.choice([-1, 1])
    except ValueError:  # a float range: numpy's choice refuses it
        shift = np.random.uniform(-shift_range, shift_range)
    if np.max(shift_range) < 1:
        shift *= size
    return shift


class ImageDataGenerator:
    """Batches of images with random augmentation and standardization (tf.keras' legacy API).

    Parameters
    ----------
    featurewise_center, featurewise_std_normalization : bool
        Subtract the dataset mean / divide by its standard deviation per channel (statistics from :meth:`fit`).
    samplewise_center, samplewise_std_normalization : bool
        The same with each image's own statistics.
    zca_whitening : bool
        Multiply by the ZCA whitening matrix from :meth:`fit` (implies featurewise centering).
    zca_epsilon : float
    rotation_range : float
        Rotations drawn from ``[-rotation_range, rotation_range]`` degrees.
    width_shift_range, height_shift_range : float, int or list
        Shifts: fractions of the size (below 1), pixels, or a list of allowed pixel values.
    brightness_range : (float, float), optional
    shear_range : float
        Shear angles in degrees.
    zoom_range : float or (float, float)
        ``[1 - z, 1 + z]`` for a float.
    channel_shift_range : float
    fill_mode : {"constant", "nearest", "reflect", "wrap"}
    cval : float
    horizontal_flip, vertical_flip : bool
        Flip half of the images (drawn per image).
    rescale : float, optional
        Multiply the images first.
    preprocessing_function : callable, optional
        Applied to each image before the rest of :meth:`standardize`.
    data_format : {"channels_last", "channels_first"}, optional
    validation_split : float
        The fraction the ``subset="validation"`` iterators take.
    interpolation_order : int
        Spline order of the affine resampling.
    dtype : str, optional

    Notes
    -----
    Random parameters come from numpy's global generator in Keras' order, so seeded flows give Keras' batches.
    Rotations, shifts, shears and zooms resample through scipy (Keras' ImportError without it).
    """

    def __init__(self, featurewise_center=False, samplewise_center=False, featurewise_std_normalization=False,
                 samplewise_std_normalization=False, zca_whitening=False, zca_epsilon=1e-6, rotation_range=0,
                 width_shift_range=0.0, height_shift_range=0.0, brightness_range=None, shear_range=0.0,
                 zoom_range=0.0, channel_shift_range=0.0, fill_mode="nearest", cval=0.0, horizontal_flip=False,
                 vertical_flip=False, rescale=None, preprocessing_function=None, data_format=None,
                 validation_split=0.0, interpolation_order=1, dtype=None):
        data_format = data_format or image_data_format()
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.shear_range = shear_range
        self.channel_shift_range = channel_shift_range
        self.fill_mode = fill_mode
        self.cval = cval
        self.horizontal_flip = horizontal_flip
        self.vertical_flip = vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.dtype = dtype or floatx()
        self.interpolation_order = interpolation_order
        if data_format not in {"channels_last", "channels_first"}:
            raise ValueError('`data_format` should be `"channels_last"` (channel after row and column) or '
                             f'`"channels_first"` (channel before row and column). Received: {data_format}')
        self.data_format = data_format
        self.channel_axis, self.row_axis, self.col_axis = (3, 1, 2) if data_format == "channels_last" else (1, 2, 3)
        if validation_split and not 0 < validation_split < 1:
            raise ValueError(f"`validation_split` must be strictly between 0 and 1.  Received: {validation_split}")
        self._validation_split = validation_split
        self.mean = None
        self.std = None
        self.zca_whitening_matrix = None
        if isinstance(zoom_range, (float, int)):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(value, (float, int)) for value in zoom_range):
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError(f"`zoom_range` should be a float or a tuple or list of two floats. Received: {zoom_range}")
        self._resolve_normalization_options()
        if brightness_range is not None and (not isinstance(brightness_range, (tuple, list))
                                             or len(brightness_range) != 2):
            raise ValueError(f"`brightness_range should be tuple or list of two floats. Received: {brightness_range}")
        self.brightness_range = brightness_range

    def _resolve_normalization_options(self):
        """Keras' implications between the options (with its warnings): ZCA and featurewise normalization need
        featurewise centering, ZCA replaces featurewise normalization, samplewise normalization needs centering."""
        if self.zca_whitening:
            if not self.featurewise_center:
                self.featurewise_center = True
                warn_for_user("This ImageDataGenerator specifies `zca_whitening`, which overrides setting of "
                              "`featurewise_center`.")
            if self.featurewise_std_normalization:
                self.featurewise_std_normalization = False
                warn_for_user("This ImageDataGenerator specifies `zca_whitening` which overrides setting of"
                              "`featurewise_std_normalization`.")
        if self.featurewise_std_normalization and not self.featurewise_center:
            self.featurewise_center = True
            warn_for_user("This ImageDataGenerator specifies `featurewise_std_normalization`, which overrides setting "
                          "of `featurewise_center`.")
        if self.samplewise_std_normalization and not self.samplewise_center:
            self.samplewise_center = True
            warn_for_user("This ImageDataGenerator specifies `samplewise_std_normalization`, which overrides setting "
                          "of `samplewise_center`.")

    def flow(self, x, y=None, batch_size=32, shuffle=True, sample_weight=None, seed=None, save_to_dir=None,
             save_prefix="", save_format="png", ignore_class_split=False, subset=None):
        """A :class:`NumpyArrayIterator` over ``x`` (rank-4 images), ``y`` and ``sample_weight``."""
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle, sample_weight=sample_weight,
                                  seed=seed, data_format=self.data_format, save_to_dir=save_to_dir,
                                  save_prefix=save_prefix, save_format=save_format,
                                  ignore_class_split=ignore_class_split, subset=subset, dtype=self.dtype)

    def flow_from_directory(self, directory, target_size=(256, 256), color_mode="rgb", classes=None,
                            class_mode="categorical", batch_size=32, shuffle=True, seed=None, save_to_dir=None,
                            save_prefix="", save_format="png", follow_links=False, subset=None,
                            interpolation="nearest", keep_aspect_ratio=False):
        """A :class:`DirectoryIterator` over the class subfolders of ``directory``."""
        return DirectoryIterator(directory, self, target_size=target_size, color_mode=color_mode,
                                 keep_aspect_ratio=keep_aspect_ratio, classes=classes, class_mode=class_mode,
                                 data_format=self.data_format, batch_size=batch_size, shuffle=shuffle, seed=seed,
                                 save_to_dir=save_to_dir, save_prefix=save_prefix, save_format=save_format,
                                 follow_links=follow_links, subset=subset, interpolation=interpolation,
                                 dtype=self.dtype)

    def flow_from_dataframe(self, dataframe, *args, **kwargs):
        """Not available in vfw (pandas data frames are not supported)."""
        raise NotImplementedError("vfw's ImageDataGenerator does not support `flow_from_dataframe`; use "
                                  "`flow_from_directory` or `flow`.")

    def standardize(self, x):
        """Apply ``preprocessing_function``, ``rescale`` and the centering/normalization/whitening options to
        ``x`` (one image or a batch), in place where the operations allow, as Keras.

        Returns
        -------
        ndarray
            The standardized inputs.
        """
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        if self.featurewise_center:
            if self.mean is None:
                _not_fit_warning("featurewise_center")
            else:
                x -= self.mean
        if self.featurewise_std_normalization:
            if self.std is None:
                _not_fit_warning("featurewise_std_normalization")
            else:
                x /= self.std + 1e-6
        if self.zca_whitening:
            if self.zca_whitening_matrix is None:
                _not_fit_warning("zca_whitening")
            else:
                flat = x.reshape(-1, math.prod(x.shape[-3:]))
                x = np.reshape(flat @ self.zca_whitening_matrix, x.shape)
        return x

    def get_random_transform(self, img_shape, seed=None):
        """Random transform parameters for an image of ``img_shape`` (numpy's global generator, seeded with
        ``seed`` first when given).

        Returns
        -------
        dict
            ``theta``, ``tx``, ``ty``, ``shear``, ``zx``, ``zy``, ``flip_horizontal``, ``flip_vertical``,
            ``channel_shift_intensity``, ``brightness``.
        """
        if seed is not None:
            np.random.seed(seed)
        theta = np.random.uniform(-self.rotation_range, self.rotation_range) if self.rotation_range else 0
        tx = _draw_shift(self.height_shift_range, img_shape[self.row_axis - 1]) if self.height_shift_range else 0
        ty = _draw_shift(self.width_shift_range, img_shape[self.col_axis - 1]) if self.width_shift_range else 0
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        zx, zy = transforms.draw_zoom(self.zoom_range)
        # Both flip draws happen even when flipping is off, as in Keras (later draws depend on it).
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = None
        if self.channel_shift_range != 0:
            channel_shift_intensity = np.random.uniform(-self.channel_shift_range, self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_horizontal, "flip_vertical": flip_vertical,
                "channel_shift_intensity": channel_shift_intensity, "brightness": brightness}

    def apply_transform(self, x, transform_parameters):
        """Transform one image ``x`` by ``transform_parameters`` (as :meth:`get_random_transform` gives; missing
        keys mean no change): affine transform, channel shift, flips, brightness, in that order."""
        row_axis, col_axis, channel_axis = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        get = transform_parameters.get
        x = transforms.apply_affine_transform(
            x, get("theta", 0), get("tx", 0), get("ty", 0), get("shear", 0), get("zx", 1), get("zy", 1),
            row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis, fill_mode=self.fill_mode,
            cval=self.cval, order=self.interpolation_order)
        if get("channel_shift_intensity") is not None:
            x = transforms.apply_channel_shift(x, transform_parameters["channel_shift_intensity"], channel_axis)
        if get("flip_horizontal", False):
            x = np.flip(np.asarray(x), col_axis)
        if get("flip_vertical", False):
            x = np.flip(np.asarray(x), row_axis)
        if get("brightness") is not None:
            x = transforms.apply_brightness_shift(x, transform_parameters["brightness"], False)
        return x

    def random_transform(self, x, seed=None):
        """One image ``x`` randomly transformed (:meth:`get_random_transform` then :meth:`apply_transform`)."""
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Compute the featurewise mean, standard deviation and ZCA matrix the options need from sample images.

        Parameters
        ----------
        x : array of rank 4
            Sample images (rescaled by ``rescale`` first).
        augment : bool
            Fit on ``rounds`` randomly transformed copies of the images instead.
        rounds : int
        seed : int, optional
            Seeds numpy's global generator first.
        """
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(f"Input to `.fit()` should have rank 4. Got array with shape: {x.shape}")
        channels = x.shape[self.channel_axis]
        if channels not in {1, 3, 4}:
            warn_for_user(f'Expected input to be images (as Numpy array) following the data format convention '
                          f'"{self.data_format}" (channels on axis {self.channel_axis}), i.e. expected either 1, 3 or '
                          f"4 channels on axis {self.channel_axis}. However, it was passed an array with shape "
                          f"{x.shape} ({channels} channels).")
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            augmented = np.zeros((rounds * x.shape[0], *x.shape[1:]), dtype=self.dtype)
            for round_index in range(rounds):
                for i in range(x.shape[0]):
                    augmented[i + round_index * x.shape[0]] = self.random_transform(x[i])
            x = augmented
        per_channel = [1, 1, 1]
        per_channel[self.channel_axis - 1] = channels
        spatial = (0, self.row_axis, self.col_axis)
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=spatial), per_channel)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=spatial), per_channel)
            x /= self.std + 1e-6
        if self.zca_whitening:
            count = len(x)
            u, s, _ = np.linalg.svd(np.reshape(x, (count, -1)).T, full_matrices=False)
            self.zca_whitening_matrix = (u * (np.sqrt(count) / (s + self.zca_epsilon))).dot(u.T)
