"""Lazy modules: layers whose input size is read from their first input.

A lazy module starts with ``UninitializedParameter`` / ``UninitializedBuffer`` placeholders.
A forward pre-hook reads the input size at the first call, materializes the placeholders,
runs the layer's ``reset_parameters`` (so a seeded program draws torch's weights) and turns
the module into its eager class (``LazyLinear`` -> ``Linear``). Loading a ``state_dict``
first materializes the placeholders with the saved shapes.
"""

from vfw.frontends.torch import _creation, _dtype
from vfw.frontends.torch.autograd.grad_mode import no_grad
from vfw.frontends.torch.nn.modules import batchnorm, conv, instancenorm, linear
from vfw.frontends.torch.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

__all__ = [
    "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
    "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
    "LazyInstanceNorm3d", "LazyLinear",
]


class LazyModuleMixin:
    """Infers the shapes of uninitialized parameters and buffers from the first input (see the module docstring)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        for table in (self._parameters, self._buffers):
            for name, tensor in table.items():
                saved = state_dict.get(prefix + name)
                if saved is not None and is_lazy(tensor) and not is_lazy(saved):
                    with no_grad():
                        tensor.materialize(saved.array.shape)

    def has_uninitialized_params(self):
        """bool: whether a parameter or buffer still waits for its shape."""
        return any(is_lazy(t) for table in (self._parameters, self._buffers) for t in table.values())

    def initialize_parameters(self, *args, **kwargs):
        """Materialize the parameters from the first input (each lazy layer's own rule)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")


def _infer_parameters(module, args, kwargs):
    module.initialize_parameters(*args, **kwargs)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {type(module).__name__} has not been fully initialized")
    module._initialize_hook.remove()
    module._load_hook.remove()
    del module._initialize_hook
    del module._load_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, linear.Linear):
    """``Linear`` whose ``in_features`` is the last dimension of the first input.

    Parameters
    ----------
    out_features : int
    bias : bool
    device, dtype : optional
    """

    cls_to_become = linear.Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False, device=device, dtype=dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        self.in_features = input.shape[-1]
        if self.has_uninitialized_params():
            with no_grad():
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    """Convolutions: ``in_channels`` is the channel dimension of the first input."""

    def _lazy_conv_init(self, out_channels, bias, factory):
        self.weight = UninitializedParameter(**factory)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input):
        spatial = len(self.kernel_size)
        if input.dim() not in (spatial + 1, spatial + 2):
            raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == spatial + 2 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    shape = (self.in_channels, self.out_channels // self.groups)
                else:
                    shape = (self.out_channels, self.in_channels // self.groups)
                self.weight.materialize(shape + tuple(self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


def _lazy_conv(eager):
    """``LazyConv{1,2,3}d`` becoming ``eager``."""

    class LazyConv(_LazyConvXdMixin, eager):
        cls_to_become = eager

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                     padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                             device=device, dtype=dtype)
            self._lazy_conv_init(out_channels, bias, {"device": device, "dtype": dtype})

    LazyConv.__name__ = LazyConv.__qualname__ = "Lazy" + eager.__name__
    LazyConv.__doc__ = f"``{eager.__name__}`` whose ``in_channels`` is read from the first input."
    return LazyConv


def _lazy_conv_transpose(eager):
    """``LazyConvTranspose{1,2,3}d`` becoming ``eager``."""

    class LazyConvTranspose(_LazyConvXdMixin, eager):
        cls_to_become = eager

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                     dilation=1, padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                             padding_mode, device=device, dtype=dtype)
            self._lazy_conv_init(out_channels, bias, {"device": device, "dtype": dtype})

    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = "Lazy" + eager.__name__
    LazyConvTranspose.__doc__ = f"``{eager.__name__}`` whose ``in_channels`` is read from the first input."
    return LazyConvTranspose


LazyConv1d, LazyConv2d, LazyConv3d = (_lazy_conv(c) for c in (conv.Conv1d, conv.Conv2d, conv.Conv3d))
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    _lazy_conv_transpose(c) for c in (conv.ConvTranspose1d, conv.ConvTranspose2d, conv.ConvTranspose3d))


class _LazyNormBase(LazyModuleMixin):
    """Batch and instance norms: ``num_features`` is dimension 1 of the first input."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        factory = {"device": device, "dtype": dtype}
        if affine:
            self.weight = UninitializedParameter(**factory)
            self.bias = UninitializedParameter(**factory)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**factory)
            self.running_var = UninitializedBuffer(**factory)
            self.num_batches_tracked = _creation.tensor(0, dtype=_dtype.long, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                for tensor in (self.weight, self.bias, self.running_mean, self.running_var):
                    if tensor is not None:
                        tensor.materialize((self.num_features,))
                self.reset_parameters()


def _lazy_norm(eager):
    class LazyNorm(_LazyNormBase, eager):
        cls_to_become = eager

    LazyNorm.__name__ = LazyNorm.__qualname__ = "Lazy" + eager.__name__
    LazyNorm.__doc__ = (f"``{eager.__name__}`` whose ``num_features`` is read from the first input (arguments: eps, "
                        "momentum, affine, track_running_stats, device, dtype).")
    return LazyNorm


LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d = (
    _lazy_norm(c) for c in (batchnorm.BatchNorm1d, batchnorm.BatchNorm2d, batchnorm.BatchNorm3d))
LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    _lazy_norm(c) for c in (instancenorm.InstanceNorm1d, instancenorm.InstanceNorm2d, instancenorm.InstanceNorm3d))
