"""``keras.utils.plot_model`` and ``model_to_dot``: Keras draws models with pydot and graphviz, which vfw
does not; without pydot they raise Keras' ImportError."""

import importlib.util


def _needs_pydot(function_name):
    if importlib.util.find_spec("pydot") is None:
        raise ImportError(f"You must install pydot (`pip install pydot`) for {function_name} to work.")
    raise NotImplementedError(f"vfw does not implement {function_name} (graphviz drawings of models).")


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False, show_layer_names=False,
               rankdir="TB", expand_nested=False, dpi=200, show_layer_activations=False, show_trainable=False,
               splines="ortho", **kwargs):
    """Draw ``model`` with pydot and graphviz: ImportError when pydot is missing, as Keras."""
    _needs_pydot("`plot_model`")


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True, rankdir="TB",
                 expand_nested=False, dpi=200, subgraph=False, show_layer_activations=False, show_trainable=False,
                 splines="ortho", **kwargs):
    """``model`` as a pydot graph: ImportError when pydot is missing, as Keras."""
    _needs_pydot("model_to_dot")


API = {"utils": ["model_to_dot", "plot_model"]}
