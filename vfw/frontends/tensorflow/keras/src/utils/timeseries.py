"""``keras.utils.timeseries_dataset_from_array``: sliding windows over a sequence as a tf.data pipeline."""

import numpy as np

import vfw.tensorflow as tf


def _check_arguments(data, sequence_stride, sampling_rate, start_index, end_index):
    """Keras' argument checks, in Keras' order."""
    if start_index:
        if start_index < 0:
            raise ValueError(f"`start_index` must be 0 or greater. Received: start_index={start_index}")
        if start_index >= len(data):
            raise ValueError(f"`start_index` must be lower than the length of the data. Received: "
                             f"start_index={start_index}, for data of length {len(data)}")
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(f"`end_index` must be higher than `start_index`. Received: start_index={start_index}, and "
                             f"end_index={end_index} ")
        if end_index >= len(data):
            raise ValueError(f"`end_index` must be lower than the length of the data. Received: end_index={end_index}, "
                             f"for data of length {len(data)}")
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    for name, value in (("sampling_rate", sampling_rate), ("sequence_stride", sequence_stride)):
        if value <= 0:
            raise ValueError(f"`{name}` must be higher than 0. Received: {name}={value}")
        if value >= len(data):
            raise ValueError(f"`{name}` must be lower than the length of the data. Received: {name}={value}, for data "
                             f"of length {len(data)}")


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1, sampling_rate=1, batch_size=128,
                                  shuffle=False, seed=None, start_index=None, end_index=None, format="tf"):
    """A dataset of windows of ``data`` (and the target at each window's start).

    Parameters
    ----------
    data : array-like
        Timesteps along axis 0.
    targets : array-like or None
        ``targets[i]`` goes with the window starting at ``data[i]``.
    sequence_length : int
        Timesteps per window.
    sequence_stride : int
        Steps between window starts.
    sampling_rate : int
        Steps between the timesteps of a window.
    batch_size : int or None
        Windows per batch (None: unbatched).
    shuffle : bool
        Shuffle the window starts (numpy ``RandomState(seed)``) and the batched windows (a tf.data
        shuffle of ``8 * batch_size``; 1024 unbatched), as Keras does.
    seed : int, optional
    start_index, end_index : int, optional
        The part of ``data`` to use.
    format : {"tf"}
        ("grain" datasets do not exist in vfw.)

    Returns
    -------
    tf.data.Dataset
        Windows ``(batch, sequence_length, ...)``, or ``(windows, targets)`` pairs.
    """
    _check_arguments(data, sequence_stride, sampling_rate, start_index, end_index)
    if format != "tf":
        if format == "grain":
            raise ValueError("vfw has no grain datasets: use format='tf'.")
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format}')
    start_index = start_index or 0
    end_index = len(data) if end_index is None else end_index
    count = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        count = min(count, len(targets))
    index_dtype = "int32" if count < 2147483647 else "int64"
    starts = np.arange(0, count, sequence_stride, dtype=index_dtype)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(starts)
    steps = np.asarray(data[start_index:end_index])
    windows = steps[starts[:, None] + np.arange(sequence_length, dtype=index_dtype)[None, :] * sampling_rate]
    dataset = tf.data.Dataset.from_tensor_slices(windows)
    if targets is not None:
        target_steps = np.asarray(targets[start_index:end_index])
        dataset = tf.data.Dataset.zip((dataset, tf.data.Dataset.from_tensor_slices(target_steps[starts])))
    # Keras prefetches the windows before shuffling and batching them (an unbatched result is a prefetch dataset).
    dataset = dataset.prefetch(tf.data.AUTOTUNE)
    if batch_size is not None:
        if shuffle:
            dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
        return dataset.batch(batch_size)
    if shuffle:
        dataset = dataset.shuffle(buffer_size=1024, seed=seed)
    return dataset
