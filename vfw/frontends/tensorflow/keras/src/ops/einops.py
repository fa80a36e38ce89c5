"""keras.ops.rearrange: einops-style axis rearrangement, as Keras 3 implements it.

A pattern ``"left -> right"`` names the input's axes (``b h w c``) and the output's; parentheses group axes that
are one dimension (``(b h)``).  The input is first reshaped to its elementary axes (grouped ones split:
``**axes_lengths`` give all but one length of each group), the elementary axes are transposed into the output's
order, and the result is reshaped to the output's groups.  Ellipses and anonymous axes (``1``, ``()``) are not
part of Keras' pattern language.
"""

import math
import re

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor, keras_op

_TOKENS = re.compile(r"\(|\)|[^\s()]+")


def _groups(side):
    """The axis groups of one side of a pattern: ``"b (h w) c"`` -> ``[["b"], ["h", "w"], ["c"]]``."""
    groups, current = [], None
    for token in _TOKENS.findall(side):
        if token == "(":
            current = []
        elif token == ")":
            groups.append(current)
            current = None
        elif current is not None:
            current.append(token)
        else:
            groups.append([token])
    return groups


@keras_op
def rearrange(tensor, pattern, **axes_lengths):
    """``tensor`` with its axes rearranged by the einops ``pattern``.

    Parameters
    ----------
    tensor : tensor
    pattern : str
        ``"b h w c -> b (h w) c"``: input axes, ``->``, output axes; parentheses merge (output) or split (input,
        with ``axes_lengths``) axes.
    **axes_lengths : int
        Lengths of split axes.

    Returns
    -------
    Tensor
        The rearranged tensor (same dtype).
    """
    x = convert_to_tensor(tensor)
    left, right = pattern.split("->")
    left_groups, right_groups = _groups(left), _groups(right)
    lengths = dict(axes_lengths)
    left_axes = [axis for group in left_groups for axis in group]
    for size, group in zip(x.shape, left_groups):
        unknown = [axis for axis in group if axis not in lengths]
        if len(unknown) == 1:
            lengths[unknown[0]] = size // math.prod(lengths[axis] for axis in group if axis in lengths)
    x = tf.reshape(x, [lengths[axis] for axis in left_axes])  # always, as Keras: a rank mismatch fails here
    right_axes = [axis for group in right_groups for axis in group]
    x = tf.transpose(x, [left_axes.index(axis) for axis in right_axes])
    return tf.reshape(x, [math.prod(lengths[axis] for axis in group) for group in right_groups])
