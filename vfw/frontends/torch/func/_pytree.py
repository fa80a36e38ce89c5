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


# torch.utils._pytree: flatten/unflatten with a TreeSpec, over lists, tuples, named tuples, dicts, OrderedDicts
# and registered node types. Unlike ``leaves`` above, a node's children order and structure are recorded.

class _NodeDef:
    def __init__(self, flatten, unflatten, name):
        self.flatten, self.unflatten, self.name = flatten, unflatten, name


def _is_namedtuple(cls):
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


_NODES = {
    list: _NodeDef(lambda v: (list(v), None), lambda children, _: list(children), "list"),
    tuple: _NodeDef(lambda v: (list(v), None), lambda children, _: tuple(children), "tuple"),
    dict: _NodeDef(lambda v: (list(v.values()), list(v)), lambda children, keys: dict(zip(keys, children)), "dict"),
}
_NAMEDTUPLE = _NodeDef(lambda v: (list(v), type(v)), lambda children, cls: cls(*children), "namedtuple")


def _ordered_dict_node():
    from collections import OrderedDict
    return OrderedDict, _NodeDef(lambda v: (list(v.values()), list(v)),
                                 lambda children, keys: OrderedDict(zip(keys, children)), "OrderedDict")


_NODES.update([_ordered_dict_node()])


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    """Treat instances of ``cls`` as nodes: ``flatten_fn(obj) -> (children, context)`` and
    ``unflatten_fn(children, context) -> obj``."""
    if cls in _NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _NODES[cls] = _NodeDef(flatten_fn, unflatten_fn, cls.__name__)


def _node_def(value):
    cls = type(value)
    if cls in _NODES:
        return _NODES[cls]
    return _NAMEDTUPLE if _is_namedtuple(cls) else None


class TreeSpec:
    """The structure of a flattened tree: the node type, its context (dict keys, named tuple class...) and the
    children's specs. A leaf is a ``LeafSpec`` (shown ``*``)."""

    def __init__(self, type, context, children_specs):  # noqa: A002  (torch's argument name)
        self.type, self.context, self.children_specs = type, context, list(children_specs)

    @property
    def num_leaves(self):
        return sum(child.num_leaves for child in self.children_specs)

    @property
    def num_nodes(self):
        return 1 + sum(child.num_nodes for child in self.children_specs)

    @property
    def num_children(self):
        return len(self.children_specs)

    def is_leaf(self):
        return False

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.is_leaf() == other.is_leaf() and self.type is other.type
                and self.context == other.context and self.children_specs == other.children_specs)

    __hash__ = None

    def _text(self, indent):
        name = _NAMEDTUPLE.name if _is_namedtuple(self.type) else _NODES[self.type].name
        separator = ",\n" + " " * (indent + 2)
        children = separator.join(child._text(indent + 2) for child in self.children_specs)
        return f"TreeSpec({name}, {self.context}, [{children}])"

    def __repr__(self):
        return self._text(0)

    def _build(self, leaves):
        node = _NAMEDTUPLE if _is_namedtuple(self.type) else _NODES[self.type]
        return node.unflatten([child._build(leaves) for child in self.children_specs], self.context)

    def unflatten(self, leaves):
        """The tree of this structure holding ``leaves`` in order."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                             f"to a pytree that holds {self.num_leaves} items ({self}).")
        return self._build(iter(leaves))


class LeafSpec(TreeSpec):
    """The spec of a leaf (``*``)."""

    def __init__(self):
        super().__init__(None, None, [])

    @property
    def num_leaves(self):
        return 1

    @property
    def num_nodes(self):
        return 1

    def is_leaf(self):
        return True

    def _text(self, indent):
        return "*"

    def _build(self, leaves):
        return next(leaves)


def tree_flatten(tree, is_leaf=None):
    """(leaves, TreeSpec) of ``tree``; ``is_leaf(value)`` True stops descending there."""
    node = None if is_leaf is not None and is_leaf(tree) else _node_def(tree)
    if node is None:
        return [tree], LeafSpec()
    children, context = node.flatten(tree)
    flat, specs = [], []
    for child in children:
        child_leaves, spec = tree_flatten(child, is_leaf)
        flat.extend(child_leaves)
        specs.append(spec)
    return flat, TreeSpec(type(tree), context, specs)


def tree_unflatten(leaves, treespec):
    """The tree of structure ``treespec`` holding ``leaves``."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but got "
                        f"item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_leaves(tree, is_leaf=None):
    """The leaves of ``tree`` in order."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    """The TreeSpec of ``tree``."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """``tree`` with each leaf replaced by ``func(leaf, *matching leaves of rests)``."""
    flat, spec = tree_flatten(tree, is_leaf)
    others = [tree_leaves(rest, is_leaf) for rest in rests]
    return spec.unflatten(func(*values) for values in zip(flat, *others))


def tree_map_(func, tree, *rests, is_leaf=None):
    """Call ``func`` on each leaf (and the matching leaves of ``rests``); returns ``tree``."""
    for values in zip(tree_leaves(tree, is_leaf), *(tree_leaves(rest, is_leaf) for rest in rests)):
        func(*values)
    return tree


def tree_all(pred, tree, is_leaf=None):
    return all(pred(leaf) for leaf in tree_leaves(tree, is_leaf))


def tree_any(pred, tree, is_leaf=None):
    return any(pred(leaf) for leaf in tree_leaves(tree, is_leaf))


def tree_iter(tree, is_leaf=None):
    return iter(tree_leaves(tree, is_leaf))


def tree_is_leaf(tree, is_leaf=None):
    return (is_leaf is not None and is_leaf(tree)) or _node_def(tree) is None
