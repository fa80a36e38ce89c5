"""``torch.export.export``'s refusal of Python control flow on tensor data.

torch exports with symbolic values: a Python ``bool``/``int``/``float``/index conversion of a value computed
from the inputs (or the parameters) has no single answer, and torch raises ``GuardOnDataDependentSymNode``
rather than baking in the example's branch.  vfw traces concretely, so while ``export`` traces (``exporting``
is non-empty) the tensor conversions ask the trace whether the value varies between runs, and raise the same.
"""

from vfw.core.graph.trace import current_trace

exporting = []  # non-empty while torch.export.export traces (the conversions' cheap check)


class GuardOnDataDependentSymNode(RuntimeError):  # noqa: N818  (torch's name)
    """A Python decision on a data-dependent value during ``torch.export.export`` (torch's RuntimeError)."""


GuardOnDataDependentSymNode.__module__ = "torch.fx.experimental.symbolic_shapes"


def check(tensor, conversion):
    """Raise :class:`GuardOnDataDependentSymNode` when ``tensor``'s value varies between runs of the export
    being traced; ``conversion`` is ``"bool"`` (a branch) or ``"number"`` (``int``/``float``/an index)."""
    trace = current_trace()
    if trace is None or not trace.varies(tensor):
        return
    # torch names the unknown value by a fresh symbol: u0 for the first one
    expression = "Eq(u0, 1)" if conversion == "bool" else "u0"
    raise GuardOnDataDependentSymNode(
        f"Could not guard on data-dependent expression {expression} (unhinted: {expression}).  (Size-like "
        "symbols: none)\n\nconsider using data-dependent friendly APIs such as guard_or_false, guard_or_true and "
        "statically_known_true.")
