"""``torch.nn.parallel.scatter`` / ``scatter_kwargs`` / ``gather`` on one CPU device.

Scattering splits every tensor of a nested structure into ``len(target_gpus)`` chunks along ``dim`` (what each
replica would get) and copies other objects; gathering concatenates the replicas' tensors along ``dim``.  Device
ids are accepted whatever they are: vfw has one device.
"""

from vfw.frontends.torch._tensor import Tensor

__all__ = ["gather", "scatter", "scatter_kwargs"]


def scatter(inputs, target_gpus, dim=0):
    """Split ``inputs`` into one piece per target device.

    Parameters
    ----------
    inputs : Tensor or (nested) tuple / list / dict of them
        Tensors are chunked along ``dim`` (``Tensor.chunk``); other objects are repeated.
    target_gpus : sequence
        One entry per replica.
    dim : int

    Returns
    -------
    list
        One element per piece (fewer than ``len(target_gpus)`` when a tensor has fewer rows, as ``chunk``).
    """
    count = len(target_gpus)

    def scatter_map(obj):
        if isinstance(obj, Tensor):
            return list(obj.chunk(count, dim))
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a named tuple keeps its type
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
        if isinstance(obj, tuple) and obj:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and obj:
            return [list(pieces) for pieces in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and obj:
            return [type(obj)(pieces) for pieces in zip(*map(scatter_map, obj.items()))]
        return [obj] * count

    return scatter_map(inputs)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """Scatter positional ``inputs`` and ``kwargs`` alike, padding the shorter list with ``()`` / ``{}``.

    Returns
    -------
    tuple[tuple, tuple]
        Per replica, its positional arguments and its keyword arguments.
    """
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    scattered_inputs += [()] * (len(scattered_kwargs) - len(scattered_inputs))
    scattered_kwargs += [{}] * (len(scattered_inputs) - len(scattered_kwargs))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def gather(outputs, target_device, dim=0):
    """Join the replicas' ``outputs``: tensors concatenated along ``dim``, structures element by element.

    Parameters
    ----------
    outputs : list
        One (nested) output per replica.
    target_device : int or str or device
        Accepted (one device).
    dim : int

    Returns
    -------
    The gathered structure (``None`` entries stay ``None``).
    """
    from vfw.frontends.torch._joining import cat

    def gather_map(pieces):
        first = pieces[0]
        if isinstance(first, Tensor):
            return cat(pieces, dim)
        if first is None:
            return None
        if isinstance(first, dict):
            if not all(len(first) == len(piece) for piece in pieces):
                raise ValueError("All dicts must have the same number of keys")
            return type(first)((key, gather_map([piece[key] for piece in pieces])) for key in first)
        if isinstance(first, tuple) and hasattr(first, "_fields"):
            return type(first)(*map(gather_map, zip(*pieces)))
        return type(first)(map(gather_map, zip(*pieces)))

    return gather_map(outputs)
