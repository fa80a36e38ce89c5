"""torch.autograd.backward / grad over the engine's gradient(): leaves, hooks, accumulation, torch's errors."""

import numpy as np

from vfw.core import autograd
from vfw.core.errors import VfwError
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch, _memory_layout
from vfw.frontends.torch._grad_fn import node_name
from vfw.frontends.torch.autograd.anomaly_mode import state as _anomaly


def _targets(tensors, grads, fn):
    tensors = [tensors] if isinstance(tensors, CoreTensor) else list(tensors)
    if grads is None:
        grads = [None] * len(tensors)
    elif isinstance(grads, CoreTensor):
        grads = [grads]
    else:
        grads = list(grads)
    if len(grads) != len(tensors):
        raise RuntimeError(f"{fn}: got {len(grads)} tensors and {len(tensors)} gradients")
    seeds = []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if g is None:
            if t.array.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if t.array.dtype.kind not in "fV" and t.array.dtype != np.dtype("bfloat16"):
                raise RuntimeError("grad can be implicitly created only for real scalar outputs")
            seeds.append(None)
        else:
            g = _dispatch.to_tensor(g)
            if g.array.shape != t.array.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                                   f"output[{i}] has a shape of {t.shape}.")
            seeds.append(g)
    return tensors, seeds


def _run(tensors, seeds, sources, retain_graph, create_graph):
    check = _check_nan if _anomaly.enabled and _anomaly.check_nan else None
    try:
        return autograd.gradient(tensors, sources, seeds, retain_graph=retain_graph, create_graph=create_graph,
                                 check=check)
    except VfwError as e:
        raise _dispatch.translate(e) from None


def _run_to_leaves(tensors, seeds, retain_graph, create_graph):
    check = _check_nan if _anomaly.enabled and _anomaly.check_nan else None
    try:
        return autograd.leaf_gradients(tensors, seeds, retain_graph=retain_graph, create_graph=create_graph,
                                       check=check)
    except VfwError as e:
        raise _dispatch.translate(e) from None


def _check_nan(node, in_grads):
    """Anomaly mode: refuse a node whose gradient function returned NaN values, as torch does."""
    for i, (g, need) in enumerate(zip(in_grads, node.needs_input_grad)):
        arr = getattr(g, "array", g)
        if need and arr is not None and (arr.dtype.kind in "fc" or arr.dtype.name == "bfloat16") \
                and np.isnan(arr).any():
            raise RuntimeError(f"Function '{node_name(node)}' returned nan values in its {i}th output.")


def _leaf_hooks(leaf, g):
    for hook in getattr(leaf, "_hooks", None) or ():
        new = hook(g)
        if new is not None:
            g = _dispatch.to_tensor(new)
    return g


def accumulate_grad(leaf, g, create_graph=False):
    """Add ``g`` into ``leaf.grad``: in place when no graph is built, as torch does."""
    trace = current_trace() if _tracing else None
    if trace is not None:  # .grad is an attribute the next eager call finds: a graph cannot replay setting it
        trace.refuse("backward() accumulates gradients into .grad, which graphs do not replay (compute them with "
                     "torch.autograd.grad in traced code)")
    g = _dispatch.as_torch(g)
    prev = getattr(leaf, "_grad", None)
    if g.is_sparse or prev is not None and prev.is_sparse:  # Embedding(sparse=True)'s gradients
        from vfw.frontends.torch import _sparse_ops
        leaf._grad = g.detach() if prev is None else _sparse_ops.accumulated(prev, g.detach())
        return
    if not create_graph and g.grad_node is not None:
        g = _dispatch.wrap(g.array)
    if prev is None:
        # Gradients may be read-only broadcasts, views of other gradients or shared between inputs:
        # .grad gets memory of its own (laid out as the leaf), which optimizers then update in place.
        arr = _memory_layout.grad_layout(g.array, leaf.array)
        leaf._grad = g if g.grad_node is not None else _dispatch.wrap(arr)
    elif create_graph or prev.grad_node is not None or not prev.array.flags.writeable:
        leaf._grad = prev + g
    else:
        np.add(prev.array, g.array, out=prev.array)
        _dispatch.bump_version(prev)


_queued_callbacks = []


def queue_callback(callback):
    """Call ``callback()`` once the running ``backward()`` has accumulated every gradient (torch's
    ``Variable._execution_engine.queue_callback``; DistributedDataParallel reduces gradients there)."""
    _queued_callbacks.append(callback)


