"""``nn.LinearCrossEntropyLoss``: a ``Linear`` layer to logits fused with the cross entropy of its output, and the
deprecated ``nn.Container``."""

import math

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch.nn.functional._linear_cross_entropy import linear_cross_entropy
from vfw.frontends.torch.nn.modules.linear import Linear
from vfw.frontends.torch.nn.modules.loss import _WeightedLoss
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["Container", "LinearCrossEntropyLoss"]


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross entropy of ``input`` mapped to ``num_classes`` (times ``out_features``) logits by an owned ``Linear``.

    Parameters
    ----------
    in_features : int
    num_classes : int
    out_features : tuple of int
        ``(d_1, ..., d_K)`` for a K-dimensional loss; ``self.linear`` then has ``num_classes * prod(d)`` outputs
        (reshaped to ``(num_classes, *out_features)`` in ``forward``).
    bias : bool
        Whether ``self.linear`` has a bias.
    device, dtype :
        Of ``self.linear``'s parameters.
    reduction, weight, ignore_index, label_smoothing :
        As :func:`torch.nn.functional.linear_cross_entropy`.
    options : None
        torch's chunking options (vfw computes the reference path only).

    Shape: input ``(in_features)`` or ``(N, in_features)``; target ``()``, ``(N)`` or ``(N, *out_features)`` class
    indices, or class probabilities shaped like the logits.
    """

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction="mean", weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if not 0.0 <= label_smoothing <= 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # Linear holds 2-D weights: the K output dims are folded into its outputs and unfolded in forward
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input, target):
        """The loss of ``input`` against ``target``."""
        logits_shape = (self.num_classes, *self.out_features)
        bias = None if self.linear.bias is None else self.linear.bias.reshape(logits_shape)
        return linear_cross_entropy(input, self.linear.weight.reshape(*logits_shape, self.linear.in_features),
                                    target, linear_bias=bias, weight=self.weight, reduction=self.reduction,
                                    ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
                                    options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")


class Container(Module):
    """Deprecated: a Module whose keyword arguments become its submodules (subclass ``Module`` instead)."""

    def __init__(self, **kwargs):
        super().__init__()
        warn_for_user("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                  "Subclass that instead.", FutureWarning)
        for name, module in kwargs.items():
            self.add_module(name, module)
