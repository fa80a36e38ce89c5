"""torch.func: composable function transforms (``vmap``, ``grad``, ``jacrev``/``jacfwd``, ``hessian``, ``vjp``,
``jvp``), ``functional_call``, ``stack_module_state``, ``functionalize`` and
``replace_all_batch_norm_modules_``."""

from vfw.frontends.torch.func._functional_call import functional_call
from vfw.frontends.torch.func._functionalize import functionalize, replace_all_batch_norm_modules_
from vfw.frontends.torch.func._grad import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from vfw.frontends.torch.func._linearize import linearize
from vfw.frontends.torch.func._stack_module_state import stack_module_state
from vfw.frontends.torch.func._vmap import vmap

__all__ = ["functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]
