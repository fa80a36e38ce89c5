"""Graph mode: tracing to GraphDef, optimization passes, compiled execution, saving and loading."""

from vfw.core.errors import TraceError
from vfw.core.graph.assign import assign
from vfw.core.graph.executor import CompiledGraph
from vfw.core.graph.function import ConcreteFunction, Function, function, get_default_opt_level, set_default_opt_level
from vfw.core.graph.memory import memory_report, report_by_level
from vfw.core.graph.passes import optimize
from vfw.core.graph.serialize import load_graph, save_graph, validate_graph
from vfw.core.graph.trace import Trace, current_trace

__all__ = [
    "CompiledGraph", "ConcreteFunction", "Function", "Trace", "TraceError", "assign", "current_trace", "function",
    "get_default_opt_level", "load_graph", "memory_report", "optimize", "report_by_level", "save_graph",
    "set_default_opt_level", "validate_graph",
]
