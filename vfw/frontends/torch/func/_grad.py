"""torch.func's gradient transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``,
``hessian``, built on ``torch.autograd.grad``.

Each transform differentiates with respect to fresh copies of the chosen arguments. Inside
another transform (or when an argument already requires grad) the derivatives are
computed with ``create_graph=True``, so transforms nest (``hessian = jacfwd(jacrev)``,
``grad(grad(f))``) and compose with ordinary autograd; at the outermost level the
results are plain tensors.
"""

import functools

from vfw.frontends.torch import _creation, _joining
from vfw.frontends.torch.autograd._engine import grad as _autograd_grad
from vfw.frontends.torch.autograd.grad_mode import enable_grad
from vfw.frontends.torch.func import _pytree

__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp"]

_depth = [0]  # transforms currently running (their derivatives must stay differentiable)


def _argnums_tuple(argnums, args):
    items = argnums if isinstance(argnums, tuple) else (argnums,)
    if not items or not all(isinstance(a, int) and not isinstance(a, bool) for a in items):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in items:
        if not -len(args) <= a < len(args):
            raise RuntimeError(f"Got argnum={a}, but only {len(args)} positional inputs")
    return tuple(a % len(args) for a in items)


def _differentiable(value):
    """A leaf to differentiate with respect to: an alias keeping ``value``'s history when it has one."""
    if not _pytree.is_tensor(value):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(value)}")
    return value.view_as(value) if value.requires_grad else value.detach().requires_grad_(True)


class _Inputs:
    """The chosen arguments replaced by differentiable leaves; ``flat`` lists the leaves."""

    def __init__(self, args, argnums):
        self.single = isinstance(argnums, int)
        self.argnums = _argnums_tuple(argnums, args)
        self.nested = _depth[0] > 0 or any(
            leaf.requires_grad for a in self.argnums for leaf in _pytree.leaves(args[a]) if _pytree.is_tensor(leaf))
        args = list(args)
        for a in self.argnums:
            args[a] = _pytree.map_leaves(_differentiable, args[a])
        self.args = tuple(args)
        self.flat = [leaf for a in self.argnums for leaf in _pytree.leaves(self.args[a])]

    def shaped(self, flat_values):
        """``flat_values`` (one per leaf) arranged as the chosen arguments."""
        values = iter(flat_values)
        trees = tuple(_pytree.rebuild(self.args[a], values) for a in self.argnums)
        return trees[0] if self.single else trees

    def finish(self, value):
        return value if self.nested else _pytree.map_leaves(
            lambda v: v.detach() if _pytree.is_tensor(v) else v, value)


def _call(func, args, kwargs):
    _depth[0] += 1
    try:
        with enable_grad():
            return func(*args, **kwargs)
    finally:
        _depth[0] -= 1


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}(f, ...)(*args): output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return output


