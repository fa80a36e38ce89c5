"""The op family modules of vfw.tensorflow and how their names reach TF's namespaces.

Each family module lists, in ``NAMESPACES``, which of its functions appear in which TF
namespace (``"tf"`` for the top level, ``"math"``, ``"linalg"``, ``"nn"``, ``"random"``...),
and in ``TENSOR_METHODS`` the methods and operators it gives ``tf.Tensor``.  The namespace
modules (``tf.math`` is ``math.py``...) and the package ``__init__`` gather them from here.
"""

from vfw.frontends.tensorflow import (
    _array_ops,
    _control_flow,
    _creation,
    _function,
    _gradients,
    _linalg_ops,
    _math_ops,
    _module,
    _nn_conv,
    _nn_ops,
    _random_ops,
    _variables,
)

FAMILIES = [_creation, _math_ops, _array_ops, _linalg_ops, _nn_ops, _nn_conv, _random_ops, _variables, _module,
            _gradients, _function, _control_flow]


def names(namespace):
    """Every public name the families give ``namespace``, as a dict name -> object."""
    found = {}
    for family in FAMILIES:
        for name in family.NAMESPACES.get(namespace, ()):
            found[name] = getattr(family, name)
    return found


def install(tensor_class):
    """Bind every family's methods and operators onto ``tensor_class``."""
    for family in FAMILIES:
        for name, fn in getattr(family, "TENSOR_METHODS", {}).items():
            setattr(tensor_class, name, fn)
