"""``torch.types``: the type aliases torch's annotations use (``Number``, ``Device``, ``_size``, ``_dtype``...)
and ``Storage``, the annotation type of storages.

Annotations only: nothing here computes.  torch's symbolic ``SymInt``/``SymFloat``/``SymBool`` have no vfw
counterpart, so the aliases that mention them here name the plain Python types.
"""

import os
from typing import IO, TypeAlias, Union

from vfw.frontends.torch._config import layout as _layout  # noqa: F401  (torch.types._layout)
from vfw.frontends.torch._device import device as _device
from vfw.frontends.torch._dtype import dtype as _dtype  # noqa: F401  (torch.types._dtype)
from vfw.frontends.torch._size import Size
from vfw.frontends.torch._tensor import Tensor

__all__ = ["Number", "Device", "FileLike", "Storage"]

_bool, _bytes, _complex, _float, _int, _str = bool, bytes, complex, float, int, str

_Number = (int, float, bool)  # for isinstance checks
Number: TypeAlias = int | float | bool
Device: TypeAlias = _device | str | int | None
FileLike: TypeAlias = Union[str, os.PathLike[str], IO[bytes]]  # noqa: UP007  (torch's spelling of it)
_size: TypeAlias = Size | list[int] | tuple[int, ...]
_symsize: TypeAlias = Size | list[int] | tuple[int, ...]
IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool
_TensorOrTensors: TypeAlias = Tensor | list[Tensor] | tuple[Tensor, ...]
_TensorOrOptionalTensors: TypeAlias = Tensor | list[Tensor | None] | tuple[Tensor | None, ...]


class Storage:
    """The type annotations give storages (as in torch, the storage classes do not derive from it)."""

    device: _device
    dtype: _dtype

    def element_size(self) -> int:
        """Bytes per element."""
        raise NotImplementedError

    def nbytes(self) -> int:
        """Size in bytes."""
        raise NotImplementedError

    def data_ptr(self) -> int:
        """Address of the first byte."""
        raise NotImplementedError
