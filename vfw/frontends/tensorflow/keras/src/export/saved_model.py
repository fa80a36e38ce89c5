"""``model.export(path, format="tf_saved_model")``: a Keras model's inference endpoint as a vfw SavedModel.

As Keras 3 on the TF backend, the SavedModel's root has a ``serve`` function (the model called with
``training=False``) and the signatures ``serve`` and ``serving_default`` (dict outputs ``output_0``...), plus the
lists ``variables``, ``trainable_variables`` and ``non_trainable_variables``.  The directory is in vfw's own format
(``tf.saved_model.load`` of vfw reads it; TensorFlow cannot).
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.export.archive import DEFAULT_ENDPOINT_NAME, ExportArchive


def _input_signature(model):
    inputs = getattr(model, "inputs", None)
    if not inputs:
        raise ValueError("The model provided has never called. It must be called at least once before export. "
                         "vfw exports models with known inputs (built from `keras.Input`), or pass "
                         "`input_signature`.")
    return [tf.TensorSpec(x.shape, x.dtype, x.name) for x in inputs]


def export_saved_model(model, filepath, verbose=None, input_signature=None):
    """Write ``model``'s ``serve`` endpoint to the directory ``filepath`` (vfw's SavedModel format).

    Parameters
    ----------
    model : keras.Model
    filepath : str or os.PathLike
    verbose : bool, optional
        Print a summary of the endpoint (as Keras, on by default).
    input_signature : list of tf.TensorSpec, optional
        Default: the model's inputs.
    """
    if input_signature is None:
        input_signature = _input_signature(model)

    def serve(*inputs):
        return model(inputs[0] if len(inputs) == 1 else list(inputs), training=False)

    archive = ExportArchive()
    archive.track(model)
    archive.add_endpoint(DEFAULT_ENDPOINT_NAME, serve, list(input_signature))
    archive.write_out(filepath, verbose=verbose or verbose is None)
