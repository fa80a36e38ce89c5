"""Where vfw.tensorflow's (Keras) Python warnings point: the user's calling line, not a vfw wrapper inside.

Real Keras 3 attributes most of these to its own files (``dense.py``, ``nn.py``: its ``stacklevel`` stops short
of the user); vfw has no such files to name, so it reports the user's line, which is what ``stacklevel`` intends.
The expected location is the triggering lambda's line in this file; the categories are those real Keras raises.
"""

import warnings

import numpy as np
import pytest
import vfw.tensorflow as vtf

keras = vtf.keras
ONES_2x1 = np.ones((2, 1), "float32")

# name -> (trigger written on ONE line, category real Keras 3 raises)
CASES = {
    "dense_input_shape": (lambda: keras.layers.Dense(2, input_shape=(3,)), UserWarning),
    "softmax_over_size_1_axis": (lambda: keras.ops.softmax(ONES_2x1, axis=-1), UserWarning),
    "input_layer_input_shape": (lambda: keras.layers.InputLayer(input_shape=(3,)), UserWarning),
    "from_logits_after_sigmoid": (lambda: keras.losses.binary_crossentropy(
        ONES_2x1, keras.activations.sigmoid(ONES_2x1), from_logits=True), UserWarning),
    "crossentropy_one_class": (lambda: keras.losses.categorical_crossentropy(ONES_2x1, ONES_2x1), SyntaxWarning),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_warning_points_at_calling_line(name):
    trigger, category = CASES[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trigger()
    found = [w for w in caught if not issubclass(w.category, RuntimeWarning)]
    assert [(w.category, w.filename, w.lineno) for w in found] == [
        (category, __file__, trigger.__code__.co_firstlineno)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_filter_raises_category(name):
    trigger, category = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(category):
            trigger()
