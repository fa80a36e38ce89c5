"""``keras.utils.image_dataset_from_directory`` / ``text_dataset_from_directory``: tf.data pipelines over files
in class subdirectories, listed, labelled, shuffled and split as Keras does."""

import os
import sys

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow._dispatch import host
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import _aspect_crop

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic")


def _files_under(directory, formats, follow_links):
    """Paths relative to ``directory`` of its files ending in ``formats`` (any case), directories walked in
    sorted order and files sorted within each."""
    found = []
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links), key=lambda entry: entry[0]):
        found += [os.path.relpath(os.path.join(root, name), directory) for name in sorted(files)
                  if name.lower().endswith(formats)]
    return found


def index_directory(directory, labels, formats, class_names=None, shuffle=True, seed=None, follow_links=False,
                    verbose=True):
    """``(file_paths, labels, class_names)`` of the files in ``directory``: labels inferred from the class
    subdirectories (sorted, or ordered as ``class_names``), given (a list, one per file in walking order) or None;
    with ``shuffle`` paths and labels shuffled by ``numpy.random.RandomState(seed)``."""
    if labels == "inferred":
        subdirs = [name for name in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, name)) and not name.startswith(".")]
        if class_names is not None:
            if not set(class_names).issubset(subdirs):
                raise ValueError(f"The `class_names` passed did not match the names of the subdirectories of the "
                                 f"target directory. Expected: {subdirs} (or a subset of it), but received: "
                                 f"class_names={class_names}")
            subdirs = list(class_names)
    else:
        if class_names is not None:
            if labels is None:
                raise ValueError("When `labels=None` (no labels), argument `class_names` cannot be specified.")
            raise ValueError("When argument `labels` is specified, argument `class_names` cannot be specified (the "
                             "`class_names` will be the sorted list of labels).")
        subdirs = [""]
    filenames, inferred = [], []
    for index, subdir in enumerate(subdirs):
        names = _files_under(os.path.join(directory, subdir), formats, follow_links)
        filenames += [os.path.join(subdir, name) for name in names]
        inferred += [index] * len(names)
    if labels == "inferred":
        class_names, labels = subdirs, np.array(inferred, np.int32)
    elif labels is None:
        class_names = None
    else:
        if len(labels) != len(filenames):
            raise ValueError(f"Expected the lengths of `labels` to match the number of files in the target "
                             f"directory. len(labels) is {len(labels)} while we found {len(filenames)} files in "
                             f"directory {directory}.")
        class_names = [str(label) for label in sorted(set(labels))]
    if verbose:
        print(f"Found {len(filenames)} files." if labels is None else
              f"Found {len(filenames)} files belonging to {len(class_names)} classes.")
    file_paths = [os.path.join(directory, name) for name in filenames]
    if shuffle:
        seed = np.random.randint(1e6) if seed is None else seed
        np.random.RandomState(seed).shuffle(file_paths)
        if labels is not None:
            labels = list(labels) if isinstance(labels, tuple) else labels
            np.random.RandomState(seed).shuffle(labels)
    return file_paths, labels, class_names


def check_validation_split_arg(validation_split, subset, shuffle, seed):
    """Keras' checks of ``validation_split`` / ``subset`` (ValueError)."""
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: {validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f'`subset` must be either "training", "validation" or "both", received: {subset}')
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide a `seed` argument, to "
                         "make sure that there is no overlap between the training and validation subset.")


def training_or_validation_split(samples, labels, validation_split, subset):
    """The last ``int(validation_split * n)`` samples (and labels) for "validation", the others for "training"."""
    if not validation_split:
        return samples, labels
    count = int(validation_split * len(samples))
    if subset == "training":
        print(f"Using {len(samples) - count} files for training.")
        part = slice(None, -count)
    elif subset == "validation":
        print(f"Using {count} files for validation.")
        part = slice(-count, None)
    else:
        raise ValueError(f'`subset` must be either "training" or "validation", received: {subset}')
    return samples[part], None if labels is None else labels[part]


def labels_dataset(labels, label_mode, num_classes):
    """int32 labels, float32 ``[1]`` 0/1 labels ("binary") or float32 one-hot rows ("categorical")."""
    dataset = tf.data.Dataset.from_tensor_slices(labels)
    if label_mode == "binary":
        return dataset.map(lambda label: tf.expand_dims(tf.cast(label, "float32"), axis=-1))
    if label_mode == "categorical":
        return dataset.map(lambda label: tf.one_hot(label, num_classes))
    return dataset


