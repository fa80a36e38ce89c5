"""``torch.nn.utils.fusion``: fold an eval-mode batch normalization into the convolution or linear layer before it
(deployment: one layer instead of two, the same outputs in eval mode)."""

import copy

import vfw.frontends.torch as torch
from vfw.frontends.torch.nn.parameter import Parameter


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of ``conv`` whose weight and bias also apply ``bn`` (both in eval mode).

    Parameters
    ----------
    conv : nn.Conv1d/2d/3d or nn.ConvTranspose*d
    bn : nn.BatchNorm*d with running statistics
    transpose : bool
        ``conv`` is a transposed convolution (its output channels are the weight's second dimension).

    Returns
    -------
    The fused convolution (``conv`` itself is unchanged).
    """
    assert not (conv.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(conv)
    assert bn.running_mean is not None and bn.running_var is not None
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def _fused_parameters(weight, bias, bn_rm, bn_rv, bn_eps, bn_w, bn_b, channel_shape):
    """``weight * scale`` (scale reshaped to ``channel_shape``) and ``(bias - mean) * scale + shift`` as
    Parameters of the layer's dtypes, where ``scale = bn_w / sqrt(running_var + eps)``."""
    weight_dtype = weight.dtype
    bias_dtype = weight_dtype if bias is None else bias.dtype
    bias = torch.zeros_like(bn_rm) if bias is None else bias
    bn_w = torch.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = torch.zeros_like(bn_rm) if bn_b is None else bn_b
    scale = bn_w * torch.rsqrt(bn_rv + bn_eps)
    fused_w = (weight * scale.reshape(channel_shape)).to(dtype=weight_dtype)
    fused_b = ((bias - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, weight.requires_grad), Parameter(fused_b, bias.requires_grad)


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The fused ``(weight, bias)`` Parameters of a convolution followed by a batch normalization (a missing
    conv bias counts as zeros, missing affine parameters as ones and zeros)."""
    channel_shape = [1, -1] if transpose else [-1, 1]
    channel_shape += [1] * (conv_w.dim() - 2)
    return _fused_parameters(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, channel_shape)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` whose weight and bias also apply ``bn`` (a BatchNorm1d over its outputs; eval mode)."""
    assert not (linear.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(linear)
    assert linear.out_features == bn.num_features or bn.num_features == 1, (
        "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
        f"got linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    assert bn.running_mean is not None and bn.running_var is not None
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The fused ``(weight, bias)`` Parameters of a linear layer followed by a batch normalization."""
    return _fused_parameters(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, [-1, 1])
