"""``keras.utils.audio_dataset_from_directory``: batches of the .wav files under a directory with their labels,
as Keras builds them (file listing, seeded shuffles and splits are ``dataset_directory``'s, shared with the image
and text loaders)."""

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.utils.dataset_directory import (
    _check_labels_arguments,
    check_validation_split_arg,
    index_directory,
    labels_dataset,
    training_or_validation_split,
)


def _audio(path, output_sequence_length):
    """The ``[samples, channels]`` float32 audio of a .wav file, cut to ``output_sequence_length`` samples."""
    audio, _ = tf.audio.decode_wav(tf.io.read_file(path))
    return audio if output_sequence_length is None else audio[:output_sequence_length]


def _batched(dataset, batch_size, shuffle, seed, output_sequence_length, ragged, with_labels):
    if shuffle:
        dataset = dataset.shuffle(buffer_size=batch_size * 8 if batch_size is not None else 1024, seed=seed)
    if batch_size is not None:
        if ragged:
            dataset = dataset.ragged_batch(batch_size)
        else:  # zero-padded to the longest clip of the batch, or to output_sequence_length
            audio_shape = tf.TensorShape([output_sequence_length, None])
            dataset = dataset.padded_batch(batch_size, padded_shapes=(audio_shape, dataset.element_spec[1].shape)
                                           if with_labels else audio_shape)
    return dataset.prefetch(tf.data.AUTOTUNE)


def audio_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                 sampling_rate=None, output_sequence_length=None, ragged=False, shuffle=True,
                                 seed=None, validation_split=None, subset=None, follow_links=False, verbose=True):
    """A ``tf.data.Dataset`` of ``(audio, label)`` batches from the .wav files under ``directory``.

    Parameters
    ----------
    directory : str
        One subdirectory per class when ``labels="inferred"``.
    labels, label_mode, class_names, batch_size, shuffle, seed, validation_split, subset, follow_links, verbose
        As :func:`image_dataset_from_directory`.
    sampling_rate : int, optional
        Resampling needs tensorflow-io in Keras: not available (ImportError, as Keras without it).
    output_sequence_length : int, optional
        Clips are cut to, and batches zero-padded to, this many samples (None: padded to each batch's longest).
    ragged : bool
        Batch the clips as a ``tf.RaggedTensor`` instead of padding them.

    Returns
    -------
    tf.data.Dataset, or a tuple (training, validation) for ``subset="both"``
        Audio ``[batch, samples, channels]`` float32 with the labels; ``class_names`` attribute.
    """
    if sampling_rate is not None:
        raise ImportError("To use the argument `sampling_rate`, you should install tensorflow_io. You can install it "
                          "via `pip install tensorflow-io`.")
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    _check_labels_arguments(labels, label_mode, class_names)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    check_validation_split_arg(validation_split, subset, shuffle, seed)
    seed = np.random.randint(1e6) if seed is None else seed
    paths, labels, class_names = index_directory(directory, labels, (".wav",), class_names, shuffle, seed,
                                                 follow_links, verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f'When passing `label_mode="binary"`, there must be exactly 2 class_names. Received: '
                         f"class_names={class_names}")
    results = []
    for part in (("training", "validation") if subset == "both" else (subset,)):
        part_paths, part_labels = training_or_validation_split(paths, labels, validation_split, part)
        if not part_paths:
            raise ValueError(f"No audio files found in directory {directory}. Allowed format(s): ('.wav',)")
        dataset = tf.data.Dataset.from_tensor_slices(part_paths).map(
            lambda path: _audio(path, output_sequence_length))
        if label_mode:
            dataset = tf.data.Dataset.zip((dataset, labels_dataset(part_labels, label_mode, len(class_names))))
        dataset = _batched(dataset, batch_size, shuffle and not (subset == "both" and part == "validation"), seed,
                           output_sequence_length, ragged, bool(label_mode))
        dataset.class_names = class_names
        results.append(dataset)
    return tuple(results) if subset == "both" else results[0]


API = {"utils": ["audio_dataset_from_directory"]}
