"""keras.ops.nn adaptive pooling, ``unfold`` / ``fold`` (im2col / col2im) and CTC (``ctc_loss``, greedy
``ctc_decode``)."""

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow._dispatch import op_error
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.engine.variables import in_symbolic_scope
from vfw.frontends.tensorflow.keras.src.ops._common import cast_to, convert_to_tensor, keras_op


# -- adaptive pooling ------------------------------------------------------------------------------------------------
def _adaptive_windows(size, out):
    """Gather indices ``[out, widest]`` of the windows ``[floor(i * size / out), ceil((i + 1) * size / out))``
    of adaptive pooling, and the mask of the indices inside each window."""
    starts = np.floor(np.arange(out) * size / out).astype(np.int64)
    ends = np.ceil(np.arange(1, out + 1) * size / out).astype(np.int64)
    widest = int((ends - starts).max())
    index = starts[:, None] + np.arange(widest)[None, :]
    return np.minimum(index, size - 1), index < ends[:, None]


def _adaptive_pool(inputs, output_size, data_format, reduce, name):
    x = convert_to_tensor(inputs)
    spatial = x.shape.rank - 2
    if spatial not in (1, 2, 3):
        raise ValueError(f"{name} supports 1D, 2D, or 3D inputs only.")
    sizes = (output_size,) * spatial if isinstance(output_size, int) else tuple(output_size)
    first = (data_format or config.image_data_format()) == "channels_first"
    axes = range(2, 2 + spatial) if first else range(1, 1 + spatial)
    # Both reductions are separable: pool one spatial axis at a time.
    for axis, out in zip(axes, sizes):
        index, inside = _adaptive_windows(x.shape[axis], out)
        windows = tf.gather(x, tf.constant(index.reshape(-1), "int32"), axis=axis)
        shape = x.shape.as_list()
        windows = tf.reshape(windows, shape[:axis] + list(index.shape) + shape[axis + 1:])
        mask = tf.constant(inside.reshape([1] * axis + list(inside.shape) + [1] * (len(shape) - axis - 1)))
        x = reduce(windows, mask, axis + 1)
    return x


def _masked_mean(windows, mask, axis):
    counts = tf.reduce_sum(tf.cast(mask, windows.dtype), axis=axis)
    return tf.reduce_sum(tf.where(mask, windows, tf.zeros_like(windows)), axis=axis) / counts


def _masked_max(windows, mask, axis):
    low = tf.fill(tf.shape(windows), tf.constant(-np.inf, windows.dtype))
    return tf.reduce_max(tf.where(mask, windows, low), axis=axis)


@keras_op
def adaptive_average_pool(inputs, output_size, data_format=None):
    """Average pooling of ``inputs`` (batch, spatial..., channels; channels second if "channels_first") to
    ``output_size`` spatial sizes, window ``i`` covering ``[floor(i * n / out), ceil((i + 1) * n / out))``."""
    return _adaptive_pool(inputs, output_size, data_format, _masked_mean, "adaptive_average_pool")


@keras_op
def adaptive_max_pool(inputs, output_size, data_format=None):
    """Max pooling of ``inputs`` to ``output_size`` spatial sizes (windows as ``adaptive_average_pool``)."""
    return _adaptive_pool(inputs, output_size, data_format, _masked_max, "adaptive_max_pool")


# -- unfold / fold ---------------------------------------------------------------------------------------------------
def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def _patch_rows(size, kernel, dilation, stride):
    """Padded-input rows ``[blocks, kernel]`` read by each block position and kernel offset along one axis."""
    blocks = (size - dilation * (kernel - 1) - 1) // stride + 1
    return np.arange(blocks)[:, None] * stride + np.arange(kernel)[None, :] * dilation


def _patch_positions(height, width, kernel_size, dilation, padding, stride):
    """Flat positions in the padded ``[height + 2 p, width + 2 p]`` plane of each (kernel offset, block),
    shape ``[kh * kw, blocks]``, and the padded sizes."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (_pair(v) for v in (kernel_size, dilation, padding, stride))
    padded_h, padded_w = height + 2 * ph, width + 2 * pw
    rows = _patch_rows(padded_h, kh, dh, sh)  # [bh, kh]
    cols = _patch_rows(padded_w, kw, dw, sw)  # [bw, kw]
    flat = rows.T[:, None, :, None] * padded_w + cols.T[None, :, None, :]  # [kh, kw, bh, bw]
    return flat.reshape(kh * kw, -1), padded_h, padded_w, (ph, pw)


@keras_op
def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding blocks of a channels-first image batch ``x`` (N, C, H, W) as columns: (N, C * kh * kw, blocks),
    channel-major then kernel row, kernel column; blocks in row-major order (torch's ``Unfold``)."""
    x = convert_to_tensor(x)
    n, c, h, w = x.shape.as_list()
    positions, padded_h, padded_w, (ph, pw) = _patch_positions(h, w, kernel_size, dilation, padding, stride)
    padded = tf.pad(x, [[0, 0], [0, 0], [ph, ph], [pw, pw]])
    flat = tf.reshape(padded, [n, c, padded_h * padded_w])
    patches = tf.gather(flat, tf.constant(positions.reshape(-1), "int32"), axis=2)
    return tf.reshape(patches, [n, c * positions.shape[0], positions.shape[1]])