def _vector_jacobian(outputs, inputs, cotangents, nested):
    """``sum_k cotangent_k . d outputs_k / d inputs`` (zeros for inputs the outputs do not depend on)."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    grads = [None] * len(inputs)
    if pairs:
        grads = _autograd_grad([o for o, _ in pairs], inputs, [c for _, c in pairs], retain_graph=True,
                               create_graph=nested, allow_unused=True)
    return [_creation.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


def grad_and_value(func, argnums=0, has_aux=False):
    """``f -> (x -> (df/dx, f(x)))`` for ``f`` returning a scalar tensor (or ``(scalar, aux)`` with ``has_aux``).

    ``argnums`` (int or tuple) picks the arguments (tensors or nested containers of them) to differentiate."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        inputs = _Inputs(args, argnums)
        output, aux = _split_aux(_call(func, inputs.args, kwargs), has_aux, "grad_and_value")
        if not _pytree.is_tensor(output):
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                               f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
        grads = inputs.shaped(_vector_jacobian([output], inputs.flat, [_creation.ones_like(output)], inputs.nested))
        value = output if aux is None else (output, aux)
        return inputs.finish(grads), inputs.finish(value)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """``f -> (x -> df/dx)`` (with ``has_aux``: ``(df/dx, aux)``); see :func:`grad_and_value`."""
    with_value = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = with_value(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(f(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` gives one vector-Jacobian product per primal (a tuple)."""
    inputs = _Inputs(primals, tuple(range(len(primals))))
    output, aux = _split_aux(_call(func, inputs.args, {}), has_aux, "vjp")
    out_leaves = _pytree.leaves(output)
    for leaf in out_leaves:
        if not _pytree.is_tensor(leaf):
            raise RuntimeError(f"vjp(f, *primals): Expected f to be a function that has non-empty output but got "
                               f"an output of type {type(leaf)}")
    nested = inputs.nested

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        vectors = _pytree.leaves(cotangents)
        if len(vectors) != len(out_leaves):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               "outputs to the function")
        for v, o in zip(vectors, out_leaves):
            if tuple(v.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {v.shape} and output[0] has a "
                                   f"shape of {o.shape}.")
        grads = _vector_jacobian(out_leaves, inputs.flat, vectors, nested or bool(create_graph))
        values = iter(grads if nested else [g.detach() for g in grads])
        return tuple(_pytree.rebuild(p, values) for p in inputs.args)

    result = (inputs.finish(output), vjp_fn)
    return result + (inputs.finish(aux),) if has_aux else result


def jacobian_vector(outputs, inputs, tangents, nested):
    """``sum_k d outputs / d inputs_k . tangents_k`` for each output (forward-mode derivatives), through two reverse
    passes: the second differentiates a vector-Jacobian product with respect to its vector.

    Also serves ``torch.autograd.forward_ad`` (the tangents of dual tensors)."""
    _depth[0] += 1
    try:
        with enable_grad():
            vectors = [_creation.zeros_like(o).requires_grad_(True) for o in outputs]
            products = _vector_jacobian(outputs, inputs, vectors, True)
            return _vector_jacobian(products, vectors, tangents, nested)
    finally:
        _depth[0] -= 1


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(f(*primals), J @ tangents)``: the Jacobian-vector product, through two reverse passes (the second
    differentiates a vector-Jacobian product with respect to its vector)."""
    for what, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, tuple):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected {what} to be a tuple. E.g. it should be valid "
                               "to call f(*primals).")
    if len(_pytree.leaves(primals)) != len(_pytree.leaves(tangents)):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure.")
    inputs = _Inputs(primals, tuple(range(len(primals))))
    output, aux = _split_aux(_call(func, inputs.args, {}), has_aux, "jvp")
    out_leaves = _pytree.leaves(output)
    forward = jacobian_vector(out_leaves, inputs.flat, _pytree.leaves(tangents), inputs.nested)
    result = (inputs.finish(output), inputs.finish(_pytree.rebuild(output, iter(forward))))
    return result + (inputs.finish(aux),) if has_aux else result


def _jacobian(api, func, argnums, has_aux):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        inputs = _Inputs(args, argnums)
        output, aux = _split_aux(_call(func, inputs.args, kwargs), has_aux, api)
        out_leaves = _pytree.leaves(output)
        for leaf in out_leaves:
            if not _pytree.is_tensor(leaf):
                raise RuntimeError(f"{api}(f, ...): Expected f to return a Tensor or a tuple of Tensors, got "
                                   f"{type(leaf)}")
        per_output = []
        for o in out_leaves:
            rows = []
            for k in range(o.numel()):
                one_hot = _creation.zeros(o.numel(), dtype=o.dtype)
                one_hot[k] = 1
                rows.append(_vector_jacobian([o], inputs.flat, [one_hot.reshape(o.shape)], inputs.nested))
            blocks = [_joining.stack([row[j] for row in rows]).reshape(tuple(o.shape) + tuple(x.shape))
                      if rows else _creation.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype)
                      for j, x in enumerate(inputs.flat)]
            per_output.append(inputs.shaped(blocks))
        jac = inputs.finish(_pytree.rebuild(output, iter(per_output)))
        return (jac, inputs.finish(aux)) if has_aux else jac

    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """``f -> (x -> df/dx)``: Jacobians of shape ``output.shape + input.shape`` (per output, per argnum)."""
    return _jacobian("jacrev", func, argnums, has_aux)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` (torch computes it in forward mode; vfw by reverse passes: same values)."""
    return _jacobian("jacfwd", func, argnums, has_aux)


def hessian(func, argnums=0):
    """``jacfwd(jacrev(func, argnums), argnums)``: second derivatives of shape ``output.shape + in.shape * 2``."""
    return jacfwd(jacrev(func, argnums), argnums)
