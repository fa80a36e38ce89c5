"""The batch iterators of tf.keras' legacy ``ImageDataGenerator``: ``Iterator`` (a ``keras.utils.PyDataset``),
``NumpyArrayIterator`` (``flow``) and ``DirectoryIterator`` (``flow_from_directory``).

Order and randomness follow Keras: the sample order is ``np.random.permutation`` (shuffle) drawn when the first
batch of an epoch is read and again at every ``on_epoch_end``; with a ``seed``, numpy's global generator is
seeded with ``seed + batches read so far`` before every batch, so each image's random transform is Keras'.
"""

import os
import threading

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.backend.config import floatx, image_data_format
from vfw.frontends.tensorflow.keras.src.legacy.image import array_to_img, img_to_array, load_img
from vfw.frontends.tensorflow.keras.src.utils.data import PyDataset
from vfw.frontends.tensorflow.keras.src.utils.io_utils import print_msg


class Iterator(PyDataset):
    """Base of the image iterators: batches of ``batch_size`` sample indices out of ``n``, in order or shuffled.

    Subclasses implement ``_get_batches_of_transformed_samples(index_array)``. Indexing (``it[i]``, what ``fit``
    uses) and ``next(it)`` (an endless stream that wraps around) both work.

    Parameters
    ----------
    n : int
        Number of samples.
    batch_size : int
    shuffle : bool
        A new random order every epoch.
    seed : int, optional
        Reseeds numpy's global generator with ``seed + total_batches_seen`` before each batch.
    **kwargs
        ``PyDataset``'s ``workers``, ``use_multiprocessing``, ``max_queue_size``.
    """

    white_list_formats = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")

    def __init__(self, n, batch_size, shuffle, seed, **kwargs):
        super().__init__(**kwargs)
        self.n = n
        self.batch_size = batch_size
        self.seed = seed
        self.shuffle = shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self):
        self.index_array = np.random.permutation(self.n) if self.shuffle else np.arange(self.n)

    def _seed_batch(self):
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length {len(self)}")
        self._seed_batch()
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        return self._get_batches_of_transformed_samples(
            self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)])

    def __len__(self):
        return -(-self.n // self.batch_size)

    def on_epoch_end(self):
        self._set_index_array()

    def reset(self):
        """Restart the ``next()`` stream at the first batch (a new order for shuffled iterators)."""
        self.batch_index = 0

    def _flow_index(self):
        """Index arrays of the endless ``next()`` stream: a new order at every pass over the data."""
        self.reset()
        while True:
            self._seed_batch()
            if self.batch_index == 0:
                self._set_index_array()
            start = (self.batch_index * self.batch_size) % self.n if self.n else 0
            self.batch_index = self.batch_index + 1 if self.n > start + self.batch_size else 0
            self.total_batches_seen += 1
            yield self.index_array[start:start + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array):
        """The batch of the samples ``index_array``."""
        raise NotImplementedError

    def _transformed_images(self, images, batch_shape):
        """``batch_shape`` array of the ``images`` (an iterable of single image arrays), each randomly transformed
        and standardized by the generator."""
        batch = np.zeros(batch_shape, dtype=self.dtype)
        generator = self.image_data_generator
        for position, image in enumerate(images):
            if generator:
                image = generator.apply_transform(image, generator.get_random_transform(image.shape))
                image = generator.standardize(image)
            batch[position] = image
        return batch

    def _save_batch(self, batch, index_array, hash_bound):
        """Write the batch's images to ``save_to_dir`` as ``{prefix}_{index}_{random hash}.{format}``."""
        if not self.save_to_dir:
            return
        for image, index in zip(batch, index_array):
            img = array_to_img(image, self.data_format, scale=True)
            name = f"{self.save_prefix}_{index}_{np.random.randint(hash_bound)}.{self.save_format}"
            img.save(os.path.join(self.save_to_dir, name))


class NumpyArrayIterator(Iterator):
    """Batches of an image array (``ImageDataGenerator.flow``): ``x``, or ``(x, y)``, or
    ``(x, y, sample_weight)``; ``x`` given as ``(images, extra)`` / ``[images, [extras...]]`` adds arrays batched
    alongside the images (the batch's inputs are then a list).

    Parameters
    ----------
    x : array of rank 4, or a (images, extra arrays) pair
    y : array, optional
    image_data_generator : ImageDataGenerator
    batch_size : int
    shuffle : bool
    sample_weight : array, optional
    seed : int, optional
    data_format : str, optional
    save_to_dir, save_prefix, save_format
        Where and how to save the batches' images.
    subset : {"training", "validation"}, optional
        The part after / before ``validation_split`` of the generator.
    ignore_class_split : bool
        Skip the check that both subsets hold the same classes.
    dtype : str, optional
    """

    def __init__(self, x, y, image_data_generator, batch_size=32, shuffle=False, sample_weight=None, seed=None,
                 data_format=None, save_to_dir=None, save_prefix="", save_format="png", subset=None,
                 ignore_class_split=False, dtype=None):
        data_format = data_format or image_data_format()
        self.dtype = dtype or floatx()
        x, x_misc = self._split_inputs(x)
        if y is not None and len(x) != len(y):
            raise ValueError("`x` (images tensor) and `y` (labels) should have the same length. Found: x.shape = "
                             f"{np.asarray(x).shape}, y.shape = {np.asarray(y).shape}")
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError("`x` (images tensor) and `sample_weight` should have the same length. Found: x.shape = "
                             f"{np.asarray(x).shape}, sample_weight.shape = {np.asarray(sample_weight).shape}")
        if subset is not None:
            x, x_misc, y = self._subset(x, x_misc, y, subset, image_data_generator._validation_split,
                                        ignore_class_split)
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError(f"Input data in `NumpyArrayIterator` should have rank 4. You passed an array with shape "
                             f"{self.x.shape}")
        channels_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channels_axis] not in {1, 3, 4}:
            warn_for_user(f'NumpyArrayIterator is set to use the data format convention "{data_format}" (channels '
                          f"on axis {channels_axis}), i.e. expected either 1, 3, or 4 channels on axis "
                          f"{channels_axis}. However, it was passed an array with shape {self.x.shape} "
                          f"({self.x.shape[channels_axis]} channels).")
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.data_format = data_format
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        super().__init__(x.shape[0], batch_size, shuffle, seed)

    @staticmethod
    def _split_inputs(x):
        """The images and the list of extra input arrays."""
        if not isinstance(x, (tuple, list)):
            return x, []
        extras = [np.asarray(extra) for extra in x[1]] if isinstance(x[1], list) else [np.asarray(x[1])]
        images = x[0]
        for extra in extras:
            if len(images) != len(extra):
                raise ValueError("All of the arrays in `x` should have the same length. Found a pair with: "
                                 f"len(x[0]) = {len(images)}, len(x[?]) = {len(extra)}")
        return images, extras

    @staticmethod
    def _subset(x, x_misc, y, subset, validation_split, ignore_class_split):
        """The validation part (the first ``validation_split`` fraction) or the training part (the rest)."""
        if subset not in {"training", "validation"}:
            raise ValueError(f'Invalid subset name: {subset}; expected "training" or "validation".')
        split = int(len(x) * validation_split)
        if y is not None and not ignore_class_split and not np.array_equal(np.unique(y[:split]),
                                                                            np.unique(y[split:])):
            raise ValueError("Training and validation subsets have different number of classes after the split. If "
                             "your numpy arrays are sorted by the label, you might want to shuffle them.")
        part = slice(None, split) if subset == "validation" else slice(split, None)
        return x[part], [np.asarray(extra[part]) for extra in x_misc], None if y is None else y[part]

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = self._transformed_images((self.x[index].astype(self.dtype) for index in index_array),
                                           (len(index_array), *self.x.shape[1:]))
        self._save_batch(batch_x, index_array, int(1e4))
        extras = [extra[index_array] for extra in self.x_misc]
        inputs = [batch_x, *extras] if extras else batch_x
        if self.y is None:
            return inputs
        if self.sample_weight is None:
            return inputs, self.y[index_array]
        return inputs, self.y[index_array], self.sample_weight[index_array]


