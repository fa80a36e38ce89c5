"""tf.nest: flatten, pack and map nested structures the way TensorFlow does.

Structures are lists, tuples, namedtuples, other non-string sequences (``range``) and mappings
(dicts, OrderedDicts, defaultdicts: their values in sorted-key order); everything else (strings,
numpy arrays, tensors, sets, None) is a leaf. With ``check_types``, two structures match when
their containers have the same type, all mappings counting as one type and namedtuples matching
by name and fields.
"""

import collections.abc

_VALID_KWARGS = ("check_types", "expand_composites")


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


_NESTED_TYPES = (list, tuple, dict)
_LEAF_TYPES = (int, float, str, bytes, bool, type(None))


def is_nested(seq):
    """Whether ``seq`` is a structure (a sequence other than a string, or a mapping), not a leaf."""
    if isinstance(seq, _NESTED_TYPES):  # the common cases first: abstract-class checks are slow
        return True
    if type(seq) in _LEAF_TYPES:
        return False
    if isinstance(seq, (collections.abc.Mapping, collections.abc.MappingView)):
        return True
    return isinstance(seq, collections.abc.Sequence) and not isinstance(seq, (str, bytes, bytearray))


def _sorted_keys(mapping):
    return sorted(mapping)  # TypeError for keys that do not sort, as in TF


def _children(x):
    """The direct children of a structure, in TF's order."""
    if type(x) is list or type(x) is tuple:
        return x
    if isinstance(x, collections.abc.Mapping):
        return [x[key] for key in _sorted_keys(x)]
    return list(x)


def flatten(structure, expand_composites=False):
    """The leaves of ``structure`` in order (mapping values by sorted key); a leaf gives ``[leaf]``.

    With ``expand_composites``, a composite leaf (a SparseTensor, an ExtensionType value: anything with
    ``_nest_components()``) gives its component tensors instead.
    """
    leaves = []
    _collect(structure, leaves)
    if expand_composites:
        return [t for leaf in leaves for t in (leaf._nest_components() if _expands(leaf) else [leaf])]
    return leaves


def _expands(leaf):
    return hasattr(leaf, "_nest_components")


def _collect(x, leaves):
    kind = type(x)
    if kind is list or kind is tuple:  # the common containers first, without the general checks
        for child in x:
            _collect(child, leaves)
    elif kind is dict:
        for key in sorted(x):
            _collect(x[key], leaves)
    elif is_nested(x):
        for child in _children(x):
            _collect(child, leaves)
    else:
        leaves.append(x)


def _like(instance, children):
    """A container like ``instance`` holding ``children`` (given in TF's order)."""
    if isinstance(instance, collections.abc.Mapping):
        by_key = dict(zip(_sorted_keys(instance), children))
        if isinstance(instance, collections.defaultdict):
            result = collections.defaultdict(instance.default_factory)
            for key in instance:
                result[key] = by_key[key]
            return result
        return type(instance)((key, by_key[key]) for key in instance)
    if _is_namedtuple(instance):
        return type(instance)(*children)
    if isinstance(instance, (list, tuple)):
        return type(instance)(children)
    return list(children)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``structure`` with its leaves replaced, in order, by the items of ``flat_sequence``.

    Raises
    ------
    TypeError
        When ``flat_sequence`` is not a sequence.
    ValueError
        When the number of items differs from the number of leaves.
    """
    if not is_nested(flat_sequence):
        raise TypeError(f"Attempted to pack value:\n  {flat_sequence}\ninto a structure, but found incompatible type "
                        f"`{type(flat_sequence)}` instead.")
    items = list(flat_sequence)
    if expand_composites and (is_nested(structure) or _expands(structure)):
        count = len(flatten(structure, expand_composites=True))
        if count != len(items):
            raise ValueError(f"Could not pack sequence. Structure had {count} atoms, but flat_sequence had "
                             f"{len(items)} items.  Structure: {structure}, flat_sequence: {flat_sequence}.")
        items = iter(items)
        leaves = [leaf._nest_rebuilt([next(items) for _ in leaf._nest_components()]) if _expands(leaf)
                  else next(items) for leaf in flatten(structure)]
        return _rebuild(structure, iter(leaves)) if is_nested(structure) else leaves[0]
    if not is_nested(structure):
        if len(items) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  {structure}\nHowever the input "
                             f"is a sequence ({type(flat_sequence)}) of length {len(items)}.\n  {flat_sequence}\n"
                             "nest cannot guarantee that it is safe to map one to the other.")
        return items[0]
    count = len(flatten(structure))
    if count != len(items):
        raise ValueError(f"Could not pack sequence. Structure had {count} atoms, but flat_sequence had {len(items)} "
                         f"items.  Structure: {structure}, flat_sequence: {flat_sequence}.")
    return _rebuild(structure, iter(items))


def _rebuild(x, items):
    if not is_nested(x):
        return next(items)
    return _like(x, [_rebuild(child, items) for child in _children(x)])


def _describe(x):
    return f"type={type(x).__name__} str={x}"


def _dotted(x):
    """``x`` with each leaf shown as ``.`` (TF's sketch of a structure in messages)."""
    return pack_sequence_as(x, ["."] * len(flatten(x))) if is_nested(x) else "."


def _same_type(a, b):
    if isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping):
        return True
    if _is_namedtuple(a) and _is_namedtuple(b):
        return type(a).__name__ == type(b).__name__ and a._fields == b._fields
    return type(a) is type(b)


