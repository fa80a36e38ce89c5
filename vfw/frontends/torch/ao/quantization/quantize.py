"""Eager-mode quantization: ``propagate_qconfig_``, ``prepare``/``prepare_qat`` (attach observers / swap to QAT
layers), ``convert`` (swap observed layers for quantized ones), ``quantize``, ``quantize_dynamic``."""

import copy

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _quantized, nn
from vfw.frontends.torch.ao.nn import intrinsic, qat
from vfw.frontends.torch.ao.nn import quantized as nnq
from vfw.frontends.torch.ao.nn.intrinsic import quantized as nniq
from vfw.frontends.torch.ao.quantization.qconfig import default_dynamic_qconfig
from vfw.frontends.torch.ao.quantization.stubs import DeQuantStub, QuantStub

__all__ = ["propagate_qconfig_", "prepare", "prepare_qat", "convert", "quantize", "quantize_dynamic", "swap_module",
           "get_default_static_quant_module_mappings", "get_default_qat_module_mappings",
           "get_default_dynamic_quant_module_mappings"]


def get_default_static_quant_module_mappings():
    """Float (observed) module type -> quantized module type, for ``convert``."""
    return {QuantStub: nnq.Quantize, DeQuantStub: nnq.DeQuantize, nn.Linear: nnq.Linear, nn.Conv2d: nnq.Conv2d,
            qat.Linear: nnq.Linear, qat.Conv2d: nnq.Conv2d, intrinsic.ConvReLU2d: nniq.ConvReLU2d,
            intrinsic.LinearReLU: nniq.LinearReLU}


def get_default_qat_module_mappings():
    """Float module type -> QAT module type, for ``prepare_qat``."""
    return {nn.Linear: qat.Linear, nn.Conv2d: qat.Conv2d}


def get_default_dynamic_quant_module_mappings():
    """Float module type -> dynamically quantized module type."""
    return {nn.Linear: nnq.dynamic.Linear}


# Float layers torch observes the output of besides the mapped ones (its qconfig propagation list); Dropout is on
# torch's list but never observed
_ALSO_OBSERVED = ("BatchNorm2d", "BatchNorm3d", "Conv1d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                  "ConvTranspose3d", "ELU", "GroupNorm", "Hardswish", "InstanceNorm1d", "InstanceNorm2d",
                  "InstanceNorm3d", "LayerNorm", "LeakyReLU", "PReLU", "ReLU6")


def _observed_types():
    return (set(get_default_static_quant_module_mappings()) | set(get_default_qat_module_mappings())
            | {getattr(nn, name) for name in _ALSO_OBSERVED})


def propagate_qconfig_(module, qconfig_dict=None, prepare_custom_config_dict=None):
    """Give every submodule the ``qconfig`` of its nearest ancestor (or its own), in place."""
    qconfig_dict = qconfig_dict or {}

    def visit(mod, inherited, prefix):
        qconfig = qconfig_dict.get(type(mod), qconfig_dict.get(prefix, getattr(mod, "qconfig", inherited)))
        mod.qconfig = qconfig
        for name, child in mod.named_children():
            visit(child, qconfig, f"{prefix}.{name}" if prefix else name)

    visit(module, None, "")


def _observer_hook(module, inputs, output):
    return module.activation_post_process(output)


def _is_leaf(module):
    """No submodules but a QAT layer's ``weight_fake_quant`` (a fused module counts as one layer too)."""
    return isinstance(module, intrinsic._FusedModule) or all(
        name == "weight_fake_quant" for name, _ in module.named_children())


def _add_observers(module, observed_types):
    for child in module.children():
        if type(child) in observed_types and _is_leaf(child):
            if getattr(child, "qconfig", None) is not None and type(child) is not DeQuantStub:
                child.activation_post_process = child.qconfig.activation()
                child.register_forward_hook(_observer_hook)
        else:
            _add_observers(child, observed_types)


