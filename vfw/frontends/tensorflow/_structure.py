"""Nested structures as TF's ``tf.nest`` sees them (lists, tuples, namedtuples, dicts by sorted key).

Used where TF accepts nested structures of tensors: GradientTape targets, sources and watched
values, custom_gradient outputs.
"""


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def flatten(structure):
    """The leaves of ``structure`` in TF's order (dict values by sorted key)."""
    leaves = []
    _collect(structure, leaves)
    return leaves


def _collect(x, leaves):
    if isinstance(x, (list, tuple)):
        for item in x:
            _collect(item, leaves)
    elif isinstance(x, dict):
        for key in _sorted_keys(x):
            _collect(x[key], leaves)
    else:
        leaves.append(x)


def pack_like(structure, leaves):
    """``structure`` with its leaves replaced, in order, by ``leaves``."""
    it = iter(leaves)
    return _rebuild(structure, it)


def _rebuild(x, it):
    if isinstance(x, dict):
        values = {key: _rebuild(x[key], it) for key in _sorted_keys(x)}
        return type(x)((key, values[key]) for key in x)
    if _is_namedtuple(x):
        return type(x)(*[_rebuild(item, it) for item in x])
    if isinstance(x, (list, tuple)):
        return type(x)([_rebuild(item, it) for item in x])
    return next(it)
