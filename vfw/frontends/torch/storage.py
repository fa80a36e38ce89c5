"""``torch.storage``: the storage classes (``UntypedStorage`` of ``Tensor.untyped_storage()``, the deprecated
``TypedStorage`` of ``Tensor.storage()``; see ``_storage.py``) under torch's module name."""

from vfw.frontends.torch._storage import TypedStorage, UntypedStorage
from vfw.frontends.torch.types import Storage  # noqa: F401  (torch.storage.Storage is torch.types.Storage)

__all__ = ["TypedStorage", "UntypedStorage"]
