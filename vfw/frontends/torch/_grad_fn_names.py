"""torch's names for ``tensor.grad_fn`` where the engine op that made a result does not say it.

A result's ``grad_fn`` is named after the engine op of its node (``_grad_fn._GRAD_FN_NAMES``), but torch names
nodes after its own functions and overloads: ``t()`` and ``transpose`` are one engine Transpose yet torch shows
``TBackward0`` / ``TransposeBackward0``; ``sum(dim)`` is ``SumBackward1`` while ``sum()`` is ``SumBackward0``;
``mse_loss`` is one ``MseLossBackward0`` where vfw records a subtraction, a square and a mean.  Functions decorated
with :func:`names_grad_fn` record torch's name for the nodes they create; printed tensors (``grad_fn=<...>``) and
``type(t.grad_fn).__name__`` then read as torch's.
"""

import functools
import math
import weakref

from vfw.core.tensor import Tensor


def recorded_name(node):
    """str or None: the name a decorated function gave ``node``."""
    return getattr(node, "display_name", None)


def names_grad_fn(name):
    """Decorator: the nodes a function's results come from are named ``name``.

    Parameters
    ----------
    name : str or callable
        torch's node name (``"TBackward0"``), or ``name(*args, **kwargs)`` returning it (or None to keep the
        engine op's name) for functions whose overloads torch names differently.  Only called when a result
        has a node the call created (not one of its tensor arguments' nodes, as ``contiguous()`` returns).

    Returns
    -------
    callable
        The decorator.
    """
    def decorate(function):
        @functools.wraps(function)
        def named(*args, **kwargs):
            # An in-place op rebinds its input (the first argument) to the node it makes: note the input's node.
            first = getattr(args[0], "grad_node", None) if args else None
            first_slot = getattr(args[0], "grad_slot", 0) if first is not None else 0
            result = function(*args, **kwargs)
            nodes = _new_nodes(result, first, args)
            if nodes:
                found = name if isinstance(name, str) else name(*args, **kwargs)
                if found is not None:
                    for node in nodes:
                        node.display_name = found
                    _note_outer_edges(nodes, args, kwargs, first, first_slot)
            return result
        return named
    return decorate


def _new_nodes(result, first, args):
    if isinstance(result, Tensor):
        node = result.grad_node
        if node is None or node is first:
            return ()
        if node.seq > _newest_seq(args):  # recorded by this call (the usual case, without building a set)
            return (node,)
        outputs = (result,)
    elif isinstance(result, (tuple, list)):
        outputs = result
    else:
        return ()
    taken = {id(first)} | {id(a.grad_node) for a in args[1:] if isinstance(a, Tensor) and a.grad_node is not None}
    return [t.grad_node for t in outputs
            if isinstance(t, Tensor) and t.grad_node is not None and id(t.grad_node) not in taken]


def outer_edges(node):
    """tuple or None: the edges torch shows for a node that stands for several engine nodes (a composite such as
    ``mse_loss``), one per tensor argument of the call that made it, in the form of ``Node.edges``."""
    return _OUTER_EDGES.get(node)


_OUTER_EDGES = weakref.WeakKeyDictionary()  # a composite's named node -> its call's tensor arguments' edges


def _note_outer_edges(nodes, args, kwargs, first, first_slot):
    """Where a named node's inputs come from other nodes of the same call, note the call's tensor arguments'
    edges instead (what torch's single node for the function has); ``first``/``first_slot`` are the first
    argument's node and slot before the call (an in-place op has rebound it since)."""
    # torch lists the differentiable (floating or complex) tensor arguments only: not indices, masks or targets.
    tensors = [a for a in (*args, *kwargs.values())
               if isinstance(a, Tensor) and (a.dtype.is_floating_point or a.dtype.is_complex)]
    sources = [first if a is args[0] else a.grad_node for a in tensors]
    newest = max((n.seq for n in sources if n is not None), default=0)
    composite = [node for node in nodes
                 if any(e is not None and e[0] is not None and e[0].seq > newest for e in node.edges)]
    if not composite:
        return
    edges = tuple(None if not a.requires_grad else (None, a) if source is None else
                  (source, first_slot if a is args[0] else a.grad_slot) for a, source in zip(tensors, sources))
    for node in composite:
        _OUTER_EDGES[node] = edges


