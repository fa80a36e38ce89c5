"""torch.autograd.functional: Jacobians, Hessians and vector products of whole functions.

Everything is built on ``torch.autograd.grad``: a Jacobian is one vector-Jacobian
product per output element (one-hot vectors), a Jacobian-vector product uses the
double-backward trick (differentiate a VJP with respect to its vector), and
Hessians are Jacobians of Jacobians computed with ``create_graph=True``.
"""

import numpy as np

from vfw.core import autograd
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch._joining import stack
from vfw.frontends.torch.autograd._engine import grad as _autograd_grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(x, what, fn_name):
    """``(was_tuple, tuple_of_tensors)``; torch's TypeError for anything but a Tensor or a tuple of Tensors."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, item in enumerate(items):
        if not isinstance(item, CoreTensor):
            where = f"the value at index {i} has" if is_tuple else f"the given {what} has"
            raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"{where} type {type(item)}.")
    return is_tuple, items


def _unpack(result, was_tuple):
    """Undo ``_as_tuple``: one bool for a flat tuple, two (outer, inner) for a nested one."""
    if isinstance(was_tuple, tuple):
        if not was_tuple[1]:
            result = tuple(r[0] for r in result)
        return result if was_tuple[0] else result[0]
    return result if was_tuple else result[0]


def _prepare(tensors, create_graph, need_graph):
    # Fresh leaves, so the function's graph starts at the inputs; with create_graph the inputs' own history is
    # kept (through a view) so the results stay differentiable with respect to them.
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in tensors)


def _finish(tensors, create_graph):
    if create_graph:
        return tensors
    return tuple(t.detach() if isinstance(t, CoreTensor) else t for t in tensors)


def _check_vector(v, refs, was_tuple):
    if len(v) != len(refs):
        if was_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(refs)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for k, (vi, r) in enumerate(zip(v, refs)):
        if vi.shape != r.shape:
            where = f"Entry {k} in " if was_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {r.shape} but got {vi.shape}.")


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None or not t.requires_grad:
            if kind == "outputs":
                raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The "
                                   "outputs must be computed in a differentiable manner from the input when running "
                                   "in strict mode.")
            raise RuntimeError(f"The {kind} of the user-provided function with respect to input {i} is independent "
                               "of the input. This is not allowed in strict mode.")


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that can carry a gradient; ``None`` for unused inputs."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return _autograd_grad([o for o, _ in kept], inputs, [g for _, g in kept], retain_graph=retain_graph,
                          create_graph=create_graph, allow_unused=True)


_STRICT_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
}


def _fill_zeros(grads, refs, strict, create_graph, stage):
    out = []
    for i, (g, r) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_MESSAGES[stage].format(i=i))
            g = _dispatch.wrap(np.zeros_like(r.array))
        elif strict and create_graph and not g.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[stage].format(i=i) + " (with create_graph=True)")
        out.append(g)
    return tuple(out)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Output of ``func(*inputs)`` and the vector-Jacobian product ``v^T J``.

    Parameters
    ----------
    func : callable
        Takes the input tensors, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple of Tensor
    v : Tensor or tuple of Tensor, optional
        Same shapes as the outputs; may be omitted for a single one-element output.
    create_graph : bool
        Make the results differentiable.
    strict : bool
        Raise when an output is independent of an input instead of returning zeros.

    Returns
    -------
    tuple
        ``(func_output, vjp)``, structured like the outputs and the inputs.
    """
    with autograd.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, True)
        outputs = func(*inputs)
        out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _prepare(v, create_graph, False)
            _check_vector(v, outputs, out_tuple)
        elif len(outputs) != 1 or outputs[0].array.size != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor "
                               "with a single element.")
        grads = _grad(outputs, inputs, v, create_graph)
        result = _fill_zeros(grads, inputs, strict, create_graph, "back")
    return _unpack(_finish(outputs, create_graph), out_tuple), _unpack(_finish(result, create_graph), in_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Output of ``func(*inputs)`` and the Jacobian-vector product ``J v`` (double-backward trick).

    Parameters
    ----------
    func : callable
    inputs : Tensor or tuple of Tensor
    v : Tensor or tuple of Tensor, optional
        Same shapes as the inputs; may be omitted for a single one-element input.
    create_graph, strict : bool
        As in ``vjp``.

    Returns
    -------
    tuple
        ``(func_output, jvp)``, both structured like the outputs.
    """
    with autograd.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _prepare(v, create_graph, False)
            _check_vector(v, inputs, in_tuple)
        elif len(inputs) != 1 or inputs[0].array.size != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        outputs = func(*inputs)
        out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # u -> J^T u is linear in the dummy u; its derivative with respect to u, applied to v, is J v.
        dummies = tuple(_dispatch.wrap(np.zeros_like(o.array)).requires_grad_(True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
        grads = _grad(grad_inputs, dummies, v, create_graph)
        result = _fill_zeros(grads, outputs, strict, create_graph, "back_trick")
    return _unpack(_finish(outputs, create_graph), out_tuple), _unpack(_finish(result, create_graph), out_tuple)


def _jacobian_rows(out, inputs, i, strict, create_graph):
    """For one output: per input the list of gradients of each output element."""
    n = out.array.size
    per_input = [[] for _ in inputs]
    if out.requires_grad:
        onehot = np.zeros(n, out.array.dtype)
        for j in range(n):
            onehot[:] = 0
            onehot[j] = 1
            seed = _dispatch.wrap(onehot.reshape(out.array.shape).copy())
            grads = _grad((out,), inputs, (seed,), create_graph, retain_graph=True)
            for k, g in enumerate(grads):
                per_input[k].append(g)
    result = []
    for k, x in enumerate(inputs):
        rows = per_input[k]
        if strict and (not rows or any(g is None for g in rows)):
            raise RuntimeError(f"Output {i} of the user-provided function is independent of input {k}. This is not "
                               "allowed in strict mode.")
        if strict and create_graph and any(not g.requires_grad for g in rows):
            raise RuntimeError(f"The jacobian of the user-provided function is independent of input {k}. This is "
                               "not allowed in strict mode when create_graph=True.")
        shape = tuple(out.array.shape) + tuple(x.array.shape)
        if not rows or all(g is None for g in rows):
            result.append(_dispatch.wrap(np.zeros(shape, x.array.dtype)))
            continue
        rows = [_dispatch.wrap(np.zeros_like(x.array)) if g is None else g for g in rows]
        result.append(stack(rows).reshape(shape))
    return tuple(result)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """Jacobian of ``func`` at ``inputs``: entry ``[i][j]`` has shape ``outputs[i].shape + inputs[j].shape``.

    Parameters
    ----------
    func : callable
        Takes the input tensors, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple of Tensor
    create_graph : bool
        Make the Jacobian differentiable.
    strict : bool
        Raise when an output is independent of an input instead of returning zeros.
    vectorize : bool
        Accepted for compatibility; vfw computes the same values either way.
    strategy : {"reverse-mode", "forward-mode"}
        Forward mode (``vectorize=True`` only, as torch) gives the same Jacobian, nested in lists where
        ``inputs`` is a tuple.

    Returns
    -------
    Tensor, tuple of Tensor or tuple of tuples of Tensor
        Nested like (outputs, inputs), a level dropped where that was a single Tensor.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        return _forward_mode_jacobian(func, inputs, create_graph, strict, vectorize)
    with autograd.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, True)
        outputs = func(*inputs)
        out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        result = tuple(_finish(_jacobian_rows(out, inputs, i, strict, create_graph), create_graph)
                       for i, out in enumerate(outputs))
    return _unpack(result, (out_tuple, in_tuple))


