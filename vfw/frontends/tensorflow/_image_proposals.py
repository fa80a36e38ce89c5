"""``tf.image.generate_bounding_box_proposals``: TF 2.21 registers GenerateBoundingBoxProposals for GPUs only.

On TF's CPU the op has no kernel: after converting its arguments as TF does (Python values to float32, or int32
for ``pre_nms_topn``; ``post_nms_topn`` an int attribute), every call raises TF's NotFoundError, which vfw
reproduces (as ``tf.signal.fftnd`` does).
"""

import numbers

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, is_tensor_like, op_error

_TF_OP = "GenerateBoundingBoxProposals"


def _int_attr(value, argument):
    """An int attribute as TF's op wrapper reads it (numbers truncated, scalar tensors read)."""
    if is_tensor_like(value):
        value = convert_to_tensor(value).array
        if value.ndim == 0 and value.dtype.kind in "iub":
            return int(value)
    elif isinstance(value, numbers.Real):
        return int(value)
    raise TypeError(f"Expected int for argument '{argument}' not {value!r}.")


def generate_bounding_box_proposals(scores, bbox_deltas, image_info, anchors, nms_threshold=0.7, pre_nms_topn=6000,
                                    min_size=16, post_nms_topn=300, name=None):
    """Region proposals from anchor scores and box deltas: TF's op has no CPU kernel (NotFoundError).

    Parameters
    ----------
    scores : float32 tensor, shape [num_images, height, width, num_anchors]
    bbox_deltas : float32 tensor, shape [num_images, height, width, 4 * num_anchors]
    image_info : float32 tensor, shape [num_images, 5]
    anchors : float32 tensor, shape [num_anchors, 4]
    nms_threshold, min_size : float
    pre_nms_topn, post_nms_topn : int

    Raises
    ------
    NotFoundError
        Always, as TF 2.21 on CPU, once the arguments convert.
    TypeError
        An argument TF cannot convert.
    """
    for value in (scores, bbox_deltas, image_info, anchors, nms_threshold, min_size):
        if not is_tensor_like(value):
            convert_to_tensor(value, _dtypes.float32)
    if not is_tensor_like(pre_nms_topn):
        convert_to_tensor(pre_nms_topn, _dtypes.int32)
    attr = _int_attr(post_nms_topn, "post_nms_topn")
    raise op_error(f"Could not find device for node: {{{{node {_TF_OP}}}}} = {_TF_OP}[post_nms_topn={attr}]\n"
                   f"All kernels registered for op {_TF_OP}:\n  <no registered kernels>\n", _TF_OP,
                   errors.NotFoundError)


NAMESPACES = {"image": ["generate_bounding_box_proposals"]}