def _newest_seq(args):
    """The largest creation number of the nodes of the tensor arguments (0 if none has one)."""
    newest = 0
    for a in args:
        if isinstance(a, Tensor) and a.grad_node is not None and a.grad_node.seq > newest:
            newest = a.grad_node.seq
    return newest


def dim_overload(without_dim, with_dim, dim_keywords=("dim", "axis")):
    """A name chooser for reductions: torch's overload with ``dim`` (given positionally or by keyword, even as
    None) has another node name than the one without."""
    def choose(*args, **kwargs):
        return with_dim if len(args) > 1 or kwargs and any(k in kwargs for k in dim_keywords) else without_dim
    return choose


def getitem_name(tensor, key):
    """torch's node name for ``tensor[key]``: the last indexing step it applies.

    Advanced indices (tensors, lists, booleans) make an ``IndexBackward0``; otherwise steps go left to right, an
    integer selecting (``SelectBackward0``), a slice slicing (``SliceBackward0``; in a tuple a slice spanning its
    whole dimension is skipped), ``None`` unsqueezing; a tuple of skipped steps gives an ``AliasBackward0``.
    """
    if not isinstance(key, tuple):
        return _step_name(key) or "AliasBackward0"
    if any(_step_name(k) == "IndexBackward0" for k in key):
        return "IndexBackward0"
    name, dim, shape = "AliasBackward0", 0, tensor.shape
    after_ellipsis = len(shape) - sum(1 for k in key if k is not None and k is not Ellipsis)
    for k in key:
        if k is Ellipsis:
            dim += after_ellipsis
            continue
        if isinstance(k, slice) and dim < len(shape) and k.indices(shape[dim]) == (0, shape[dim], 1):
            dim += 1
            continue
        name = _step_name(k) or name
        dim += 0 if k is None else 1
    return name


def _step_name(k):
    if k is None:
        return "UnsqueezeBackward0"
    if k is Ellipsis:
        return None
    if isinstance(k, slice):
        return "SliceBackward0"
    if isinstance(k, bool) or not hasattr(k, "__index__") or isinstance(k, Tensor) and k.ndim > 0:
        return "IndexBackward0"
    return "SelectBackward0"


_MISSING = object()


def _argument(args, kwargs, position, keyword):
    """The argument at ``position`` or named ``keyword``, or ``_MISSING``."""
    if len(args) > position:
        return args[position]
    return kwargs.get(keyword, _MISSING)



def squeeze_name(*args, **kwargs):
    """``squeeze()``, ``squeeze(dim)`` and ``squeeze(dims)`` are torch's overloads 0, 1 and 2."""
    dim = _argument(args, kwargs, 1, "dim")
    if dim is _MISSING:
        return "SqueezeBackward0"
    return "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"


def extreme_name(prefix):
    """A chooser for ``max`` / ``min``: the elementwise form (a tensor ``other``) is ``Maximum``/``Minimum``, the
    form along a dim overload 0, the full reduction overload 1."""
    def choose(*args, **kwargs):
        dim = _argument(args, kwargs, 1, "dim")
        if isinstance(dim, Tensor) or kwargs.get("other") is not None:
            return f"{prefix}imumBackward0"
        given = dim is not _MISSING or "axis" in kwargs
        return f"{prefix}Backward0" if given else f"{prefix}Backward1"
    return choose


def split_name(*args, **kwargs):
    """``split(int)`` is ``SplitBackward0``, ``split(sizes)`` ``SplitWithSizesBackward0``."""
    sizes = _argument(args, kwargs, 1, "split_size_or_sections")
    return "SplitWithSizesBackward0" if isinstance(sizes, (tuple, list)) else "SplitBackward0"


def masked_fill_name(*args, **kwargs):
    """A tensor fill value is torch's overload 1, a number overload 0."""
    return "MaskedFillBackward1" if isinstance(_argument(args, kwargs, 2, "value"), Tensor) else "MaskedFillBackward0"


def clamp_name(*args, **kwargs):
    """Tensor bounds are torch's overload 0, number bounds overload 1."""
    bounds = (_argument(args, kwargs, 1, "min"), _argument(args, kwargs, 2, "max"))
    return "ClampBackward0" if any(isinstance(b, Tensor) for b in bounds) else "ClampBackward1"


