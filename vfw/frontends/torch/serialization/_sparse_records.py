"""Sparse tensors in checkpoints: torch's ``_rebuild_sparse_tensor(layout, parts)`` records, read and written.

torch pickles a sparse COO tensor as ``torch._utils._rebuild_sparse_tensor(torch.serialization._get_layout(
'torch.sparse_coo'), (indices, values, size, is_coalesced))`` and a CSR one with ``(crow_indices, col_indices,
values, size)``; the parts are ordinary tensor records. Loading checks every part (types, then the sparse
constructors' own index checks), so a file cannot build anything else.
"""

from vfw.frontends.torch import _config
from vfw.frontends.torch._sparse import sparse_coo_tensor
from vfw.frontends.torch._sparse_csr import sparse_csr, sparse_csr_tensor
from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.serialization._storage import _malformed

_LAYOUTS = {"torch.sparse_coo": _config.sparse_coo, "torch.sparse_csr": sparse_csr, "torch.strided": _config.strided}


def get_layout(*args):
    """torch.serialization._get_layout: a layout by its name."""
    if len(args) != 1 or type(args[0]) is not str or args[0] not in _LAYOUTS:
        raise _malformed("_get_layout", f"unknown layout {args!r}")
    return _LAYOUTS[args[0]]


def _dims(size):
    if not isinstance(size, tuple) or any(type(n) is not int or n < 0 for n in size):
        raise _malformed("_rebuild_sparse_tensor", f"bad size {size!r}")
    return tuple(size)


def rebuild_sparse_tensor(*args):
    """torch._utils._rebuild_sparse_tensor: a sparse COO or CSR tensor from its checked parts."""
    if len(args) != 2 or type(args[1]) is not tuple:
        raise _malformed("_rebuild_sparse_tensor", "expected (layout, parts)")
    layout, parts = args
    tensors = [p for p in parts if isinstance(p, Tensor)]
    if layout is _config.sparse_coo and len(parts) in (3, 4) and len(tensors) == 2 and \
            (len(parts) == 3 or type(parts[3]) is bool):
        coalesced = parts[3] if len(parts) == 4 else None
        return sparse_coo_tensor(parts[0], parts[1], _dims(parts[2]), is_coalesced=coalesced)
    if layout is sparse_csr and len(parts) == 4 and len(tensors) == 3:
        return sparse_csr_tensor(parts[0], parts[1], parts[2], _dims(parts[3]))
    raise _malformed("_rebuild_sparse_tensor", f"unsupported layout or parts for {layout!r}")


def save_parts(t):
    """(layout name, parts) of a sparse tensor, as torch writes them."""
    if t.layout is _config.sparse_coo:
        return "torch.sparse_coo", (t._indices(), t._values().detach(), t.shape, t.is_coalesced())
    return "torch.sparse_csr", (t.crow_indices(), t.col_indices(), t.values().detach(), t.shape)
