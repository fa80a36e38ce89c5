"""keras.ops: Keras 3's backend-agnostic operations, over vfw.tensorflow.

The functions live in ``numpy_*`` (numpy-like math, arrays, reductions, creation), ``linalg``,
``nn`` / ``nn_conv`` / ``nn_layers`` (activations, losses, normalization, convolution, pooling,
attention), ``math`` and
``core`` (conversion, casting, control flow, slicing); ``_common`` has the dtype promotion and
the symbolic (KerasTensor) dispatch they share.
"""

import inspect

from vfw.frontends.tensorflow.keras.src.ops import (
    core,
    einops,
    jvp,
    linalg,
    math,
    math_extra,
    math_fft,
    nn,
    nn_conv,
    nn_extra,
    nn_layers,
    numpy_array,
    numpy_counting,
    numpy_creation,
    numpy_elementwise,
    numpy_extra,
    numpy_misc,
    numpy_reduce,
    numpy_signal,
)

_MODULES = (numpy_elementwise, numpy_reduce, numpy_creation, numpy_array, numpy_extra, linalg, nn, nn_conv, nn_layers,
            math, core, numpy_signal, numpy_counting, numpy_misc, nn_extra, math_extra, math_fft, einops, jvp)


def _public_functions(module):
    """The public callables a module defines (its own, not those it imports)."""
    return {name: value for name, value in vars(module).items()
            if not name.startswith("_") and callable(value) and not inspect.isclass(value)
            and getattr(value, "__module__", None) == module.__name__}


_FUNCTIONS = {}
for _module in _MODULES:
    _FUNCTIONS.update(_public_functions(_module))
globals().update(_FUNCTIONS)

_LINALG = ["cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "lstsq", "lu_factor", "matrix_rank",
           "norm", "pinv", "qr", "solve", "solve_triangular", "svd"]
_PRODUCTS = ["cross", "dot", "einsum", "inner", "matmul", "outer", "slogdet", "tensordot", "vdot"]


def _names_of(*modules):
    return sorted(name for module in modules for name in _public_functions(module))


# keras.ops has every function; keras.ops.nn, keras.ops.linalg and keras.ops.numpy group them as Keras does.
API = {"ops": sorted(_FUNCTIONS), "ops.nn": sorted([*_names_of(nn, nn_conv, nn_layers, nn_extra), "polar"]),
       "ops.linalg": _LINALG,
       "ops.numpy": sorted([*_names_of(numpy_elementwise, numpy_reduce, numpy_creation, numpy_array, numpy_extra,
                                      numpy_signal, numpy_counting, numpy_misc),
                            *_PRODUCTS, "angle"])}