def linear_name(*args, **kwargs):
    """``linear`` is an ``addmm``/``mm`` of a matrix input; other inputs are reshaped around it (a bias-free
    product of a batch ends in an unsafe view, a 1-d input in a squeeze), a vector weight makes an ``mv``."""
    input, weight = _argument(args, kwargs, 0, "input"), _argument(args, kwargs, 1, "weight")
    bias = _argument(args, kwargs, 2, "bias")
    has_bias = bias is not _MISSING and bias is not None
    if weight.ndim == 1:
        return {2: "MvBackward0"}.get(input.ndim, "UnsafeViewBackward0" if input.ndim > 2 and not has_bias else None)
    if input.ndim == 2:
        return "AddmmBackward0" if has_bias else "MmBackward0"
    if input.ndim == 1:
        return "ViewBackward0" if has_bias else "SqueezeBackward4"
    return "ViewBackward0" if has_bias else "UnsafeViewBackward0"


_PAD_MODES = {"reflect": "ReflectionPad", "replicate": "ReplicationPad"}


def pad_name(*args, **kwargs):
    """``F.pad``: constant padding is ``ConstantPadNd``, reflect/replicate padding names the padded dims."""
    mode = _argument(args, kwargs, 2, "mode")
    if mode is _MISSING or mode == "constant":
        return "ConstantPadNdBackward0"
    if mode in _PAD_MODES:
        return f"{_PAD_MODES[mode]}{len(_argument(args, kwargs, 1, 'pad')) // 2}DBackward0"
    return None


_UPSAMPLE_MODES = {"nearest": "UpsampleNearest", "nearest-exact": "UpsampleNearestExact", "linear": "UpsampleLinear",
                   "bilinear": "UpsampleBilinear", "bicubic": "UpsampleBicubic", "trilinear": "UpsampleTrilinear",
                   "area": "AdaptiveAvgPool"}


def _pooled_name(nd, sizes):
    """torch's node for adaptive average pooling of ``nd`` spatial dims to output ``sizes`` (ints): 1-d pooling
    squeezes the 2-d pooling of an unsqueezed input, an all-ones output is a mean."""
    if nd == 1:
        return "SqueezeBackward1"
    return "MeanBackward1" if all(s == 1 for s in sizes) else f"AdaptiveAvgPool{nd}DBackward0"


def adaptive_avg_pool_name(nd):
    """The namer of ``F.adaptive_avg_pool{nd}d`` (see :func:`_pooled_name`)."""
    def name(*args, **kwargs):
        input, size = _argument(args, kwargs, 0, "input"), _argument(args, kwargs, 1, "output_size")
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * nd
        return _pooled_name(nd, [input.shape[input.ndim - nd + i] if s is None else s for i, s in enumerate(sizes)])
    return name


def interpolate_name(*args, **kwargs):
    """``F.interpolate``: torch's upsampling kernel for the mode and the number of spatial dims."""
    mode = _argument(args, kwargs, 3, "mode")
    mode = "nearest" if mode is _MISSING else mode
    if mode not in _UPSAMPLE_MODES:
        return None
    if mode == "area":
        size, scale = _argument(args, kwargs, 1, "size"), _argument(args, kwargs, 2, "scale_factor")
        nd = args[0].ndim - 2
        if size is _MISSING or size is None:
            scales = scale if isinstance(scale, (list, tuple)) else [scale] * nd
            size = [math.floor(n * float(f)) for n, f in zip(args[0].shape[2:], scales)]
        return _pooled_name(nd, size if isinstance(size, (list, tuple)) else [size] * nd)
    antialias = _argument(args, kwargs, 6, "antialias")
    suffix = "Aa" if antialias is not _MISSING and antialias else ""
    return f"{_UPSAMPLE_MODES[mode]}{args[0].ndim - 2}D{suffix}Backward0"


def matmul_name(*args, **kwargs):
    """``matmul`` is ``dot``/``mv``/``mm`` for vectors and matrices; torch reshapes batched operands around a
    ``bmm`` (ending in an unsafe view, or a clone for a matrix times a batch) and a vector times a matrix
    around an ``mm`` (ending in a squeeze)."""
    ranks = (_argument(args, kwargs, 0, "input").ndim, _argument(args, kwargs, 1, "other").ndim)  # (sparse too)
    if max(ranks) <= 2:
        return _VECTOR_PRODUCT_NAMES.get(ranks, "MmBackward0")
    return "CloneBackward0" if ranks[0] == 2 else "UnsafeViewBackward0"


_VECTOR_PRODUCT_NAMES = {(1, 1): "DotBackward0", (1, 2): "SqueezeBackward4", (2, 1): "MvBackward0"}
