"""``tf.image.generate_bounding_box_proposals`` against real TF 2.21 on CPU: the op has no CPU kernel, so
converted arguments give TF's NotFoundError (same message) and unconvertible ones TF's TypeError."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real, vtf

_RNG = np.random.default_rng(0)
_SCORES = _RNG.uniform(size=(1, 3, 3, 2)).astype(np.float32)
_DELTAS = _RNG.normal(scale=0.1, size=(1, 3, 3, 8)).astype(np.float32)
_INFO = np.array([[100, 100, 1.0, 0, 0]], np.float32)
_ANCHORS = np.array([[0, 0, 30, 30], [10, 10, 50, 40]], np.float32)


def _proposals(tf, *args, **kwargs):
    return tf.image.generate_bounding_box_proposals(*args, **kwargs)


@pytest.mark.parametrize("kwargs", [{}, dict(min_size=1.0, post_nms_topn=5), dict(pre_nms_topn=2.5),
                                    dict(post_nms_topn=2.5), dict(post_nms_topn="x"), dict(nms_threshold="a"),
                                    dict(pre_nms_topn=[1.5]), dict(post_nms_topn=True)])
def test_cpu_outcome(kwargs):
    check(_proposals, _SCORES, _DELTAS, _INFO, _ANCHORS, **kwargs)


def test_other_dtypes_and_python_values():
    check(_proposals, _SCORES.astype(np.float64), _DELTAS, _INFO, _ANCHORS)
    check(_proposals, _SCORES.tolist(), _DELTAS, _INFO, [[1, 2, 3, 4]])


def test_not_found_message():
    messages = []
    for lib in (real, vtf):
        with pytest.raises(lib.errors.NotFoundError) as caught:
            _proposals(lib, _SCORES, _DELTAS, _INFO, _ANCHORS, post_nms_topn=np.int64(7))
        messages.append(str(caught.value).split(" [Op:")[0])
    assert messages[1] == messages[0]