def _on_stand_ins():
    """Whether a tf.data function runs on stand-in elements (only for its output spec: see ``data._functional``)."""
    functional = sys.modules.get("vfw.frontends.tensorflow.data._functional")
    return functional is not None and functional.ON_STAND_INS[0]


def _load_image(path, image_size, channels, interpolation, crop_to_aspect_ratio, pad_to_aspect_ratio, data_format):
    """The float32 (uint8 for "nearest") image of the file ``path``, resized as Keras' loader does.  One host
    step (an eager pipeline of tf ops per file), so that crops and pads can use each file's own size inside
    tf.data's traced map."""
    shape = (*image_size, channels) if data_format == "channels_last" else (channels, *image_size)
    dtype = np.uint8 if interpolation == "nearest" else np.float32  # tf.image.resize keeps uint8 for "nearest"

    def load(path_array):
        if _on_stand_ins():
            return np.zeros(shape, dtype)
        image = tf.image.decode_image(tf.io.read_file(path_array.item()), channels=channels,
                                      expand_animations=False)
        if crop_to_aspect_ratio:
            top, left, crop_height, crop_width = _aspect_crop(image.shape[0], image.shape[1], *image_size)
            image = tf.image.resize(image[top:top + crop_height, left:left + crop_width], image_size,
                                    method=interpolation)
        elif pad_to_aspect_ratio:
            image = tf.image.resize_with_pad(image, *image_size, method=interpolation)
        else:
            image = tf.image.resize(image, image_size, method=interpolation)
        image = tf.transpose(image, (2, 0, 1)) if data_format == "channels_first" else image
        return image.numpy()

    return tf.ensure_shape(host(load, path), shape)


def _batched(dataset, batch_size, shuffle, seed):
    """Keras' last steps: a seeded shuffle of 8 batches (1024 elements unbatched), batching, prefetching."""
    if shuffle:
        dataset = dataset.shuffle(buffer_size=batch_size * 8 if batch_size is not None else 1024, seed=seed)
    if batch_size is not None:
        dataset = dataset.batch(batch_size)
    return dataset.prefetch(tf.data.AUTOTUNE)


def _check_labels_arguments(labels, label_mode, class_names):
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(f"`labels` argument should be a list/tuple of integer labels, of the same size as the "
                             f"number of image files in the target directory. If you wish to infer the labels from "
                             f"the subdirectory names in the target directory, pass `labels=\"inferred\"`. If you "
                             f"wish to get a dataset that only contains images (no labels), pass `labels=None`. "
                             f"Received: labels={labels}")
        if class_names:
            raise ValueError(f'You can only pass `class_names` if `labels="inferred"`. Received: labels={labels}, '
                             f"and class_names={class_names}")
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError(f'`label_mode` argument must be one of "int", "categorical", "binary", or None. Received: '
                         f"label_mode={label_mode}")


def _datasets(paths, labels, label_mode, class_names, validation_split, subset, make, batch_size, shuffle, seed,
              missing, with_file_paths=True):
    """The dataset (two for ``subset="both"``) of ``make(paths)`` elements with their labels, with a
    ``class_names`` attribute (and ``file_paths``, as Keras' image datasets)."""
    results = []
    for part in (("training", "validation") if subset == "both" else (subset,)):
        part_paths, part_labels = training_or_validation_split(paths, labels, validation_split, part)
        if not part_paths:
            raise ValueError(missing.format(part=f"{part} " if subset == "both" else ""))
        dataset = make(part_paths)
        if label_mode:
            dataset = tf.data.Dataset.zip((dataset, labels_dataset(part_labels, label_mode, len(class_names))))
        # "both" leaves its validation part unshuffled
        dataset = _batched(dataset, batch_size, shuffle and not (subset == "both" and part == "validation"), seed)
        dataset.class_names = class_names
        if with_file_paths:
            dataset.file_paths = part_paths
        results.append(dataset)
    return results if subset == "both" else results[0]