def _forward_mode_jacobian(func, inputs, create_graph, strict, vectorize):
    """``jacobian(strategy="forward-mode")``: torch's argument checks, then the same Jacobian (vfw builds it row
    by row in reverse mode), nested in lists where the inputs were a tuple, as torch's forward-mode result is."""
    if create_graph:
        raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-'
                                  'mode"` are not supported together (yet). Please either set `create_graph=False` '
                                  'or `strategy="reverse-mode"`.')
    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
                           'supported together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.')
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")
    result = jacobian(func, inputs, vectorize=True)
    if not isinstance(inputs, tuple):
        return result
    if isinstance(result, tuple) and result and isinstance(result[0], tuple):  # (outputs, inputs) nesting
        return [list(row) for row in result]
    return list(result)


def _single_scalar_output(func, inputs, fn_name):
    with autograd.no_grad():
        out = func(*inputs)
    out_tuple, out = _as_tuple(out, "outputs of the user-provided function", fn_name)
    if out_tuple and len(out) != 1:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if out[0].array.size != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    return out


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """Hessian of a scalar function: entry ``[i][j]`` has shape ``inputs[i].shape + inputs[j].shape``.

    Parameters
    ----------
    func : callable
        Returns a Tensor with a single element.
    inputs : Tensor or tuple of Tensor
    create_graph, strict, vectorize : bool
        As in ``jacobian``.
    outer_jacobian_strategy : {"reverse-mode", "forward-mode"}
        Only reverse mode is available in vfw.

    Returns
    -------
    Tensor or tuple of tuples of Tensor
    """
    in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    _single_scalar_output(func, inputs, "hessian")

    def gradient_of(*xs):
        jac = jacobian(func, xs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(gradient_of, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                      strategy=outer_jacobian_strategy)
    return _unpack(result, (in_tuple, in_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Output of a scalar ``func`` and the vector-Hessian product ``v^T H``.

    Parameters
    ----------
    func : callable
        Returns a Tensor with a single element.
    inputs : Tensor or tuple of Tensor
    v : Tensor or tuple of Tensor, optional
        Same shapes as the inputs; may be omitted for a single one-element input.
    create_graph, strict : bool
        As in ``vjp``.

    Returns
    -------
    tuple
        ``(func_output, vhp)``, the product structured like the inputs.
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Output of a scalar ``func`` and the Hessian-vector product ``H v``.

    The Hessian of a twice-differentiable function is symmetric, so this equals ``vhp``
    (computed the same way; torch uses the double-backward trick, same values).

    Returns
    -------
    tuple
        ``(func_output, hvp)``, the product structured like the inputs.
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(func, inputs, v, create_graph, strict, fn_name):
    with autograd.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
        inputs = _prepare(inputs, create_graph, True)
        if v is not None:
            _, v = _as_tuple(v, "v", fn_name)
            v = _prepare(v, create_graph, False)
            _check_vector(v, inputs, in_tuple)
        elif len(inputs) != 1 or inputs[0].array.size != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        outputs = func(*inputs)
        out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
        if out_tuple and len(outputs) != 1:
            raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
        if outputs[0].array.size != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single "
                               "element")
        _check_requires_grad(outputs, "outputs", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        grads = _grad(jac, inputs, v, create_graph)
        result = _fill_zeros(grads, inputs, strict, create_graph, "double_back")
    return _finish(outputs, create_graph)[0], _unpack(_finish(result, create_graph), in_tuple)
