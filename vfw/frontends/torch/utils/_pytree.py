"""torch.utils._pytree: nested containers flattened to leaves and a ``TreeSpec`` (vfw's one pytree lives in
``torch.func._pytree``)."""

from vfw.frontends.torch.func._pytree import (  # noqa: F401
    LeafSpec,
    TreeSpec,
    register_pytree_node,
    tree_all,
    tree_any,
    tree_flatten,
    tree_is_leaf,
    tree_iter,
    tree_leaves,
    tree_map,
    tree_map_,
    tree_structure,
    tree_unflatten,
)
