"""torch's names for vfw.torch's classes: ``type(x)`` prints ``<class 'torch.Tensor'>``, as under torch.

:func:`install` runs once, after every module of vfw.torch is loaded. It gives each class defined in vfw.torch
the ``__module__`` (and, where it differs, ``__qualname__``/``__name__``) torch 2.13 gives it: vfw's module path
without ``vfw.frontends.`` where vfw mirrors torch's layout, else the names in the tables below. Classes of
vfw's private modules that torch has no counterpart of keep their vfw names.

Pickle finds a class by those names, and ``torch.*`` modules are torch's (or nothing) outside ``vfw.mock``. So
every renamed class also gets a ``__reduce_ex__`` that writes the classes it names by their vfw paths: pickling
and copying vfw.torch objects work, in-process and across processes, whether or not real torch is present.
"""

import sys

# _ClassPath, _new_object and _rebuild are named by pickles that earlier versions wrote from this module
from vfw.frontends._class_paths import _ClassPath, _new_object, _rebuild, rename  # noqa: F401

_PACKAGE = "vfw.frontends.torch"

# vfw's private modules whose classes torch defines in one module.
_MODULES = {
    "_legacy_types": "torch", "_size": "torch", "_tensor": "torch", "_device": "torch", "_dtype": "torch",
    "_typing": "torch", "_storage": "torch.storage", "_config": "torch",
    "serialization._safe_globals": "torch.serialization",
    "nn.modules._activation_softmax": "torch.nn.modules.activation",
    "optim._lr_base": "torch.optim.lr_scheduler", "optim._lr_cyclic": "torch.optim.lr_scheduler",
    "optim._lr_composite": "torch.optim.lr_scheduler",
    "distributions.transforms_structured": "torch.distributions.transforms",
    "distributed._c10d": "torch.distributed.distributed_c10d", "utils.data._iterators": "torch.utils.data.dataloader",
    "cpu._streams": "torch.cpu", "_symbolic": "torch", "_dynamo.eval_frame": "torch._dynamo.eval_frame",
}

# Classes torch defines elsewhere than vfw (by vfw's module path below vfw.frontends.torch, then the class name):
# torch's module, or (module, qualname) where torch's qualname differs too.
_CLASSES = {
    "random.Generator": "torch._C",
    "distributed._groups.DebugLevel": "torch.distributed.distributed_c10d",
    "distributed._groups.DistError": "torch.distributed",
    "distributed._groups.DistBackendError": "torch.distributed",
    "distributed._groups.DistNetworkError": "torch.distributed",
    "distributed._groups.DistStoreError": "torch.distributed",
    "distributed._groups.QueueEmptyError": "torch.distributed",
    "distributed._store.Store": "torch.distributed.distributed_c10d",
    "distributed._store.PrefixStore": "torch.distributed.distributed_c10d",
    "distributed._store.FileStore": "torch._C._distributed_c10d",
    "distributed._store.HashStore": "torch._C._distributed_c10d",
    "distributed._store.TCPStore": "torch._C._distributed_c10d",
    "distributed._grad_bucket.GradBucket": "torch._C._distributed_c10d",
    "distributed._collectives_more.P2POp": "torch.distributed.distributed_c10d",
    "futures.Future": "torch.jit",
    "nn.modules._linear_cross_entropy.LinearCrossEntropyLoss": "torch.nn.modules.loss",
    "nn.modules._linear_cross_entropy.Container": "torch.nn.modules.container",
    "_quantized.qscheme": "torch",
    "_quantized.QuantizedDType": ("torch", "dtype"),
    "_quantized.QuantizedTensor": ("torch", "Tensor"),  # torch's quantized tensors are torch.Tensor too
    "ao.nn.intrinsic._FusedModule": "torch.ao.nn.intrinsic.modules.fused",
    "ao.nn.intrinsic.ConvReLU2d": "torch.ao.nn.intrinsic.modules.fused",
    "ao.nn.intrinsic.LinearReLU": "torch.ao.nn.intrinsic.modules.fused",
    "ao.nn.intrinsic.quantized.ConvReLU2d": "torch.ao.nn.intrinsic.quantized.modules.conv_relu",
    "ao.nn.intrinsic.quantized.LinearReLU": "torch.ao.nn.intrinsic.quantized.modules.linear_relu",
    "ao.nn.qat.Conv2d": "torch.ao.nn.qat.modules.conv",
    "ao.nn.qat.Linear": "torch.ao.nn.qat.modules.linear",
    "ao.quantization._histogram_observer.HistogramObserver": "torch.ao.quantization.observer",
    "_legacy_types._LegacyType": ("torch", "tensortype"),
    "_grad_fn.AccumulateGrad": "builtins",
    "autograd.Variable": "torch.autograd.variable",
    "jit.ScriptFunction": ("torch.jit", "torch.jit.ScriptFunction"),
    "jit.ScriptModule": "torch.jit._script",
    "jit.TracedModule": "torch.jit._trace",
    "jit.TracerWarning": "torch.jit._trace",
    "_linalg_decomp.LinAlgError": ("torch._C", "_LinAlgError"),
    "onnx.OperatorExportTypes": "torch._C._onnx",
    "onnx.TrainingMode": "torch._C._onnx",
    "onnx.UnsupportedOperatorError": "torch.onnx.errors",
    "nn.modules.data_parallel.DataParallel": "torch.nn.parallel.data_parallel",
    "nn.modules.attention.MultiheadAttention": "torch.nn.modules.activation",
    "nn.modules.attention.NonDynamicallyQuantizableLinear": "torch.nn.modules.linear",
    "optim.adafactor.Adafactor": "torch.optim",
    "optim.muon.Muon": "torch.optim",
    "distributions.distribution.lazy_property": "torch.distributions.utils",
    "distributions.constraints.dependent_property": ("torch.distributions.constraints", "_DependentProperty"),
    "distributions.exponential_family.ExponentialFamily": "torch.distributions.exp_family",
    "distributions.transform_base.Transform": "torch.distributions.transforms",
    "distributions.transform_base.ComposeTransform": "torch.distributions.transforms",
    "distributions.transformed.TransformedDistribution": "torch.distributions.transformed_distribution",
    "distributions.multivariate_normal.LowRankMultivariateNormal":
        "torch.distributions.lowrank_multivariate_normal",
    "distributions.independent.MixtureSameFamily": "torch.distributions.mixture_same_family",
    "distributions.relaxed.ExpRelaxedCategorical": "torch.distributions.relaxed_categorical",
    "distributions.relaxed.RelaxedOneHotCategorical": "torch.distributions.relaxed_categorical",
    "distributions.relaxed.LogitRelaxedBernoulli": "torch.distributions.relaxed_bernoulli",
    "distributions.relaxed.RelaxedBernoulli": "torch.distributions.relaxed_bernoulli",
    "distributions.gamma.StudentT": "torch.distributions.studentT",
    "distributions.discrete.OneHotCategorical": "torch.distributions.one_hot_categorical",
    "export._program.Dim": "torch.export.dynamic_shapes",
    "export._program.ExportedProgram": "torch.export.exported_program",
    "export._program.UserError": "torch._dynamo.exc",
    "profiler.ProfilerAction": "torch.profiler.profiler",
    "profiler.ProfilerActivity": "torch._C._profiler",
    "profiler.profile": "torch.profiler.profiler",
    "fx._symbolic_trace.Tracer": "torch.fx._symbolic_trace",
    "library.CustomOpDef": "torch._library.custom_ops",
}
# Lazy modules live beside their eager modules in torch; distributions each in a module of their own name.
_CLASSES.update({f"nn.modules.lazy.Lazy{name}": f"torch.nn.modules.{family}" for family, names in {
    "linear": ("Linear",), "conv": ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                                    "ConvTranspose3d"),
    "batchnorm": ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d"),
    "instancenorm": ("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d")}.items() for name in names})
