"""The Tensor method table: each function family module contributes its ``TENSOR_METHODS``."""

from vfw.frontends.torch import (
    _arithmetic,
    _buffers,
    _comparison,
    _complex,
    _copy_variants,
    _creation,
    _gamma_inc,
    _gradient,
    _histogram,
    _index_builders,
    _indexing,
    _joining,
    _layout,
    _linalg,
    _linalg_decomp,
    _linalg_extras,
    _linalg_lu,
    _linalg_norms,
    _linalg_qr_lu,
    _lowrank,
    _masked,
    _native_extras,
    _nn_extras,
    _numeric,
    _pointwise,
    _random,
    _reduction,
    _runtime_extras,
    _scan,
    _scatter,
    _searching,
    _segment_reduce,
    _shape,
    _sorting,
    _special_functions,
    _statistics,
    _stft,
    _storage,
    _strided,
    _tensor_extras,
    _tensor_misc,
    _tensor_str,
    _typing,
    _windows,
)

# Function family modules, each with ``__all__`` (torch.* functions) and ``TENSOR_METHODS``
# (name -> function taking the tensor first).
FAMILIES = [
    _creation, _random, _tensor_str, _pointwise, _arithmetic, _comparison,
    _indexing, _scatter, _masked, _reduction, _scan, _sorting, _searching, _statistics,
    _linalg, _linalg_decomp, _linalg_norms,
    _special_functions, _numeric,
    _shape, _joining, _layout, _typing, _index_builders, _strided,
    _tensor_misc, _windows, _nn_extras, _histogram, _linalg_extras, _linalg_lu, _buffers, _gamma_inc,
    _tensor_extras, _copy_variants, _linalg_qr_lu, _complex, _stft,
    _gradient, _segment_reduce, _lowrank, _storage, _runtime_extras, _native_extras,
]


def install(tensor_class):
    """Bind every family's methods onto the Tensor class."""
    for module in FAMILIES:
        for name, fn in getattr(module, "TENSOR_METHODS", {}).items():
            setattr(tensor_class, name, fn)
