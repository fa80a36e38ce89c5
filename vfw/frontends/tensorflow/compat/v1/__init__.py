"""tf.compat.v1: the parts of TF 1's API that TF 2-era scripts still call, over vfw's TF 2 implementation.

Provided:

- every name TensorFlow 2.21 itself shares between ``tf.compat.v1`` and TF 2 (the same objects, listed in
  ``_shared_names``), at the top level and in the submodules ``nn``, ``math``, ``data``, ``image``...: aliases of
  vfw's TF 2 functions, limited to the names that are identical in TF (``tf.compat.v1.nn.dropout`` takes
  ``keep_prob`` in TF 1, so it is not served as TF 2's ``dropout``);
- ``logging``, ``flags`` and ``app`` (over absl-py, as TF's), ``keras`` (``tf.keras``), ``compat``;
- ``set_random_seed`` (TF's eager behaviour: the global seed), ``executing_eagerly``, ``enable_eager_execution``
  and ``enable_v2_behavior`` (no-ops), ``ConfigProto``/``GPUOptions`` (accepted options), ``Dimension``,
  ``dimension_value``/``dimension_at_index``, TF 1's random initializers;
- as NotImplementedError naming what to use: ``Session``, ``placeholder``, ``disable_eager_execution``,
  ``disable_v2_behavior``, ``variable_scope``/``get_variable``, ``train.AdamOptimizer`` and the other TF 1
  optimizers.

Any other name raises AttributeError saying vfw does not provide it yet, rather than giving TF 2's behaviour where
TF 1's differs.
"""

import importlib as _importlib
import sys as _sys
import types as _types

import vfw.frontends.tensorflow as _tf
from vfw.frontends.tensorflow import compat  # noqa: F401  (tf.compat.v1.compat)
from vfw.frontends.tensorflow._context_ops import executing_eagerly  # noqa: F401
from vfw.frontends.tensorflow._random_ops import set_seed as set_random_seed  # noqa: F401
from vfw.frontends.tensorflow.compat import dimension_at_index, dimension_value  # noqa: F401
from vfw.frontends.tensorflow.compat._dimension import Dimension  # noqa: F401
from vfw.frontends.tensorflow.compat.v1 import _init_ops_v1, _tf1_signatures, logging  # noqa: F401
from vfw.frontends.tensorflow.compat.v1._config_proto import ConfigProto, GPUOptions  # noqa: F401
from vfw.frontends.tensorflow.compat.v1._graph_mode import (  # noqa: F401
    TF1_OPTIMIZERS as _TF1_OPTIMIZERS,
)
from vfw.frontends.tensorflow.compat.v1._graph_mode import (  # noqa: F401
    InteractiveSession,
    Session,
    disable_eager_execution,
    disable_v2_behavior,
    enable_eager_execution,
    enable_v2_behavior,
    executing_eagerly_outside_functions,
    get_variable,
    placeholder,
    variable_scope,
)
from vfw.frontends.tensorflow.compat.v1._shared_names import SHARED_WITH_V2 as _SHARED_WITH_V2


def _not_provided(module_name, name):
    """vfw's AttributeError for a tf.compat.v1 name it lacks (``module_name`` as TF spells the module)."""
    public = "vfw." + module_name
    return AttributeError(f"module '{module_name}' has no attribute '{name}' ({public} does not provide it yet)",
                          name=name)


def _shared(namespace, names):
    """``{name: vfw's object}`` for the names of ``names`` that vfw's TF 2 ``namespace`` has."""
    found = {}
    for name in names:
        try:
            found[name] = getattr(namespace, name)
        except AttributeError:
            pass  # not in vfw yet: left to the "does not provide" error
    return found


def _submodule(name, extra=None):
    """The module ``tf.compat.v1.<name>``: the names TF shares with ``tf.<name>``, plus ``extra``."""
    served_name = f"tensorflow.compat.v1.{name}"
    module = _types.ModuleType(f"{__name__}.{name}", f"{served_name}: the names TF 2.21 shares with tf.{name}.")
    module.__dict__.update(_shared(getattr(_tf, name), _SHARED_WITH_V2[name]))
    module.__dict__.update(extra or {})

    def missing(attribute):
        raise _not_provided(served_name, attribute)

    module.__getattr__ = missing
    _sys.modules[module.__name__] = module  # importable as tensorflow.compat.v1.<name> too
    return module


random_normal_initializer = _init_ops_v1.RandomNormal
random_uniform_initializer = _init_ops_v1.RandomUniform
truncated_normal_initializer = _init_ops_v1.TruncatedNormal
variance_scaling_initializer = _init_ops_v1.VarianceScaling
glorot_uniform_initializer = _init_ops_v1.GlorotUniform
glorot_normal_initializer = _init_ops_v1.GlorotNormal

globals().update(_shared(_tf, _SHARED_WITH_V2[""]))
# TF 1 signatures of TF 2 functions (reduction_indices, keep_dims, dimension...), in the namespaces TF has them
_TF1_SIGNATURES = {namespace: {name: getattr(_tf1_signatures, name) for name in names}
                   for namespace, names in _tf1_signatures.NAMESPACES.items()}
globals().update(_TF1_SIGNATURES[""])

_SUBMODULES = tuple(name for name in _SHARED_WITH_V2 if name)


def __getattr__(name):
    # Submodules are made on first use: tf.data, tf.distribute, tf.test... load lazily in vfw.
    if name in ("flags", "app"):
        return _importlib.import_module(f"{__name__}.{name}")
    if name == "keras":
        return _tf.keras
    if name in _SUBMODULES:
        module = _submodule(name, _TF1_OPTIMIZERS if name == "train" else _TF1_SIGNATURES.get(name))
        globals()[name] = module
        return module
    raise _not_provided("tensorflow.compat.v1", name)


def __dir__():
    return sorted({*globals(), "flags", "app", "keras", *_SUBMODULES})
