"""The export side of ``vfw.onnx_io``: its public names, gathered for the package namespace."""

from vfw.onnx_io._export import ExportError, UnsupportedOpError, default_opset
from vfw.onnx_io._export_tensorflow import export
from vfw.onnx_io.check import CheckReport, check

__all__ = ["CheckReport", "ExportError", "UnsupportedOpError", "check", "default_opset", "export", "to_keras_layer",
           "to_torch_module"]


def to_torch_module(model):
    """Wrap an ONNX model as a trainable ``vfw.torch.nn.Module`` (see :mod:`vfw.onnx_io._torch_module`).

    Parameters
    ----------
    model : str, os.PathLike, bytes, file object, onnx.ModelProto or ImportedModel

    Returns
    -------
    vfw.onnx_io._torch_module.OnnxModule
    """
    from vfw.onnx_io._torch_module import to_torch_module as wrap  # imports vfw.torch: only when used

    return wrap(model)


def to_keras_layer(model, name=None):
    """Wrap an ONNX model as a Keras layer with trainable weights (see :mod:`vfw.onnx_io._keras_layer`).

    Parameters
    ----------
    model : str, os.PathLike, bytes, file object, onnx.ModelProto or ImportedModel
    name : str, optional

    Returns
    -------
    vfw.onnx_io._keras_layer.OnnxLayer
    """
    from vfw.onnx_io._keras_layer import to_keras_layer as wrap  # imports vfw.tensorflow: only when used

    return wrap(model, name)
