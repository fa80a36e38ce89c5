"""Array ops: shapes, joining, gathering and scattering, slicing (Tensor.__getitem__), sorting."""

NAMESPACES = {}
TENSOR_METHODS = {}
