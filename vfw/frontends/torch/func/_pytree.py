"""Nested containers of tensors (tuples, lists, dicts) as the function transforms see them."""

from vfw.core.tensor import Tensor as CoreTensor


def leaves(tree):
    """The leaves of ``tree`` in order (tuples, lists and dict values are containers)."""
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in leaves(item)]
    return [tree]


def rebuild(tree, values):
    """``tree`` with its leaves replaced, in order, by ``values`` (an iterator)."""
    if isinstance(tree, (tuple, list)):
        items = [rebuild(item, values) for item in tree]
        if isinstance(tree, list):
            return items
        return type(tree)(*items) if hasattr(tree, "_fields") else tuple(items)
    if isinstance(tree, dict):
        return {key: rebuild(item, values) for key, item in tree.items()}
    return next(values)


def map_leaves(fn, tree):
    """``tree`` with each leaf replaced by ``fn(leaf)``."""
    return rebuild(tree, iter([fn(leaf) for leaf in leaves(tree)]))


def is_tensor(value):
    return isinstance(value, CoreTensor)
