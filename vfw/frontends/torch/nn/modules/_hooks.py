"""Module hooks: the process-wide hook registries and the machinery of full backward hooks.

A full backward hook ``hook(module, grad_input, grad_output)`` runs when the gradients of a
module call's inputs are computed.  :class:`BackwardHook` passes the call's tensor inputs and
outputs through identity nodes of the autograd graph: the output node's backward sees
``grad_output`` (and runs backward pre-hooks, which may replace it), the input node's backward
sees ``grad_input``, runs the hooks and lets them replace it.
"""

from collections import OrderedDict

from vfw.core import autograd
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.utils.hooks import add_hook

# Hooks every module runs (torch.nn.modules.module.register_module_*_hook).
global_forward_pre_hooks = OrderedDict()
global_forward_hooks = OrderedDict()
global_forward_hooks_always_called = OrderedDict()
global_backward_pre_hooks = OrderedDict()
global_backward_hooks = OrderedDict()
global_parameter_registration_hooks = OrderedDict()
global_buffer_registration_hooks = OrderedDict()
global_module_registration_hooks = OrderedDict()


def register_module_forward_pre_hook(hook):
    """Run ``hook(module, args)`` before every module's ``forward``; returns a removable handle."""
    return add_hook(global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, always_call=False):
    """Run ``hook(module, args, output)`` after every module's ``forward``; returns a removable handle."""
    handle = add_hook(global_forward_hooks, hook, flags=global_forward_hooks_always_called)
    if always_call:
        global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    """Run ``hook(module, grad_output)`` for every module when its output gradients are known."""
    return add_hook(global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """Run ``hook(module, grad_input, grad_output)`` for every module when its input gradients are known."""
    return add_hook(global_backward_hooks, hook)


register_module_backward_hook = register_module_full_backward_hook


def register_module_parameter_registration_hook(hook):
    """Run ``hook(module, name, param)`` whenever a parameter is registered on any module."""
    return add_hook(global_parameter_registration_hooks, hook)


def register_module_buffer_registration_hook(hook):
    """Run ``hook(module, name, buffer)`` whenever a buffer is registered on any module."""
    return add_hook(global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """Run ``hook(module, name, submodule)`` whenever a submodule is registered on any module."""
    return add_hook(global_module_registration_hooks, hook)


def _identity_node(tensors, backward_fn):
    """New tensors with the values of ``tensors`` behind one autograd node calling ``backward_fn``."""
    node = autograd.Node(None, tuple(tensors), tuple(t.array for t in tensors), backward_fn=backward_fn)
    outs = []
    for slot, t in enumerate(tensors):
        out = _dispatch.wrap(t.array, True)
        out.grad_node = node
        out.grad_slot = slot
        outs.append(out)
    return outs


class BackwardHook:
    """The full backward hooks (and backward pre-hooks) of one module call."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.n_inputs = 0
        self.input_positions = None
        self.grad_outputs = None

    def setup_input_hook(self, args):
        """``args`` with the tensors that require grad passed through the input node."""
        self.n_inputs = len(args)
        positions = [i for i, a in enumerate(args) if isinstance(a, CoreTensor) and a.requires_grad]
        if not positions or not autograd.is_grad_enabled():
            return args
        self.input_positions = positions
        wrapped = _identity_node([args[i] for i in positions], self._input_backward)
        args = list(args)
        for i, t in zip(positions, wrapped):
            args[i] = t
        return tuple(args)

    def setup_output_hook(self, result):
        """``result`` (a tensor or a tuple) with its tensors that require grad passed through the output node."""
        single = isinstance(result, CoreTensor)
        outputs = (result,) if single else result
        if not isinstance(outputs, tuple) or not autograd.is_grad_enabled():
            return result
        positions = [i for i, o in enumerate(outputs) if isinstance(o, CoreTensor) and o.requires_grad]
        if not positions:
            return result
        self.n_outputs = len(outputs)
        self.output_positions = positions
        wrapped = _identity_node([outputs[i] for i in positions], self._output_backward)
        outputs = list(outputs)
        for i, t in zip(positions, wrapped):
            outputs[i] = t
        return outputs[0] if single else tuple(outputs)

    @staticmethod
    def _spread(positions, values, n):
        full = [None] * n
        for i, v in zip(positions, values):
            full[i] = None if v is None else _dispatch.as_torch(v)
        return tuple(full)

    def _output_backward(self, *grads):
        grad_outputs = self._spread(self.output_positions, grads, self.n_outputs)
        for hook in self.pre_hooks:
            new = hook(self.module, grad_outputs)
            if new is not None:
                grad_outputs = tuple(new) if isinstance(new, (tuple, list)) else (new,)
                if len(grad_outputs) != self.n_outputs:
                    raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                       f"{len(grad_outputs)}, but expected {self.n_outputs}")
        self.grad_outputs = grad_outputs
        if self.input_positions is None and self.hooks:  # no input needs a gradient: the hooks run now
            warn_for_user("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                          "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                new = hook(self.module, grad_inputs, grad_outputs)
                if new is not None and not all(g is None for g in new):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
        return tuple(grad_outputs[i] for i in self.output_positions)

    def _input_backward(self, *grads):
        grad_inputs = self._spread(self.input_positions, grads, self.n_inputs)
        grad_outputs = self.grad_outputs if self.grad_outputs is not None else ()
        for hook in self.hooks:
            new = hook(self.module, grad_inputs, grad_outputs)
            if new is None:
                continue
            new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
            if len(new) != self.n_inputs:
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(new)}, but "
                                   f"expected {self.n_inputs}")
            grad_inputs = new
        return tuple(grad_inputs[i] for i in self.input_positions)