def image_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, color_mode="rgb",
                                 batch_size=32, image_size=(256, 256), shuffle=True, seed=None, validation_split=None,
                                 subset=None, interpolation="bilinear", follow_links=False, crop_to_aspect_ratio=False,
                                 pad_to_aspect_ratio=False, data_format=None, verbose=True, format="tf"):
    """A ``tf.data.Dataset`` of float32 image batches ``(batch, height, width, channels)`` (and labels) from the
    .bmp/.gif/.jpeg/.jpg/.png files under ``directory``, as Keras builds it.

    Parameters
    ----------
    directory : str
    labels : "inferred", list/tuple of int, or None
        "inferred": one class per subdirectory.
    label_mode : {"int", "categorical", "binary", None}
    class_names : list of str, optional
        The subdirectories to use, in label order.
    color_mode : {"rgb", "rgba", "grayscale"}
    batch_size : int or None
    image_size : (int, int) or int
    shuffle : bool
        Shuffle the file order (numpy ``RandomState(seed)``) and the elements (a seeded tf.data shuffle).
    seed : int, optional
    validation_split : float, optional
    subset : {"training", "validation", "both"}, optional
    interpolation : str
        ``tf.image.resize`` method.
    follow_links : bool
    crop_to_aspect_ratio, pad_to_aspect_ratio : bool
        Center-crop (or zero-pad) to the target aspect ratio before resizing.
    data_format : {"channels_last", "channels_first"}, optional
    verbose : bool
    format : {"tf"}

    Returns
    -------
    tf.data.Dataset (two for ``subset="both"``)
        With ``class_names`` and ``file_paths`` attributes.
    """
    _check_labels_arguments(labels, label_mode, class_names)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    channels = {"rgb": 3, "rgba": 4, "grayscale": 1}.get(color_mode)
    if channels is None:
        raise ValueError(f'`color_mode` must be one of {{"rgb", "rgba", "grayscale"}}. Received: '
                         f"color_mode={color_mode}")
    if isinstance(image_size, int):
        image_size = (image_size, image_size)
    elif not isinstance(image_size, (list, tuple)) or len(image_size) != 2:
        raise ValueError(f"Invalid `image_size` value. Expected a tuple of 2 integers. Received: "
                         f"image_size={image_size}")
    interpolation = interpolation.lower()
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"Argument `interpolation` should be one of {_INTERPOLATIONS}. Received: "
                         f"interpolation={interpolation}")
    if format != "tf":
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format}'
                         if format != "grain" else "vfw has no grain datasets: use format='tf'.")
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set to `True`.")
    check_validation_split_arg(validation_split, subset, shuffle, seed)
    seed = np.random.randint(1e6) if seed is None else seed
    paths, labels, class_names = index_directory(directory, labels, IMAGE_FORMATS, class_names, shuffle, seed,
                                                 follow_links, verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f'When passing `label_mode="binary"`, there must be exactly 2 class_names. Received: '
                         f"class_names={class_names}")
    data_format = data_format or "channels_last"
    options = (tuple(image_size), channels, interpolation, crop_to_aspect_ratio, pad_to_aspect_ratio, data_format)

    def images(part_paths):
        return tf.data.Dataset.from_tensor_slices(part_paths).map(lambda path: _load_image(path, *options))

    return _datasets(paths, labels, label_mode, class_names, validation_split, subset, images, batch_size, shuffle,
                     seed, f"No {{part}}images found in directory {directory}. Allowed formats: {IMAGE_FORMATS}")


def text_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                max_length=None, shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False, format="tf", verbose=True):
    """A ``tf.data.Dataset`` of string batches (the contents of the .txt files under ``directory``, truncated to
    ``max_length`` characters) and their labels, as Keras builds it (arguments as
    :func:`image_dataset_from_directory`)."""
    _check_labels_arguments(labels, label_mode, class_names)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    check_validation_split_arg(validation_split, subset, shuffle, seed)
    seed = np.random.randint(1e6) if seed is None else seed
    paths, labels, class_names = index_directory(directory, labels, (".txt",), class_names, shuffle, seed,
                                                 follow_links, verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f'When passing `label_mode="binary"`, there must be exactly 2 class_names. Received: '
                         f"class_names={class_names}")

    def read(path):
        text = tf.io.read_file(path)
        return text if max_length is None else tf.strings.substr(text, 0, max_length)

    def texts(part_paths):
        return tf.data.Dataset.from_tensor_slices(part_paths).map(read)

    return _datasets(paths, labels, label_mode, class_names, validation_split, subset, texts, batch_size, shuffle,
                     seed, f"No {{part}}text files found in directory {directory}. Allowed format: .txt",
                     with_file_paths=False)


API = {"utils": ["image_dataset_from_directory", "text_dataset_from_directory"]}
