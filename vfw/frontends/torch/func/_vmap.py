"""``torch.vmap`` / ``torch.func.vmap``: a function mapped over a dimension of its inputs.

vfw runs the function once per sample (the mapped dimension selected away) and stacks
the results along ``out_dims``: the values and gradients are those of torch's batched
rules, and nested ``vmap`` and composition with the gradient transforms follow.
"""

import functools

from vfw.frontends.torch import _joining
from vfw.frontends.torch import random as _random
from vfw.frontends.torch.func import _pytree

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")


def _name(func):
    return getattr(func, "__name__", repr(func))


def _dims_for(inputs, in_dims, where):
    """One in_dim per leaf of ``inputs``: an int or None covers a whole subtree, a tuple/list/dict matches its
    structure."""
    if in_dims is None or isinstance(in_dims, int):
        return [in_dims] * len(_pytree.leaves(inputs))
    same_kind = (isinstance(in_dims, (tuple, list)) and isinstance(inputs, (tuple, list))
                 and len(in_dims) == len(inputs)) or \
        (isinstance(in_dims, dict) and isinstance(inputs, dict) and in_dims.keys() == inputs.keys())
    if not same_kind:
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
                         f"{_structure(in_dims)} but inputs has structure {_structure(inputs)}.")
    items = in_dims.values() if isinstance(in_dims, dict) else in_dims
    values = inputs.values() if isinstance(inputs, dict) else inputs
    return [dim for d, v in zip(items, values) for dim in _dims_for(v, d, where)]


def _structure(tree):
    if isinstance(tree, (tuple, list)):
        return f"{type(tree).__name__}({', '.join(_structure(t) for t in tree)})"
    if isinstance(tree, dict):
        return "dict(" + ", ".join(f"{k}: {_structure(v)}" for k, v in tree.items()) + ")"
    return "*"


def _batched_leaves(args, in_dims, where):
    """``[(leaf, normalized dim or None)]`` for the leaves of ``args`` and the common batch size."""
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")
    if isinstance(in_dims, int):
        in_dims = (in_dims,) * len(args)
    pairs, sizes = [], []
    for leaf, dim in zip(_pytree.leaves(args), _dims_for(args, in_dims, where)):
        if dim is None:
            pairs.append((leaf, None))
            continue
        if not isinstance(dim, int):
            raise ValueError(f"{where}: in_dims must be int or None for every input, got: {dim!r}.")
        if not _pytree.is_tensor(leaf):
            raise ValueError(f"{where}: Got in_dim={dim} for an input but the input is of type {type(leaf)}. We "
                             "cannot vmap over non-Tensor arguments, please use None as the respective in_dim")
        ndim = leaf.dim()
        if not -ndim <= dim < ndim:
            raise ValueError(f"{where}: Got in_dim={dim} for some input, but that input is a Tensor of "
                             f"dimensionality {ndim} so expected in_dim to satisfy -{ndim} <= in_dim < {ndim}.")
        dim %= ndim
        pairs.append((leaf, dim))
        sizes.append(leaf.shape[dim])
    if not sizes:
        raise ValueError(f"{where}: at least one input must be a Tensor with an in_dim that is not None (got "
                         "in_dim=None for every input); there is nothing to vmap over.")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return pairs, sizes[0]


def _stack_outputs(func, outputs, out_dims):
    """One output tree from the per-sample ``outputs`` (stacked along ``out_dims``)."""
    name = _name(func)
    first = outputs[0]
    flat = [_pytree.leaves(out) for out in outputs]
    dims = _dims_for(first, out_dims, f"vmap({name}, ...)") if not isinstance(out_dims, int) else \
        [out_dims] * len(flat[0])
    stacked = []
    for k, dim in enumerate(dims):
        column = [sample[k] for sample in flat]
        if dim is None:
            if any(not _pytree.is_tensor(v) or not v.equal(column[0]) for v in column if v is not column[0]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            stacked.append(column[0])
            continue
        if not all(_pytree.is_tensor(v) for v in column):
            bad = next(v for v in column if not _pytree.is_tensor(v))
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(bad)}. Did you "
                             "mean to set out_dims= to None for output?")
        stacked.append(_joining.stack(column, dim))
    return _pytree.rebuild(first, iter(stacked))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map ``func`` over dimension ``in_dims`` of its inputs; results are stacked along ``out_dims``.

    Parameters
    ----------
    func : callable
        Takes (nested tuples/lists/dicts of) tensors, returns tensors or nested containers of them.
    in_dims : int, None or nested tuple
        The mapped dimension of each input (None: the input is shared by every sample).
    out_dims : int or tuple
        Where the mapped dimension goes in each output (None: the output is the same for every sample).
    randomness : {'error', 'different', 'same'}
        'error' refuses draws from the default generator inside ``func``; 'same' gives every sample the same draws.
    chunk_size : int, optional
        Accepted for torch's signature (vfw maps sample by sample).

    Returns
    -------
    callable
    """
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def vmapped(*args, **kwargs):
        if randomness not in _RANDOMNESS:
            raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                               f"{randomness}")
        name = _name(func)
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                             "trying to vmap over a function with no inputs. The latter is unsupported.")
        pairs, batch = _batched_leaves(args, in_dims, f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)")
        start_state = _random.get_rng_state() if randomness in ("error", "same") else None
        outputs = []
        for i in range(batch):
            if randomness == "same":
                _random.set_rng_state(start_state)
            sample = iter([leaf if dim is None else leaf.select(dim, i) for leaf, dim in pairs])
            outputs.append(func(*_pytree.rebuild(args, sample), **kwargs))
            if randomness == "error" and i == 0 and not _random.get_rng_state().equal(start_state):
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        return _stack_outputs(func, outputs, out_dims)

    return vmapped
