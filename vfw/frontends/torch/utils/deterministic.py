"""``torch.utils.deterministic``: the ``fill_uninitialized_memory`` flag (default True).

Torch fills the memory of ``torch.empty``-like results with NaN (or the largest integer) when both this flag and
``torch.use_deterministic_algorithms(True)`` are on.  vfw records the flag; its ``empty`` results come from numpy.
"""

import sys
import types


class _Deterministic(types.ModuleType):
    """The module's class: ``fill_uninitialized_memory`` is a property that accepts only booleans."""

    _fill_uninitialized_memory = True

    @property
    def fill_uninitialized_memory(self):
        """bool: whether uninitialized memory is filled when deterministic algorithms are on."""
        return _Deterministic._fill_uninitialized_memory

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode):
        if not isinstance(mode, bool):
            raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")
        _Deterministic._fill_uninitialized_memory = mode


sys.modules[__name__].__class__ = _Deterministic
