"""``tf.saved_model.Asset`` and the SavedModel name constants of ``tf.saved_model``."""

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor

__all__ = ["Asset", "ASSETS_DIRECTORY", "ASSETS_KEY", "CLASSIFY_INPUTS", "CLASSIFY_METHOD_NAME",
           "CLASSIFY_OUTPUT_CLASSES",
           "CLASSIFY_OUTPUT_SCORES", "DEBUG_DIRECTORY", "DEBUG_INFO_FILENAME_PB", "GPU", "PREDICT_INPUTS",
           "PREDICT_METHOD_NAME", "PREDICT_OUTPUTS", "REGRESS_INPUTS", "REGRESS_METHOD_NAME", "REGRESS_OUTPUTS",
           "SAVED_MODEL_FILENAME_PB", "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION", "TPU",
           "VARIABLES_DIRECTORY", "VARIABLES_FILENAME"]

ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
GPU = "gpu"
PREDICT_INPUTS = "inputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
TPU = "tpu"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"


class Asset:
    """A file a SavedModel depends on (a vocabulary, say), referred to by path.

    Parameters
    ----------
    path : str or scalar string tensor
        The file's path.

    Attributes
    ----------
    asset_path : scalar string tensor
        The path, for ops that read the file (``tf.io.read_file``, lookup-table initializers).

    Notes
    -----
    vfw's ``tf.saved_model.save`` does not copy assets into the SavedModel: a loaded model reads them from their
    original paths.
    """

    def __init__(self, path):
        self._path = convert_to_tensor(path, dtype=_dtypes.string)

    @property
    def asset_path(self):
        """The file's path (scalar string tensor)."""
        return self._path
