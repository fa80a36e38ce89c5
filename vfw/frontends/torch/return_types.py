"""torch.return_types: the named tuples torch functions return (``values``/``indices`` and friends).

Each type is a tuple subclass with read-only named fields, built like torch's structseq
types: ``torch.return_types.max((values, indices))`` makes one, it unpacks and indexes as a
tuple, prints as ``torch.return_types.max(values=..., indices=...)`` and pickles.
"""

__all__ = []

_FIELDS = {
    "aminmax": ("min", "max"),
    "cummax": ("values", "indices"),
    "cummin": ("values", "indices"),
    "frexp": ("mantissa", "exponent"),
    "geqrf": ("a", "tau"),
    "histogram": ("hist", "bin_edges"),
    "histogramdd": ("hist", "bin_edges"),
    "kthvalue": ("values", "indices"),
    "linalg_cholesky_ex": ("L", "info"),
    "linalg_eig": ("eigenvalues", "eigenvectors"),
    "linalg_eigh": ("eigenvalues", "eigenvectors"),
    "linalg_inv_ex": ("inverse", "info"),
    "linalg_ldl_factor": ("LD", "pivots"),
    "linalg_ldl_factor_ex": ("LD", "pivots", "info"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
    "linalg_lu": ("P", "L", "U"),
    "linalg_lu_factor": ("LU", "pivots"),
    "linalg_lu_factor_ex": ("LU", "pivots", "info"),
    "linalg_qr": ("Q", "R"),
    "linalg_slogdet": ("sign", "logabsdet"),
    "linalg_solve_ex": ("result", "info"),
    "linalg_svd": ("U", "S", "Vh"),
    "lu_unpack": ("P", "L", "U"),
    "max": ("values", "indices"),
    "median": ("values", "indices"),
    "min": ("values", "indices"),
    "mode": ("values", "indices"),
    "nanmedian": ("values", "indices"),
    "qr": ("Q", "R"),
    "slogdet": ("sign", "logabsdet"),
    "sort": ("values", "indices"),
    "svd": ("U", "S", "V"),
    "topk": ("values", "indices"),
    "triangular_solve": ("solution", "cloned_coefficient"),
}


class _ReturnType(tuple):
    """Base of the return types: a fixed-length tuple whose items also have names."""

    __slots__ = ()
    _names = ()

    def __new__(cls, sequence):
        items = tuple(sequence)
        if len(items) != len(cls._names):
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {len(cls._names)}-sequence "
                            f"({len(items)}-sequence given)")
        return tuple.__new__(cls, items)

    def __repr__(self):
        body = ",\n".join(f"{name}={value!r}" for name, value in zip(self._names, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self):
        return type(self), (tuple(self),)


def _field(i, name):
    def get(self):
        return tuple.__getitem__(self, i)

    get.__name__ = name
    return property(get, doc=f"Item {i} of the tuple.")


def _make(name, fields):
    namespace = {"__slots__": (), "_names": fields, "__match_args__": fields, "n_fields": len(fields),
                 "n_sequence_fields": len(fields), "n_unnamed_fields": 0, "__module__": __name__,
                 "__doc__": f"torch.return_types.{name}: a tuple ({', '.join(fields)})."}
    namespace.update({field: _field(i, field) for i, field in enumerate(fields)})
    return type(name, (_ReturnType,), namespace)


all_return_types = []
for _name, _fields in _FIELDS.items():
    for _variant in (_name, _name + "_out"):
        globals()[_variant] = _make(_variant, _fields)
        all_return_types.append(globals()[_variant])
        __all__.append(_variant)
del _name, _fields, _variant
