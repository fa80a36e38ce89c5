"""``torch.func.functional_call``: call a module with some parameters and buffers swapped for given tensors."""

import contextlib

__all__ = ["functional_call"]


def _owner(module, name):
    """``(submodule, attribute)`` that the dotted ``name`` refers to."""
    *path, leaf = name.split(".")
    for part in path:
        module = module._modules[part]
    return module, leaf


@contextlib.contextmanager
def _swapped(module, tensors, tie_weights, strict):
    """Inside, the named parameters/buffers of ``module`` are the given tensors (tied names follow with
    ``tie_weights``); afterwards the originals are back."""
    known = dict(module.named_parameters(remove_duplicate=False))
    known.update(module.named_buffers(remove_duplicate=False))
    if strict:
        missing = [name for name in known if name not in tensors]
        unexpected = [name for name in tensors if name not in known]
        if missing or unexpected:
            lines = []
            if unexpected:
                lines.append("Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                lines.append("Missing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(lines))
    replacements = dict(tensors)
    if tie_weights:
        groups = {}  # the names of one tensor tied under several names, in the module's order
        for name, original in known.items():
            groups.setdefault(id(original), []).append(name)
        for names in groups.values():
            given = [name for name in names if name in tensors]
            if len({id(tensors[name]) for name in given}) > 1:  # tied names may only repeat the same tensor
                raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                                 "Consider using tie_weights=False")
        by_identity = {id(known[name]): value for name, value in tensors.items() if name in known}
        for name, original in known.items():
            if name not in replacements and id(original) in by_identity:
                replacements[name] = by_identity[id(original)]
    saved = []
    try:
        for name, value in replacements.items():
            owner, attribute = _owner(module, name)
            for table in (owner._parameters, owner._buffers):
                if attribute in table:
                    saved.append((table, attribute, table[attribute]))
                    table[attribute] = value
                    break
            else:
                saved.append((owner.__dict__, attribute, owner.__dict__.get(attribute, saved)))
                owner.__dict__[attribute] = value
        yield
    finally:
        for table, attribute, original in reversed(saved):
            if original is saved:
                del table[attribute]
            else:
                table[attribute] = original


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the parameters and buffers named in ``parameter_and_buffer_dicts``
    (one dict or a tuple of dicts, dotted names as in ``named_parameters``) replaced for the call.

    Returns
    -------
    whatever ``module`` returns (gradients flow to the given tensors, not to the module's own).
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        tensors = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        tensors = {}
        for mapping in parameter_and_buffer_dicts:
            repeated = [k for k in mapping if k in tensors]
            if repeated:
                raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                                 "ambiguous")
            tensors.update(mapping)
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _swapped(module, tensors, tie_weights, strict):
        return module(*args, **(kwargs or {}))
