"""Every TF function vfw.tensorflow implements is reachable in each namespace where TF 2.21 has it.

A name counts as implemented when any op family lists it (``NAMESPACES``) or any vfw namespace
module holds it; for each namespace, TF's public callables that are implemented must be there in
vfw too (``tf.nn.softplus`` as well as ``tf.math.softplus``). The ones vfw does not implement are
printed (run with ``-s``), not asserted.
"""

import inspect

import pytest

from compat_tests.tensorflow.harness import real, vtf
from vfw.frontends.tensorflow import _families

NAMESPACES = ["", "math", "nn", "linalg", "random", "bitwise", "dtypes", "debugging", "nest", "autodiff",
              "random.experimental", "nn.experimental"]


def _module(lib, namespace):
    for part in filter(None, namespace.split(".")):
        lib = getattr(lib, part, None)
    return lib


def _public_callables(module):
    return sorted(n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n))
                  and not inspect.ismodule(getattr(module, n)))


def _implemented():
    names = {n for family in _families.FAMILIES for listed in family.NAMESPACES.values() for n in listed}
    for namespace in NAMESPACES:
        module = _module(vtf, namespace)
        if module is not None:
            names.update(_public_callables(module))
    return names


IMPLEMENTED = _implemented()


@pytest.mark.parametrize("namespace", NAMESPACES, ids=lambda n: "tf" + ("." + n if n else ""))
def test_implemented_names_are_in_tf_namespaces(namespace):
    ours = _module(vtf, namespace)
    assert ours is not None, f"vfw.tensorflow has no namespace tf.{namespace}"
    theirs = _public_callables(_module(real, namespace))
    missing = [n for n in theirs if n in IMPLEMENTED and not hasattr(ours, n)]
    absent = [n for n in theirs if n not in IMPLEMENTED]
    print(f"\ntf.{namespace or '<top>'}: {len(theirs) - len(absent)}/{len(theirs)} implemented; not implemented: "
          f"{', '.join(absent) or '-'}")
    assert not missing, f"implemented in vfw but missing from tf.{namespace}: {missing}"

