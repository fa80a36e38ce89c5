"""``torch.onnx.register_custom_op_symbolic`` / ``unregister_custom_op_symbolic`` and
``select_model_mode_for_export``.

vfw's exporter maps engine ops to ONNX itself and never calls TorchScript symbolic functions, so registrations
are validated as torch validates them and recorded (``registered_symbolics``) without changing exports.
"""

import contextlib
import re

__all__ = ["register_custom_op_symbolic", "select_model_mode_for_export", "unregister_custom_op_symbolic"]

# (symbolic name, opset version) -> symbolic function, as registered.
registered_symbolics = {}

_SYMBOLIC_NAME = re.compile(r"^[a-zA-Z0-9-_]+::[a-zA-Z-_]+[a-zA-Z0-9-_]*$")


def _checked_name(symbolic_name):
    """``'::name'`` means ``'aten::name'``; anything not ``domain::name`` raises torch's OnnxExporterError."""
    from vfw.frontends.torch.onnx import OnnxExporterError

    if symbolic_name.startswith("::"):
        symbolic_name = f"aten{symbolic_name}"
    if not _SYMBOLIC_NAME.match(symbolic_name):
        raise OnnxExporterError(f"Failed to register operator {symbolic_name}. The symbolic name must match the "
                                "format domain::name, and should start with a letter and contain only alphanumeric "
                                "characters")
    return symbolic_name


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """Record ``symbolic_fn`` as the ONNX symbolic of ``symbolic_name`` (``'domain::op'``) from ``opset_version``.

    Parameters
    ----------
    symbolic_name : str
        ``'domain::op'`` (``'::op'`` stands for ``'aten::op'``).
    symbolic_fn : callable
    opset_version : int
    """
    registered_symbolics[_checked_name(symbolic_name), opset_version] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    """Forget the symbolic registered for ``symbolic_name`` and ``opset_version`` (nothing registered: no-op)."""
    registered_symbolics.pop((_checked_name(symbolic_name), opset_version), None)


@contextlib.contextmanager
def select_model_mode_for_export(model, mode):
    """Inside the block ``model`` is in the mode ``mode`` (a ``torch.onnx.TrainingMode``).

    ``EVAL``/``TRAINING`` set every module's mode and, on exit, put the whole model back into the root module's
    original mode (as torch: a submodule in another mode than the root does not get it back); ``PRESERVE``
    changes nothing.

    Raises
    ------
    TypeError
        When ``mode`` is not a ``TrainingMode``.
    """
    from vfw.frontends.torch.onnx import TrainingMode

    if not isinstance(mode, TrainingMode):
        raise TypeError(f"'mode' should be a torch.onnx.TrainingMode enum, but got '{type(mode)}'.")
    if mode == TrainingMode.PRESERVE:
        yield
        return
    originally_training = model.training
    model.train(mode == TrainingMode.TRAINING)
    try:
        yield
    finally:
        model.train(originally_training)