def _run_queued_callbacks():
    while _queued_callbacks:
        _queued_callbacks.pop(0)()


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the graph leaves (or of ``inputs``)."""
    tensors, seeds = _targets(tensors, grad_tensors, "backward")
    if inputs is not None:
        sources = [inputs] if isinstance(inputs, CoreTensor) else list(inputs)
        if not sources:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        pairs = zip(sources, _run(tensors, seeds, sources, retain_graph, create_graph))
    else:
        pairs = _run_to_leaves(tensors, seeds, retain_graph, create_graph)
    given = set()
    with autograd.set_grad_enabled(create_graph):  # leaf hooks run in backward's grad mode, as torch runs them
        for leaf, g in pairs:
            if g is None:
                continue
            if not getattr(g, "is_sparse", False):  # (a sparse gradient is made for its leaf alone)
                if id(g.array) in given:  # one array handed to two leaves (e.g. both inputs of an add)
                    g = _dispatch.wrap(g.array.copy()) if g.grad_node is None else g
                given.add(id(g.array))
            g = _leaf_hooks(leaf, _dispatch.as_torch(g))
            if leaf.grad_node is None or not getattr(leaf, "_retains_grad", False):  # else its hook stored it
                accumulate_grad(leaf, g, create_graph)
                for hook in getattr(leaf, "__dict__", {}).get("_post_accumulate_grad_hooks", ()):
                    _check_post_accumulate_result(hook(leaf), leaf)  # Tensor.register_post_accumulate_grad_hook
    _run_queued_callbacks()


def _check_post_accumulate_result(result, leaf):
    """A post-accumulate-grad hook must return None or the leaf it was given (what an in-place update such as
    ``p.add_(...)`` returns): torch's TypeError for a non-tensor, RuntimeError for another tensor."""
    if result is None or result is leaf:
        return
    if isinstance(result, CoreTensor):
        raise RuntimeError("Tensor post accumulate grad hooks should return None.")
    raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` with respect to ``inputs`` (returned, not accumulated).

    Parameters
    ----------
    outputs : Tensor or sequence of Tensor
    inputs : Tensor or sequence of Tensor
    grad_outputs : Tensor or sequence of (Tensor or None), optional
        The vector of the vector-Jacobian product (ones for scalar outputs).
    retain_graph : bool, optional
        Keep the graph for another backward (defaults to ``create_graph``).
    create_graph : bool
        Record the backward so the result can be differentiated again.
    is_grads_batched : bool
        The first dimension of every ``grad_outputs`` tensor is a batch of vectors: one vector-Jacobian product
        per batch item, stacked along a new first dimension of each result.
    allow_unused : bool, optional
        Return ``None`` for inputs the outputs do not depend on instead of raising.
    materialize_grads : bool
        Return zeros instead of ``None`` for unused inputs.

    Returns
    -------
    tuple[Tensor or None, ...]
    """
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    single = isinstance(inputs, CoreTensor)
    sources = [inputs] if single else list(inputs)
    if not sources:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    for x in sources:
        if not isinstance(x, CoreTensor):
            raise TypeError(f"grad(): inputs must be Tensors, got {type(x).__name__}")
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if allow_unused is None:
        allow_unused = materialize_grads
    elif materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    tensors, seeds = _targets(outputs, grad_outputs, "grad")
    grads = _run(tensors, seeds, sources, retain_graph, create_graph)
    result = []
    for i, (x, g) in enumerate(zip(sources, grads)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                g = _dispatch.wrap(np.zeros_like(x.array))
        else:
            g = _dispatch.as_torch(g)
            if x.grad_node is None:
                g = _leaf_hooks(x, g)
            if not create_graph and g.grad_node is not None:
                g = _dispatch.wrap(g.array)
        result.append(g)
    _run_queued_callbacks()
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """``grad(..., is_grads_batched=True)``: one backward pass per batch item of ``grad_outputs`` (torch maps
    them with vmap), results stacked along a new first dimension."""
    from vfw.frontends.torch._joining import stack

    tensors = [outputs] if isinstance(outputs, CoreTensor) else list(outputs)
    batched = [grad_outputs] if grad_outputs is None or isinstance(grad_outputs, CoreTensor) else list(grad_outputs)
    if len(batched) != len(tensors):
        raise RuntimeError(f"grad: got {len(batched)} tensors and {len(tensors)} gradients")
    batched = [_dispatch.to_tensor(g) if g is not None else None for g in batched]
    for i, (t, g) in enumerate(zip(tensors, batched)):
        if g is None and t.array.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if g is None or g.array.ndim == 0:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that input is "
                             "a Tensor of dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0.")
        if g.array.shape[1:] != t.array.shape:  # (torch's message shows the shape past batch and first dim)
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of "
                f"corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
                f"{g.shape[2:]} and output[{i}] has a shape of {t.shape}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap.")
    sizes = {g.array.shape[0] for g in batched}
    if len(sizes) != 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{[g.array.shape[0] for g in batched]} for the mapped dimension")
    size = sizes.pop()
    keep = create_graph if retain_graph is None else retain_graph
    per_item = [grad(tensors, inputs, [g[b] for g in batched], retain_graph=keep or b < size - 1,
                     create_graph=create_graph, allow_unused=allow_unused or materialize_grads)
                for b in range(size)]
    sources = [inputs] if isinstance(inputs, CoreTensor) else list(inputs)
    # torch materialises an unused input's gradient unbatched: zeros shaped like the input itself
    return tuple(stack(column) if column[0] is not None else
                 _dispatch.wrap(np.zeros_like(x.array)) if materialize_grads else None
                 for x, column in zip(sources, zip(*per_item)))