def _valid_files(directory, follow_links):
    """``(root, file name)`` of the image files under ``directory``, folders and names sorted."""
    for root, _, names in sorted(os.walk(directory, followlinks=follow_links), key=lambda entry: entry[0]):
        for name in sorted(names):
            if name.lower().endswith(".tiff"):
                warn_for_user('Using ".tiff" files with multiple bands will cause distortion. Please verify your '
                              "output.")
            if name.lower().endswith(Iterator.white_list_formats):
                yield root, name


def _class_files(directory, split, follow_links):
    """Paths relative to ``directory``'s parent of the image files of one class folder (the ``split`` fraction
    range of them when given)."""
    files = list(_valid_files(directory, follow_links))
    if split:
        files = files[int(split[0] * len(files)):int(split[1] * len(files))]
    folder = os.path.basename(directory)
    return [os.path.join(folder, os.path.relpath(os.path.join(root, name), directory)) for root, name in files]


_CHANNELS = {"rgba": 4, "rgb": 3, "grayscale": 1}


class DirectoryIterator(Iterator):
    """Batches of the images in the class subfolders of ``directory`` (``ImageDataGenerator.flow_from_directory``).

    Parameters
    ----------
    directory : str
        One subfolder per class (all subfolders, sorted, unless ``classes`` lists them); image files anywhere under
        them.
    image_data_generator : ImageDataGenerator or None
    target_size : (int, int)
        ``(height, width)`` every image is resized to (PIL, ``interpolation``).
    color_mode : {"rgb", "rgba", "grayscale"}
    classes : list of str, optional
    class_mode : {"categorical", "binary", "sparse", "input", None}
        Labels as one-hot rows, float class indices, the images themselves, or none.
    batch_size, shuffle, seed
        As :class:`Iterator`.
    data_format : str, optional
    save_to_dir, save_prefix, save_format
    follow_links : bool
    subset : {"training", "validation"}, optional
        The last / first ``validation_split`` fraction of each class's files.
    interpolation : str
        PIL's resampling filter.
    keep_aspect_ratio : bool
        Crop the centre to the target aspect ratio before resizing.
    dtype : str, optional
    """

    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(self, directory, image_data_generator, target_size=(256, 256), color_mode="rgb", classes=None,
                 class_mode="categorical", batch_size=32, shuffle=True, seed=None, data_format=None,
                 save_to_dir=None, save_prefix="", save_format="png", follow_links=False, subset=None,
                 interpolation="nearest", keep_aspect_ratio=False, dtype=None):
        data_format = data_format or image_data_format()
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.keep_aspect_ratio = keep_aspect_ratio
        if color_mode not in _CHANNELS:
            raise ValueError(f'Invalid color mode: {color_mode}; expected "rgb", "rgba", or "grayscale".')
        self.color_mode = color_mode
        self.data_format = data_format
        channels = (_CHANNELS[color_mode],)
        self.image_shape = self.target_size + channels if data_format == "channels_last" else \
            channels + self.target_size
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        self.interpolation = interpolation
        self.split = self._split(subset)
        self.subset = subset
        self.directory = directory
        self.classes = classes
        if class_mode not in self.allowed_class_modes:
            raise ValueError(f"Invalid class_mode: {class_mode}; expected one of: {self.allowed_class_modes}")
        self.class_mode = class_mode
        self.dtype = dtype or floatx()
        if not classes:
            classes = [name for name in sorted(os.listdir(directory)) if os.path.isdir(os.path.join(directory, name))]
        self.num_classes = len(classes)
        self.class_indices = {name: index for index, name in enumerate(classes)}
        per_class = [_class_files(os.path.join(directory, name), self.split, follow_links) for name in classes]
        self.filenames = [name for files in per_class for name in files]
        self.samples = len(self.filenames)
        self.classes = np.repeat(np.arange(len(classes), dtype="int32"), [len(files) for files in per_class])
        print_msg(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        self._filepaths = [os.path.join(directory, name) for name in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    def _split(self, subset):
        """The fraction range of each class's files that ``subset`` takes (None for all)."""
        if subset is None:
            return None
        validation_split = self.image_data_generator._validation_split
        if subset == "validation":
            return 0, validation_split
        if subset == "training":
            return validation_split, 1
        raise ValueError(f'Invalid subset name: {subset};expected "training" or "validation"')

    @property
    def filepaths(self):
        """list of str: the images' paths (``directory`` joined with ``filenames``)."""
        return self._filepaths

    @property
    def labels(self):
        """ndarray of int32: the class index of every image."""
        return self.classes

    @property
    def sample_weight(self):
        """None: directories carry no sample weights."""
        return None

    def _load(self, path):
        img = load_img(path, color_mode=self.color_mode, target_size=self.target_size,
                       interpolation=self.interpolation, keep_aspect_ratio=self.keep_aspect_ratio)
        array = img_to_array(img, data_format=self.data_format)
        img.close()
        return array

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = self._transformed_images((self._load(self._filepaths[index]) for index in index_array),
                                           (len(index_array), *self.image_shape))
        self._save_batch(batch_x, index_array, int(1e7))
        if self.class_mode == "input":
            return batch_x, batch_x.copy()
        if self.class_mode in {"binary", "sparse"}:
            return batch_x, self.classes[index_array].astype(self.dtype)
        if self.class_mode == "categorical":
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            batch_y[np.arange(len(batch_x)), self.classes[index_array]] = 1.0
            return batch_x, batch_y
        return batch_x
