"""``fuse_modules``: merge eval-mode ``conv, bn[, relu]`` / ``linear[, bn][, relu]`` / ``conv, relu`` runs of
submodules into one module (batch normalization folded by ``torch.nn.utils.fusion``); the others become
``nn.Identity``."""

import copy

from vfw.frontends.torch import nn
from vfw.frontends.torch.ao.nn import intrinsic
from vfw.frontends.torch.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

__all__ = ["fuse_modules", "fuse_conv_bn", "fuse_conv_bn_relu", "fuse_linear_bn"]


def fuse_conv_bn(is_qat, conv, bn):
    """``conv`` with ``bn`` folded in (eval mode only in vfw)."""
    _eval_only(is_qat, conv, bn)
    return fuse_conv_bn_eval(conv, bn)


def fuse_conv_bn_relu(is_qat, conv, bn, relu):
    """``ConvReLU2d`` of ``conv`` with ``bn`` folded in, and ``relu``."""
    _eval_only(is_qat, conv, bn)
    return intrinsic.ConvReLU2d(fuse_conv_bn_eval(conv, bn), relu)


def fuse_linear_bn(is_qat, linear, bn):
    """``linear`` with ``bn`` folded in (eval mode)."""
    _eval_only(is_qat, linear, bn)
    return fuse_linear_bn_eval(linear, bn)


def _eval_only(is_qat, *mods):
    if is_qat or any(m.training for m in mods):
        raise NotImplementedError("fuse_modules: vfw.torch fuses batch normalization in eval mode only (QAT fusion, "
                                  "torch.ao.nn.intrinsic.qat.ConvBn2d, is not implemented); call model.eval() first")


_FUSERS = {
    (nn.Conv2d, nn.BatchNorm2d): fuse_conv_bn,
    (nn.Conv2d, nn.BatchNorm2d, nn.ReLU): fuse_conv_bn_relu,
    (nn.Conv2d, nn.ReLU): lambda is_qat, conv, relu: intrinsic.ConvReLU2d(conv, relu),
    (nn.Linear, nn.BatchNorm1d): fuse_linear_bn,
    (nn.Linear, nn.ReLU): lambda is_qat, linear, relu: intrinsic.LinearReLU(linear, relu),
}


def _fuse_one(model, names, is_qat):
    mods = [model.get_submodule(name) for name in names]
    fuser = _FUSERS.get(tuple(type(m) for m in mods))
    if fuser is None:
        raise NotImplementedError(f"Cannot fuse modules: {tuple(type(m) for m in mods)}")
    fused = [fuser(is_qat, *mods)] + [nn.Identity() for _ in mods[1:]]
    for name, mod in zip(names, fused):
        parent_name, _, child = name.rpartition(".")
        setattr(model.get_submodule(parent_name) if parent_name else model, child, mod)


def fuse_modules(model, modules_to_fuse, inplace=False, fuser_func=None, fuse_custom_config_dict=None):
    """Fuse each list of submodule names in ``modules_to_fuse`` (or the single list given).

    Parameters
    ----------
    model : nn.Module
    modules_to_fuse : list of list of str, or list of str
        Dotted names, e.g. ``[["conv", "bn", "relu"]]``.
    inplace : bool
        Fuse ``model`` itself instead of a deep copy.

    Returns
    -------
    nn.Module
        The model with the first module of each group replaced by the fused one, the others by ``nn.Identity``.
    """
    if fuser_func is not None or fuse_custom_config_dict is not None:
        raise NotImplementedError("fuse_modules: vfw.torch has no custom fuser_func / fuse_custom_config_dict")
    if not inplace:
        model = copy.deepcopy(model)
    groups = modules_to_fuse if all(isinstance(g, (list, tuple)) for g in modules_to_fuse) else [modules_to_fuse]
    for group in groups:
        _fuse_one(model, list(group), False)
    return model
