"""ONNX interop: import ONNX models into engine graphs, the ``onnx.backend`` API, export."""

from vfw.onnx_io import backend  # noqa: F401
from vfw.onnx_io._export_api import (  # noqa: F401
    ExportError,
    UnsupportedOpError,
    check,
    default_opset,
    export,
    to_keras_layer,
    to_torch_module,
)
from vfw.onnx_io._import import ImportedModel, load  # noqa: F401
from vfw.onnx_io._import_tensors import OnnxModelError  # noqa: F401
