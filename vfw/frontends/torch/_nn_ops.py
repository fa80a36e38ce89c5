"""Neural-network operations torch also exposes at the top level (``torch.conv2d``, ``torch.dropout``...).

Most are ``torch.nn.functional``'s functions under the same name. Where torch's top-level
version is its native operator with another signature (``torch.dropout(input, p, train)``,
``torch.batch_norm(input, weight, bias, running_mean, running_var, ...)``, losses taking the
reduction as an int), a thin adapter maps it onto the functional.
"""

from vfw.frontends.torch.nn import functional as F

_SAME = ("conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d conv_tbc avg_pool1d "
         "max_pool1d max_pool2d max_pool3d adaptive_avg_pool1d pixel_shuffle pixel_unshuffle channel_shuffle "
         "native_channel_shuffle pdist bilinear celu celu_ selu selu_ rrelu rrelu_ threshold threshold_ hardshrink "
         "prelu rms_norm").split()
_REDUCTIONS = ("none", "mean", "sum")

__all__ = _SAME + ["dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout", "batch_norm",
                   "instance_norm", "group_norm", "layer_norm", "embedding", "adaptive_max_pool1d",
                   "max_pool1d_with_indices", "kl_div", "binary_cross_entropy_with_logits", "cosine_embedding_loss",
                   "hinge_embedding_loss", "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss",
                   "ctc_loss"]

globals().update({name: getattr(F, name) for name in _SAME})


def _reduction(value):
    """torch's native reduction codes: 0 none, 1 mean, 2 sum."""
    if isinstance(value, str):
        return value
    if value not in (0, 1, 2):
        raise ValueError(f"{value} is not a valid value for reduction")
    return _REDUCTIONS[value]


def dropout(input, p, train):
    """``F.dropout(input, p, training=train)``."""
    return F.dropout(input, p, train)


def alpha_dropout(input, p, train):
    """``F.alpha_dropout(input, p, training=train)``."""
    return F.alpha_dropout(input, p, train)


def feature_dropout(input, p, train):
    """Dropout of whole channels (dim 1) of an ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)`` input."""
    by_rank = {3: F.dropout1d, 4: F.dropout2d, 5: F.dropout3d}
    if input.dim() not in by_rank:
        raise RuntimeError(f"feature_dropout: expected a 3-D, 4-D or 5-D input, got {input.dim()}-D")
    return by_rank[input.dim()](input, p, train)


def feature_alpha_dropout(input, p, train):
    """``F.feature_alpha_dropout(input, p, training=train)``."""
    return F.feature_alpha_dropout(input, p, train)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """torch's native argument order for ``F.batch_norm``."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """torch's native argument order for ``F.instance_norm``."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``F.group_norm`` (``cudnn_enabled`` is ignored)."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """``F.layer_norm`` (``cudnn_enable`` is ignored)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` at ``indices`` (torch's native order; ``padding_idx=-1`` means none)."""
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def adaptive_max_pool1d(input, output_size):
    """``(values, indices)`` of ``F.adaptive_max_pool1d``."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``(values, indices)`` of ``F.max_pool1d``."""
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode, return_indices=True)


def kl_div(input, target, reduction=1, *, log_target=False):
    """``F.kl_div`` with the reduction as torch's code (0 none, 1 mean, 2 sum; the native op does not warn about
    'mean' as the functional does)."""
    reduction = _reduction(reduction)
    if reduction == "mean":
        return F.kl_div(input, target, reduction="none", log_target=log_target).mean()
    return F.kl_div(input, target, reduction=reduction, log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    """``F.binary_cross_entropy_with_logits`` with the reduction as torch's code."""
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    """``F.cosine_embedding_loss`` with the reduction as torch's code."""
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    """``F.hinge_embedding_loss`` with the reduction as torch's code."""
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    """``F.margin_ranking_loss`` with the reduction as torch's code."""
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``F.poisson_nll_loss`` with the reduction as torch's code."""
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=1):
    """``F.triplet_margin_loss`` with the reduction as torch's code."""
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    """``F.ctc_loss`` with the reduction as torch's code."""
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction), zero_infinity)
