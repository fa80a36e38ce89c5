"""``keras.tree``: Keras 3's utilities over nested structures, with Keras 3.15.1's (optree's) rules.

Nodes are lists, tuples, namedtuples and dicts; everything else (``None`` included) is a leaf. A dict's children
come in sorted key order (``OrderedDict``: insertion order); rebuilt dicts keep the original key order.
Mismatching structures raise ValueError with optree's messages.
"""

import collections

API = {"tree": ["MAP_TO_NONE", "assert_same_paths", "assert_same_structure", "flatten", "flatten_with_path",
                "is_nested", "lists_to_tuples", "map_shape_structure", "map_structure", "map_structure_up_to",
                "pack_sequence_as", "traverse"]}


class MAP_TO_NONE:  # noqa: N801  (Keras' name)
    """Returned by a :func:`traverse` function to map a whole subtree to None."""


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(structure):
    """Whether ``structure`` is a node (a list, tuple, namedtuple or dict), not a leaf."""
    return isinstance(structure, (list, tuple, dict))


def _keys(mapping):
    """A dict's keys in child order: sorted (insertion order for OrderedDict, or when keys do not sort)."""
    if type(mapping) is collections.OrderedDict:
        return list(mapping)
    try:
        return sorted(mapping)
    except TypeError:
        return list(mapping)


def _children(node):
    """``[(path entry, child)]`` of a node, in flattening order."""
    if isinstance(node, dict):
        return [(key, node[key]) for key in _keys(node)]
    return list(enumerate(node))


def _rebuild(node, children):
    """A node of the same type as ``node`` holding ``children`` (given in flattening order)."""
    if isinstance(node, dict):
        values = dict(zip(_keys(node), children))
        items = [(key, values[key]) for key in node]  # the original key order
        if isinstance(node, collections.defaultdict):
            return type(node)(node.default_factory, items)
        return type(node)(items)
    if _is_namedtuple(node):
        return type(node)(*children)
    if isinstance(node, tuple):
        return tuple(children) if type(node) is tuple else type(node)(children)
    return list(children) if type(node) is list else type(node)(children)


def _type_name(node):
    if _is_namedtuple(node):
        return "collections.namedtuple"
    if isinstance(node, collections.OrderedDict):
        return "collections.OrderedDict"
    if isinstance(node, collections.defaultdict):
        return "collections.defaultdict"
    return type(node).__name__


def _kind(node):
    if _is_namedtuple(node):
        return type(node)
    if isinstance(node, dict):
        return dict if type(node) is dict else type(node)
    return list if isinstance(node, list) else tuple


def _check_node(expected, got):
    """Raise optree's ValueError when ``got`` is not a node matching ``expected`` (type, arity and keys)."""
    if not is_nested(got) or _kind(got) is not _kind(expected):
        raise ValueError(f"Expected an instance of {_type_name(expected)}, got {got!r}.")
    if isinstance(expected, dict):
        if set(expected) != set(got):
            want, have = _keys(expected), _keys(got)
            missing = [k for k in want if k not in got]
            extra = [k for k in have if k not in expected]
            raise ValueError(f"dictionary key mismatch; expected key(s): {want}, got key(s): {have}, missing key(s): "
                             f"{missing}, extra key(s): {extra}; dict: {got!r}.")
    elif len(expected) != len(got):
        raise ValueError(f"{_type_name(expected)} arity mismatch; expected: {len(expected)}, got: {len(got)}; "
                         f"{_type_name(expected)}: {got!r}.")


def _leaves_with_paths(structure, path, out, none_is_leaf=True):
    if is_nested(structure):
        for key, child in _children(structure):
            _leaves_with_paths(child, path + (key,), out, none_is_leaf)
    elif structure is not None or none_is_leaf:
        out.append((path, structure))
    return out


def flatten(structure):
    """The leaves of ``structure``, in Keras' order (a leaf alone gives ``[leaf]``)."""
    return [leaf for _, leaf in _leaves_with_paths(structure, (), [])]


def flatten_with_path(structure):
    """``[(path, leaf)]``: each leaf with the tuple of indices and keys reaching it."""
    return _leaves_with_paths(structure, (), [])


