"""The table of import handlers, filled by the ``_import_*`` modules that convert operators.

``HANDLERS[(domain, op_type)](converter, builder, spec)`` emits the engine ops for one node
(after its opset adapter ran) and defines its outputs.  Operators without a handler map onto
the engine op of the same name.
"""

import numpy as np

from vfw.core.errors import OpAttributeError, ShapeError
from vfw.onnx_io._import_graph import tensor_type

HANDLERS = {}


def handler(*op_types, domain=""):
    """Register the decorated function as the handler of ``op_types`` in ``domain``."""

    def wrap(fn):
        for op_type in op_types:
            HANDLERS[(domain, op_type)] = fn
        return fn

    return wrap


def constant_input(b, spec, index, what):
    """The value of input ``index`` when it is a constant (an initializer), else an error naming ``what``."""
    value = b.constant(spec.input(index))
    if value is None:
        raise spec.error(f"{what} (input {index}) must be a constant of the model for vfw to import it",
                         OpAttributeError)
    return value


def known_shape(b, spec, index):
    """The shape of input ``index`` when a constant or the model's types give it (dims may be None), else None."""
    value = b.constant(spec.input(index))
    if value is not None:
        return value.shape
    if index >= len(spec.proto.input) or not spec.proto.input[index]:
        return None
    type_proto = b.converter.type_of(spec.proto.input[index])
    return tensor_type(type_proto, spec.where)[1] if type_proto is not None else None


def rank_of(b, spec, index):
    """The rank of input ``index`` (from a constant or the model's types); an error when unknown."""
    shape = known_shape(b, spec, index)
    if shape is None:
        raise spec.error(f"needs the rank of input {index} ({spec.proto.input[index]!r}), which the model does not "
                         "declare", ShapeError)
    return len(shape)


def int64s(b, values):
    """A new int64 constant."""
    return b.const(np.asarray(values, np.int64))
