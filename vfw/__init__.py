"""vfw: one numpy engine behind PyTorch- and TensorFlow-style frontends.

``import vfw.torch as torch`` and ``import vfw.tensorflow as tf`` are the
frontends; ``vfw.core`` is the engine and ``vfw.onnx_io`` the ONNX bridge.
``with vfw.mock("torch"):`` (and ``python -m vfw run --as torch script.py``) serve
them under the real names, so unmodified ``import torch`` code runs on vfw.
"""

from vfw import _aliases
from vfw._serving import mock  # noqa: F401
from vfw.core import (  # noqa: F401
    Attr,
    OpSchema,
    Tensor,
    VfwError,
    Workspace,
    defop,
    execute,
    get_schema,
    op_types,
    register,
    run,
)
from vfw.core.autograd import custom_gradient, gradient, no_grad, stop_gradient  # noqa: F401
from vfw.core.autograd_tape import GradientTape  # noqa: F401
from vfw.core.graph import assign, function  # noqa: F401

__version__ = "0.1.0"

_aliases.install()
