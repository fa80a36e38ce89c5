"""The Tensor method table: each function family module contributes its ``TENSOR_METHODS``."""

from vfw.frontends.torch import _creation, _tensor_str

# Function family modules, each with ``__all__`` (torch.* functions) and ``TENSOR_METHODS``
# (name -> function taking the tensor first).
FAMILIES = [_creation, _tensor_str]


def install(tensor_class):
    """Bind every family's methods onto the Tensor class."""
    for module in FAMILIES:
        for name, fn in getattr(module, "TENSOR_METHODS", {}).items():
            setattr(tensor_class, name, fn)
