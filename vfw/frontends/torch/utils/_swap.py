"""``torch.utils.swap_tensors``: two tensor objects exchange everything they hold, keeping their identities."""

__all__ = ["swap_tensors"]


def _slot_names(cls):
    """The names of the instance slots ``cls`` and its bases declare (``__dict__``/``__weakref__`` aside)."""
    names = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return names


def swap_tensors(t1, t2):
    """Swap the contents of ``t1`` and ``t2`` (data, autograd state, attributes and class) in place.

    Afterwards ``t1`` is the object it was, holding what ``t2`` held, and the reverse: references to either
    (a module's parameter list, say) see the other's data.

    Raises
    ------
    TypeError
        When an argument is not a tensor, or the classes cannot be exchanged.
    """
    from vfw.frontends.torch._tensor import Tensor

    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"swap_tensors(): expected {name} to be a Tensor, got {type(t).__name__}")
    if t1 is t2:
        return
    names = _slot_names(type(t1))
    missing = object()
    first = [getattr(t1, name, missing) for name in names]
    second = [getattr(t2, name, missing) for name in names]
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__  # raises TypeError first for incompatible layouts
    for name, value_for_t2, value_for_t1 in zip(names, first, second):
        for target, value in ((t1, value_for_t1), (t2, value_for_t2)):
            if value is missing:
                if hasattr(target, name):
                    delattr(target, name)
            else:
                object.__setattr__(target, name, value)
    first_dict, second_dict = dict(t1.__dict__), dict(t2.__dict__)
    t1.__dict__.clear()
    t1.__dict__.update(second_dict)
    t2.__dict__.clear()
    t2.__dict__.update(first_dict)
