"""Identity, Linear, Bilinear."""

import math

from vfw.frontends.torch import _creation
from vfw.frontends.torch.nn import init
from vfw.frontends.torch.nn.functional import _linear as F
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.parameter import Parameter

__all__ = ["Identity", "Linear", "Bilinear"]


class Identity(Module):
    """Returns its input unchanged (arguments are accepted and ignored).

    Shape: input ``(*)``, output ``(*)``.
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


def _uniform_bias(bias, fan_in):
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    init.uniform_(bias, -bound, bound)


class Linear(Module):
    """``y = x W^T + b``.

    Parameters
    ----------
    in_features, out_features : int
    bias : bool
        Whether to learn an additive bias.
    device, dtype : optional
        Where and in which dtype to create the parameters.

    Shape: input ``(*, in_features)``, output ``(*, out_features)``.

    Attributes
    ----------
    weight : Parameter
        ``(out_features, in_features)``, from U(-1/sqrt(in_features), 1/sqrt(in_features)).
    bias : Parameter or None
        ``(out_features,)``, same distribution.
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_creation.empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Draw the weight (kaiming uniform, a=sqrt(5)) and the bias, as torch does."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            _uniform_bias(self.bias, init._calculate_fan_in_and_fan_out(self.weight)[0])

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """``y = x1^T A x2 + b``.

    Parameters
    ----------
    in1_features, in2_features, out_features : int
    bias : bool
    device, dtype : optional

    Shape: inputs ``(*, in1_features)`` and ``(*, in2_features)``, output ``(*, out_features)``.

    Attributes
    ----------
    weight : Parameter
        ``(out_features, in1_features, in2_features)``, from U(-1/sqrt(in1), 1/sqrt(in1)).
    bias : Parameter or None
        ``(out_features,)``, same distribution.
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_creation.empty((out_features, in1_features, in2_features), device=device,
                                                dtype=dtype))
        if bias:
            self.bias = Parameter(_creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Draw weight and bias from U(-1/sqrt(in1_features), 1/sqrt(in1_features)), weight first."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
