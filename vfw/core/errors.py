"""Engine error types.

Every failure the engine reports is a :class:`VfwError`.  The concrete classes
also derive from the built-in exception a Python user expects (``ValueError``
for bad shapes and attribute values, ``TypeError`` for bad dtypes, ...), so
frontends can let them through or translate them to their framework's types.
"""


class VfwError(Exception):
    """Base class of every error raised by the vfw engine."""


class UnknownOpError(VfwError, LookupError):
    """An op type that is not in the registry."""


class OpAttributeError(VfwError, ValueError):
    """A missing, unknown or invalid op attribute."""


class OpInputError(VfwError, ValueError):
    """Wrong number of inputs, or an input whose value is invalid."""


class ShapeError(VfwError, ValueError):
    """Input shapes the op cannot work with."""


class DTypeError(VfwError, TypeError):
    """Input dtypes the op does not accept, or that disagree with each other."""


class IndexOutOfRangeError(VfwError, IndexError):
    """An index input that points outside the indexed tensor."""


class OutOfMemoryError(VfwError, MemoryError):
    """A result too large to allocate."""


class InaccessibleValueError(VfwError, ValueError):
    """A value computed inside a traced control-flow body (a loop body, a branch) used outside it (TF's
    ``InaccessibleTensorError``): the op running the body returns only its declared outputs."""


class TraceError(VfwError, RuntimeError):
    """A traced function did something its graph cannot replay (an in-place write the trace could not see...)."""
