"""Reading Keras' legacy HDF5 weight files (the format of the released ``keras.applications`` ImageNet weights).

Such a file has a ``layer_names`` attribute and, per layer, a group whose ``weight_names`` attribute lists
its datasets in the layer's weight order. The weights are matched to the model's layers by name.
"""

import h5py
import numpy as np


def is_legacy_h5(path):
    """Whether ``path`` names a legacy ``.h5`` weights file (not Keras 3's ``.weights.h5``)."""
    path = str(path)
    return path.endswith((".h5", ".hdf5")) and not path.endswith(".weights.h5")


def _text(value):
    return value.decode("utf8") if isinstance(value, bytes) else str(value)


def load_legacy_h5_weights(model, path):
    """Assign each layer of ``model`` that has weights from the group of the same name in ``path``.

    Raises
    ------
    ValueError
        A layer with weights is missing from the file, or its saved weights differ in number or shapes.
    """
    with h5py.File(path, "r") as file:
        weights_group = file["model_weights"] if "model_weights" in file else file
        saved_layers = {_text(name) for name in weights_group.attrs["layer_names"]}
        for layer in model.layers:
            if not layer.weights:
                continue
            if layer.name not in saved_layers:
                raise ValueError(f"Layer '{layer.name}' of model '{model.name}' has weights but is not in the "
                                 f"weights file {path}.")
            group = weights_group[layer.name]
            values = [np.asarray(group[_text(name)]) for name in group.attrs["weight_names"]]
            expected = [tuple(weight.shape) for weight in layer.weights]
            if [value.shape for value in values] != expected:
                raise ValueError(f"Layer '{layer.name}' expects weights of shapes {expected}, the file {path} "
                                 f"holds {[value.shape for value in values]}.")
            layer.set_weights(values)