def _mismatch(a, b, check_types):
    """(exception type, detail) for the first way ``a`` and ``b`` nest differently, or None."""
    nested_a, nested_b = is_nested(a), is_nested(b)
    if nested_a != nested_b:
        seq, other = (a, b) if nested_a else (b, a)
        return ValueError, (f'Substructure "{_describe(seq)}" is a sequence, while substructure "{_describe(other)}" '
                            f"is not")
    if not nested_a:
        return None
    if check_types and not _same_type(a, b):
        return TypeError, (f"The two namedtuples don't have the same sequence type. First structure {_describe(a)} "
                           f"has type {type(a).__name__}, while second structure {_describe(b)} has type "
                           f"{type(b).__name__}")
    if isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping) and set(a) != set(b):
        return ValueError, (f"The two dictionaries don't have the same set of keys. First structure has keys "
                            f"{_describe(list(a))}, while second structure has keys {_describe(list(b))}.")
    children_a, children_b = _children(a), _children(b)
    if len(children_a) != len(children_b):
        return ValueError, (f"The two structures don't have the same number of elements. First structure: "
                            f"{_describe(a)}. Second structure: {_describe(b)}.")
    for x, y in zip(children_a, children_b):
        found = _mismatch(x, y, check_types)
        if found is not None:
            return found
    return None


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raise unless ``nest1`` and ``nest2`` nest the same way.

    Raises
    ------
    ValueError
        Different nesting, lengths or mapping keys.
    TypeError
        Different container types (with ``check_types``).
    """
    found = _mismatch(nest1, nest2, check_types)
    if found is None:
        return
    error, detail = found
    if detail.startswith("Substructure"):
        detail += f"\nEntire first structure:\n{_dotted(nest1)}\nEntire second structure:\n{_dotted(nest2)}"
    raise error(f"The two structures don't have the same nested structure.\n\nFirst structure: {_describe(nest1)}\n\n"
                f"Second structure: {_describe(nest2)}\n\nMore specifically: {detail}")


def map_structure(func, *structure, **kwargs):
    """``func`` applied to the corresponding leaves of the structures, packed like the first one.

    Parameters
    ----------
    func : callable
        Called with one leaf from each structure.
    *structure
        Structures nesting the same way.
    check_types : bool, default True
        Also require the same container types.
    expand_composites : bool
        Apply ``func`` to the component tensors of composite leaves (SparseTensors, ExtensionType values).
    """
    for key in kwargs:
        if key not in _VALID_KWARGS:
            raise ValueError(f"Only valid keyword arguments are `check_types` and `expand_composites`, not: `{key}`")
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.get("check_types", True)
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    expand = kwargs.get("expand_composites", False)
    leaves = [flatten(s, expand_composites=expand) for s in structure]
    return pack_sequence_as(structure[0], [func(*args) for args in zip(*leaves)], expand_composites=expand)