def prepare(model, inplace=False, allow_list=None, observer_non_leaf_module_list=None, prepare_custom_config_dict=None):
    """Attach an activation observer (``activation_post_process``, run by a forward hook) to each quantizable
    layer and ``QuantStub`` with a ``qconfig``.

    Parameters
    ----------
    model : nn.Module
        Float model in eval mode; ``qconfig`` set on it or on submodules.
    inplace : bool

    Returns
    -------
    nn.Module
        The observed model: run calibration data through it, then :func:`convert`.
    """
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model)
    if not any(getattr(m, "qconfig", None) for m in model.modules()):
        warn_for_user("None of the submodule got qconfig applied. Make sure you passed correct configuration through "
                      "`qconfig_dict` or by assigning the `.qconfig` attribute directly on submodules")
    _add_observers(model, _observed_types())
    return model


def prepare_qat(model, mapping=None, inplace=False):
    """Swap Linear/Conv2d for their QAT forms (fake-quantized weights) and attach activation fake quantizers.

    Parameters
    ----------
    model : nn.Module
        Float model in training mode with a QAT ``qconfig`` (``get_default_qat_qconfig``).
    mapping : dict, optional
        Float type -> QAT type (:func:`get_default_qat_module_mappings`).
    inplace : bool
    """
    assert model.training, "prepare_qat only works on models in training mode"
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model)
    convert(model, mapping or get_default_qat_module_mappings(), inplace=True, remove_qconfig=False)
    return prepare(model, inplace=True)


def swap_module(mod, mapping, custom_module_class_mapping=None, use_precomputed_fake_quant=False):
    """``mapping[type(mod)].from_float(mod)`` when ``mod`` has a qconfig and a mapped type, else ``mod``."""
    target = mapping.get(type(mod))
    if target is None or getattr(mod, "qconfig", None) is None:
        return mod
    swapped = target.from_float(mod)
    swapped.training = mod.training
    return swapped


def _remove_qconfig(module):
    for mod in module.modules():
        if "qconfig" in mod.__dict__:
            del mod.qconfig


def convert(module, mapping=None, inplace=False, remove_qconfig=True, is_reference=False,
            convert_custom_config_dict=None, use_precomputed_fake_quant=False):
    """Swap each observed module with a mapped type for its quantized form (``from_float``).

    Parameters
    ----------
    module : nn.Module
        A prepared and calibrated (or QAT-trained) model.
    mapping : dict, optional
        Type -> quantized type (:func:`get_default_static_quant_module_mappings`).
    inplace : bool
    remove_qconfig : bool
        Delete the ``qconfig`` attributes afterwards.
    """
    if is_reference:
        raise NotImplementedError("convert(is_reference=True): vfw.torch has no reference quantized modules")
    if not inplace:
        module = copy.deepcopy(module)
    mapping = get_default_static_quant_module_mappings() if mapping is None else mapping

    def swap_children(mod):
        for name, child in list(mod.named_children()):
            if type(child) in mapping:
                setattr(mod, name, swap_module(child, mapping))
            else:
                swap_children(child)

    swap_children(module)
    if remove_qconfig:
        _remove_qconfig(module)
    return module


def quantize(model, run_fn, run_args, mapping=None, inplace=False):
    """Post-training static quantization: ``prepare``, ``run_fn(model, *run_args)`` (calibration), ``convert``."""
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    prepare(model, inplace=True)
    run_fn(model, *run_args) if isinstance(run_args, (list, tuple)) else run_fn(model, run_args)
    return convert(model, mapping, inplace=True)


def quantize_dynamic(model, qconfig_spec=None, dtype=_quantized.qint8, mapping=None, inplace=False):
    """Replace ``nn.Linear`` layers (those named or typed in ``qconfig_spec``) with dynamically quantized ones.

    Parameters
    ----------
    model : nn.Module
    qconfig_spec : set of types, or dict of type/name -> QConfig, optional
        ``{nn.Linear}`` (default: all Linear layers).
    dtype : torch.dtype
        ``torch.qint8`` (float16 dynamic quantization is not in vfw).
    """
    if dtype is not _quantized.qint8:
        raise NotImplementedError(f"quantize_dynamic: vfw.torch supports dtype=torch.qint8 only, got {dtype!r}")
    if qconfig_spec is None:
        qconfig_spec = {nn.Linear: default_dynamic_qconfig}
    elif isinstance(qconfig_spec, set):
        qconfig_spec = dict.fromkeys(qconfig_spec, default_dynamic_qconfig)
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    propagate_qconfig_(model, qconfig_spec)
    convert(model, mapping or get_default_dynamic_quant_module_mappings(), inplace=True)
    return model