_CLASSES.update({f"distributions.{vfw_module}.{name}": f"torch.distributions.{torch_module}"
                 for vfw_module, names in {
                     "categorical": {"Bernoulli": "bernoulli"}, "dirichlet": {"Beta": "beta"},
                     "discrete": {"Binomial": "binomial", "Geometric": "geometric", "Poisson": "poisson"},
                     "location_scale": {"Cauchy": "cauchy", "Laplace": "laplace"},
                     "gamma": {"Chi2": "chi2", "Exponential": "exponential"},
                     "transformed": {"Gumbel": "gumbel", "HalfCauchy": "half_cauchy", "HalfNormal": "half_normal",
                                     "LogNormal": "log_normal"},
                     "heavy_tailed": {"FisherSnedecor": "fishersnedecor", "GeneralizedPareto": "generalized_pareto",
                                      "InverseGamma": "inverse_gamma", "Pareto": "pareto", "Weibull": "weibull"},
                     "unit_interval": {"ContinuousBernoulli": "continuous_bernoulli", "Kumaraswamy": "kumaraswamy",
                                       "LogisticNormal": "logistic_normal"},
                     "matrix_families": {"LKJCholesky": "lkj_cholesky", "Wishart": "wishart"},
                     "straight_through": {"OneHotCategoricalStraightThrough": "one_hot_categorical"},
                     "normal": {"Uniform": "uniform"}}.items()
                 for name, torch_module in names.items()})

def _torch_name(cls):
    """(module, qualname) torch gives ``cls``, or None to keep vfw's names."""
    relative = cls.__module__[len(_PACKAGE) + 1:]
    found = _CLASSES.get(f"{relative}.{cls.__qualname__}") or _MODULES.get(relative)
    if found is not None:
        return (found, cls.__qualname__) if isinstance(found, str) else found
    if any(part.startswith("_") for part in relative.split(".")):
        return None  # a vfw helper class of a private module
    return "torch" + cls.__module__[len(_PACKAGE):], cls.__qualname__


def _in_package(module_name):
    return module_name == _PACKAGE or module_name.startswith(_PACKAGE + ".")


def _classes():
    """Every class defined in vfw.torch and bound in one of its modules (once each)."""
    found = {}
    for module_name, module in list(sys.modules.items()):
        if module is None or not _in_package(module_name):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type) and _in_package(value.__module__):
                found.setdefault(id(value), value)
    return list(found.values())


def install():
    """Rename vfw.torch's classes to torch's names and keep their instances picklable (run once)."""
    for cls in _classes():
        name = _torch_name(cls)
        if name is not None:
            rename(cls, *name)