def pack_sequence_as(structure, flat_sequence):
    """The leaves ``flat_sequence`` in the shape of ``structure`` (ValueError for a wrong number of leaves)."""
    flat = list(flat_sequence)
    expected = len(flatten(structure))
    if len(flat) != expected:
        got = f", got: {len(flat)}" if len(flat) < expected else ""  # optree's two messages
        raise ValueError(f"Too {'few' if len(flat) < expected else 'many'} leaves for PyTreeSpec; expected: "
                         f"{expected}{got}.")
    leaves = iter(flat)

    def build(node):
        if is_nested(node):
            return _rebuild(node, [build(child) for _, child in _children(node)])
        return next(leaves)

    return build(structure)


def _map(func, structures, none_is_leaf):
    first = structures[0]
    if first is None and not none_is_leaf:
        return None
    if not is_nested(first):
        return func(*structures)
    for other in structures[1:]:
        _check_node(first, other)
    keys = [key for key, _ in _children(first)]
    children = [[s[key] for s in structures] for key in keys]
    return _rebuild(first, [_map(func, c, none_is_leaf) for c in children])


def map_structure(func, *structures, none_is_leaf=True):
    """``func`` applied to the leaves at the same place in each of ``structures`` (which must match), in the
    structure of the first. ``none_is_leaf=False``: None stays None without calling ``func``."""
    if not callable(func):
        raise TypeError(f"`func` must be callable. Received: func={func}")
    if not structures:
        raise ValueError("Must provide at least one structure")
    return _map(func, structures, none_is_leaf)


def map_structure_up_to(shallow_structure, func, *structures):
    """``func`` applied to the subtrees of ``structures`` at the leaves of ``shallow_structure``."""
    if not structures:
        raise ValueError("Must provide at least one structure")

    def visit(shallow, values):
        if not is_nested(shallow):
            return func(*values)
        for value in values:
            _check_node(shallow, value)
        return _rebuild(shallow, [visit(child, [v[key] for v in values]) for key, child in _children(shallow)])

    return visit(shallow_structure, structures)


def assert_same_structure(a, b, check_types=None):
    """Raise ValueError unless ``a`` and ``b`` have the same nodes (types, lengths, keys) and number of leaves."""
    _map(lambda *_: None, (a, b), True)


def assert_same_paths(a, b):
    """Raise ValueError unless ``a`` and ``b`` have the same leaf paths (node types may differ)."""
    paths_a = {path for path, _ in flatten_with_path(a)}
    paths_b = {path for path, _ in flatten_with_path(b)}
    if paths_a != paths_b:
        message = "`a` and `b` don't have the same paths."
        if paths_a - paths_b:
            message += f"\nPaths in `a` missing in `b`:\n{paths_a - paths_b}"
        if paths_b - paths_a:
            message += f"\nPaths in `b` missing in `a`:\n{paths_b - paths_a}"
        raise ValueError(message)


def traverse(func, structure, top_down=True):
    """Walk ``structure`` applying ``func`` to every node and leaf.

    Top down: a result of None goes on into the node's children, ``MAP_TO_NONE`` makes the subtree None, anything
    else replaces the subtree. Bottom up: ``func`` sees each node rebuilt from its traversed children; None keeps
    it, ``MAP_TO_NONE`` makes it None.
    """
    def result(value, original):
        if value is None:
            return original
        return None if value is MAP_TO_NONE else value

    def down(node):
        value = func(node)
        if value is not None:
            return None if value is MAP_TO_NONE else value
        if is_nested(node):
            return _rebuild(node, [down(child) for _, child in _children(node)])
        return node

    def up(node):
        if is_nested(node):
            node = _rebuild(node, [up(child) for _, child in _children(node)])
        return result(func(node), node)

    return down(structure) if top_down else up(structure)


def lists_to_tuples(structure):
    """``structure`` with every list (at any depth) made a tuple."""
    def convert(node):
        if not is_nested(node):
            return node
        children = [convert(child) for _, child in _children(node)]
        return tuple(children) if isinstance(node, list) else _rebuild(node, children)

    return convert(structure)


def _is_shape(x):
    return isinstance(x, (list, tuple)) and not _is_namedtuple(x) and all(
        d is None or isinstance(d, int) for d in x)


def map_shape_structure(func, structure):
    """``func`` applied to each shape (a list or tuple of ints and Nones) in ``structure``."""
    if _is_shape(structure) or not is_nested(structure):
        return func(structure)
    return _rebuild(structure, [map_shape_structure(func, child) for _, child in _children(structure)])
