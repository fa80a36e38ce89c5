"""The vfw engine: IR, workspace, op registry, executors.

Frontends and ONNX I/O build on this package; it never imports them.
"""

from vfw.core import dtypes, ops  # noqa: F401  (ops registers every op family)
from vfw.core.eager import execute, get_op, run
from vfw.core.errors import (
    DTypeError,
    IndexOutOfRangeError,
    OpAttributeError,
    OpInputError,
    OutOfMemoryError,
    ShapeError,
    UnknownOpError,
    VfwError,
)
from vfw.core.registry import (
    REQUIRED,
    Attr,
    Op,
    OpSchema,
    TensorInfo,
    defop,
    get_schema,
    make_op,
    op_types,
    register,
    register_kernel,
)
from vfw.core.tensor import Tensor
from vfw.core.workspace import Workspace, current_workspace, default_workspace

__all__ = [
    "Attr", "DTypeError", "IndexOutOfRangeError", "Op", "OpAttributeError", "OpInputError", "OpSchema",
    "OutOfMemoryError", "REQUIRED", "ShapeError", "Tensor", "TensorInfo", "UnknownOpError", "VfwError",
    "Workspace", "current_workspace", "default_workspace", "defop", "dtypes", "execute", "get_op",
    "get_schema", "make_op", "op_types", "register", "register_kernel", "run",
]
