"""``keras.RematScope``, ``keras.remat`` and ``keras.device``.

Rematerialization only trades memory for recomputation, so vfw runs the wrapped code as is: results and
gradients are the ones Keras computes.  ``RematScope`` validates and records its settings (the current
scope is ``get_current_remat_mode()``) as Keras does.  ``keras.device`` opens ``tf.device``.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend import global_state

_REMAT_MODES = ("full", "activations", "larger_than", "list_of_layers", None)


class RematScope:
    """A scope recording which layers Keras would rematerialize (vfw computes the same values without it).

    Parameters
    ----------
    mode : str or None
        ``"full"``, ``"activations"``, ``"larger_than"``, ``"list_of_layers"`` or None.
    output_size_threshold : int
        For ``"larger_than"``.
    layer_names : list of str, optional
        For ``"list_of_layers"``.
    """

    def __init__(self, mode="full", output_size_threshold=1024, layer_names=None):
        if mode not in _REMAT_MODES:
            raise ValueError(f"Invalid mode '{mode}'. Supported modes are: 'full', 'activations', 'larger_than', "
                             "'list_of_layers', or  None.")
        self.mode = mode
        self.output_size_threshold = output_size_threshold
        self.layer_names = layer_names or []
        self._pop_on_exit = False

    def __enter__(self):
        stack = global_state.get_global_attribute("remat_scope_stack") or []
        global_state.set_global_attribute("remat_scope_stack", stack + [self])
        self._pop_on_exit = True
        return self

    def __exit__(self, *exc):
        if self._pop_on_exit:
            stack = global_state.get_global_attribute("remat_scope_stack") or []
            global_state.set_global_attribute("remat_scope_stack", stack[:-1])
        return False


def get_current_remat_mode():
    """The innermost open RematScope (None when none is open or its mode is None)."""
    stack = global_state.get_global_attribute("remat_scope_stack")
    return stack[-1] if stack and stack[-1].mode is not None else None


def remat(f):
    """``f`` itself: vfw keeps activations instead of recomputing them (same values and gradients)."""
    return f


def device(device_name):
    """A context placing ops on ``device_name`` (``"cpu:0"``), as ``tf.device``."""
    if not isinstance(device_name, str):
        raise ValueError(f"Invalid value for argument `device_name`. Expected a string like 'gpu:0'. Received: "
                         f"device_name='{device_name}'")
    return tf.device(device_name.lower())


API = {"keras": ["RematScope", "remat", "device"]}
