"""torch.autograd.gradcheck / gradgradcheck: autograd gradients against central finite differences.

Both Jacobians are laid out as torch prints them: one row per input element, one
column per output element. Inputs are copied (the caller's tensors are never
perturbed); only inputs that require grad are checked.
"""

import numpy as np

from vfw.core import autograd
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch._dtype import float64
from vfw.frontends.torch.autograd._engine import grad as _autograd_grad
from vfw.frontends.torch.testing._creation import make_tensor

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck``/``gradgradcheck`` when the gradients do not match."""


def _as_tuple(x):
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _outputs(func, inputs):
    return _as_tuple(func(*inputs))


def _numerical(func, inputs, i, out_slots, eps):
    """d outputs / d inputs[i] by central differences: one (numel_in, numel_out) array per output slot."""
    x = inputs[i].array
    flat = x.reshape(-1)  # a view: the working copies are contiguous
    cols = [[] for _ in out_slots]
    def values():  # copies: an output may share memory with the perturbed input
        outs = _outputs(func, inputs)
        return [np.array(outs[slot].array, np.float64) for slot in out_slots]

    for j in range(flat.size):
        orig = flat[j]
        flat[j] = orig + eps
        plus = values()
        flat[j] = orig - eps
        minus = values()
        flat[j] = orig
        for k in range(len(out_slots)):
            cols[k].append(((plus[k] - minus[k]) / (2 * eps)).reshape(-1))
    return [np.array(c, np.float64).reshape(flat.size, -1) for c in cols]


def _analytical(outputs, diff_inputs, slot_outs):
    """d outputs / d inputs by one vector-Jacobian product per output element."""
    result = []
    for out in slot_outs:
        n = out.array.size
        per_input = [np.zeros((x.array.size, n), np.float64) for x in diff_inputs]
        for j in range(n):
            onehot = np.zeros(n, out.array.dtype)
            onehot[j] = 1
            grads = _autograd_grad([out], diff_inputs, [_dispatch.wrap(onehot.reshape(out.array.shape))],
                                   retain_graph=True, allow_unused=True)
            for k, g in enumerate(grads):
                if g is not None:
                    per_input[k][:, j] = g.array.reshape(-1)
        result.append(per_input)
    return result


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _show(arr, dtype):
    return repr(_dispatch.wrap(arr.astype(dtype)))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """Check autograd's gradients of ``func`` against central finite differences.

    Parameters
    ----------
    func : callable
        Takes the inputs, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple
        Tensors that require grad are checked (use float64 for meaningful results).
    eps : float
        Finite-difference step.
    atol, rtol : float
        The Jacobians must satisfy ``|analytical - numerical| <= atol + rtol * |numerical|``.
    raise_exception : bool
        Raise ``GradcheckError`` on a mismatch (else return False).

    Other torch keyword arguments are accepted and ignored.

    Returns
    -------
    bool
        True when all Jacobians match.
    """
    inputs = _as_tuple(inputs)
    if not any(isinstance(x, CoreTensor) and x.requires_grad for x in inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")
    work = []
    for i, x in enumerate(inputs):
        if isinstance(x, CoreTensor) and x.requires_grad:
            if x.array.dtype != np.float64 and x.array.dtype.kind != "c":
                warn_for_user(f"Input #{i} requires gradient and is not a double precision floating point or "
                              "complex. This check will likely fail if all the inputs are not of double precision "
                              "floating point or complex. ")
            x = _dispatch.wrap(np.array(x.array, order="C")).requires_grad_(True)
        work.append(x)
    checked = [i for i, x in enumerate(work) if isinstance(x, CoreTensor) and x.requires_grad]
    with autograd.enable_grad():
        outputs = _outputs(func, work)
    slots = [k for k, o in enumerate(outputs) if isinstance(o, CoreTensor) and o.requires_grad]
    if not slots:
        # Nothing differentiable comes out: the function must then be locally constant.
        for i in checked:
            every = [k for k, o in enumerate(outputs) if isinstance(o, CoreTensor)]
            for num in _numerical(func, work, i, every, eps):
                if not np.allclose(num, 0, rtol=rtol, atol=atol):
                    return _fail("Numerical gradient for function expected to be zero", raise_exception)
        return True
    analytical = _analytical(outputs, [work[i] for i in checked], [outputs[k] for k in slots])
    for pos, i in enumerate(checked):
        numerical = _numerical(func, work, i, slots, eps)
        for k, slot in enumerate(slots):
            num, ana = numerical[k], analytical[k][pos]
            if not np.allclose(ana, num, rtol=rtol, atol=atol, equal_nan=False):
                dtype = outputs[slot].array.dtype
                return _fail(f"Jacobian mismatch for output {k} with respect to input {i},\nnumerical:"
                             f"{_show(num, dtype)}\nanalytical:{_show(ana, dtype)}\n", raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """Check second derivatives: ``gradcheck`` of the vector-Jacobian product of ``func``.

    Parameters
    ----------
    func : callable
    inputs : Tensor or tuple
    grad_outputs : Tensor or tuple of Tensor, optional
        The vectors of the product (drawn as ``torch.testing.make_tensor(low=-1, high=1)`` if omitted).
    eps, atol, rtol, raise_exception
        As in ``gradcheck``.

    Returns
    -------
    bool
    """
    inputs = _as_tuple(inputs)
    diff_pos = [i for i, x in enumerate(inputs) if isinstance(x, CoreTensor) and x.requires_grad]
    if grad_outputs is None:
        with autograd.enable_grad():
            outs = _outputs(func, inputs)
        # Drawn from the default generator as torch draws them, so a seeded program's later draws agree.
        grad_outputs = tuple(make_tensor(tuple(o.array.shape), dtype=o.dtype if o.is_floating_point() or o.is_complex()
                                         else float64, device="cpu", low=-1, high=1, requires_grad=True)
                             for o in outs if isinstance(o, CoreTensor) and o.requires_grad)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def vjp_of_func(*args):
        xs, vs = args[:n_in], args[n_in:]
        with autograd.enable_grad():
            outs = [o for o in _outputs(func, xs) if isinstance(o, CoreTensor) and o.requires_grad]
            grads = _autograd_grad(outs, [xs[i] for i in diff_pos], list(vs), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(vjp_of_func, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