@keras_op
def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The inverse arrangement of ``unfold``: columns (N, C * kh * kw, blocks) summed back into an image batch
    (N, C, *output_size) (overlapping entries add up)."""
    x = convert_to_tensor(x)
    height, width = _pair(output_size)
    positions, padded_h, padded_w, (ph, pw) = _patch_positions(height, width, kernel_size, dilation, padding,
                                                               stride)
    n, columns, blocks = x.shape.as_list()
    if columns % positions.shape[0] or blocks != positions.shape[1]:
        raise op_error(f"fold: input of shape {x.shape} does not match {positions.shape[1]} blocks of "
                       f"{positions.shape[0]} kernel positions for output_size={output_size}", "Reshape")
    c = columns // positions.shape[0]
    values = tf.transpose(tf.reshape(x, [n * c, -1]))  # [kernel positions * blocks, N * C]
    plane = tf.math.unsorted_segment_sum(values, tf.constant(positions.reshape(-1), "int32"), padded_h * padded_w)
    image = tf.reshape(tf.transpose(plane), [n, c, padded_h, padded_w])
    return image[:, :, ph:ph + height, pw:pw + width]


# -- CTC -------------------------------------------------------------------------------------------------------------
@keras_op
def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """Per-sample CTC loss of int ``target`` (batch, max_label_length) under the logits ``output`` (batch,
    frames, classes), blank class ``mask_index``; float64 logits compute in float32 and return float64."""
    target = tf.cast(convert_to_tensor(target), "int32")
    output = convert_to_tensor(output)
    out_dtype = result_type(output.dtype.name, "float32")
    output = cast_to(output, "float32" if out_dtype == "float64" else out_dtype)
    loss = tf.nn.ctc_loss(labels=target, logits=output, label_length=target_length, logit_length=output_length,
                          blank_index=mask_index, logits_time_major=False)
    return cast_to(loss, out_dtype)


@keras_op
def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1, merge_repeated=True,
               mask_index=0):
    """CTC decoding of ``inputs`` (batch, frames, classes): ``(decoded, scores)``.

    Greedy: ``decoded`` int32 (1, batch, frames) (each frame's best class, repeats merged if ``merge_repeated``,
    blanks ``mask_index`` dropped, padded with -1) and ``scores`` (batch, 1) the negated sum of each frame's best
    logit. Beam search: ``tf.nn.ctc_beam_search_decoder``'s ``top_paths`` best paths, ``decoded``
    (top_paths, batch, frames) padded with -1, and ``scores`` (batch, top_paths) their log-probabilities.
    """
    if strategy not in ("greedy", "beam_search"):
        raise ValueError(f"Invalid strategy {strategy}. Supported values are 'greedy' and 'beam_search'.")
    inputs = convert_to_tensor(inputs)
    inputs = cast_to(inputs, result_type(inputs.dtype.name, "float32"))
    lengths = convert_to_tensor(sequence_lengths, "int32")
    if strategy == "beam_search":
        return _ctc_beam_search(inputs, lengths, beam_width, top_paths, mask_index)
    batch, frames, classes = inputs.shape.as_list()
    blank = classes - 1 if mask_index is None else mask_index % classes
    live = tf.range(frames)[None, :] < lengths[:, None]
    best = tf.cast(tf.argmax(inputs, axis=-1), "int32")
    scores = -tf.reduce_sum(tf.where(live, tf.reduce_max(inputs, axis=-1), tf.zeros_like(inputs[..., 0])), axis=1,
                            keepdims=True)
    keep = live & tf.not_equal(best, blank)
    if merge_repeated:
        repeated = tf.concat([tf.zeros([batch, 1], "bool"), tf.equal(best[:, 1:], best[:, :-1])], axis=1)
        keep = keep & ~repeated
    # Kept labels move to the front of each row, in order: their destinations are the running counts.
    slot = tf.cumsum(tf.cast(keep, "int32"), axis=1) - 1
    slot = tf.where(keep, slot, tf.fill([batch, frames], frames))
    rows = tf.tile(tf.range(batch)[:, None], [1, frames])
    where = tf.reshape(tf.stack([rows, slot], axis=-1), [-1, 2])
    flat = tf.reshape(tf.where(keep, best + 1, tf.zeros_like(best)), [-1])
    decoded = tf.scatter_nd(tf.boolean_mask(where, tf.reshape(keep, [-1])), tf.boolean_mask(flat, tf.reshape(
        keep, [-1])), [batch, frames]) - 1
    return decoded[None], scores


def _ctc_beam_search(inputs, lengths, beam_width, top_paths, mask_index):
    """``ctc_decode``'s beam search: TF's decoder takes the last class as the blank, so the ``mask_index`` column
    moves last (sliced as Keras slices it) and decoded labels at or past it move back up by one."""
    batch, frames, classes = inputs.shape.as_list()
    if in_symbolic_scope():  # the shapes of Keras' output spec (zeros standing for KerasTensors hold no paths)
        return tf.zeros((top_paths, batch, frames), "int32"), tf.zeros((batch, top_paths), inputs.dtype)
    inputs = tf.transpose(inputs, (1, 0, 2))
    if mask_index is not None:
        inputs = tf.concat([inputs[..., :mask_index], inputs[..., mask_index + 1:],
                            inputs[..., mask_index:mask_index + 1]], axis=-1)
    paths, scores = tf.nn.ctc_beam_search_decoder(inputs, lengths, beam_width=beam_width, top_paths=top_paths)
    decoded = tf.cast(tf.stack([tf.sparse.to_dense(tf.SparseTensor(path.indices, path.values, (batch, frames)),
                                                   default_value=-1) for path in paths]), "int32")
    if mask_index is not None:
        blank = mask_index + classes if mask_index < 0 else mask_index
        decoded = tf.where(decoded >= blank, decoded + 1, decoded)
    return decoded, scores

