"""``torch.fx``: symbolic tracing of modules into Graphs, graph editing and Python code generation.

``symbolic_trace(model)`` runs ``forward`` on :class:`Proxy` values and records a :class:`Graph` of
``placeholder`` / ``get_attr`` / ``call_module`` / ``call_function`` / ``call_method`` / ``output`` nodes
named as torch names them; :class:`GraphModule` regenerates torch's Python text (``code``) from the graph
and runs it; :class:`Interpreter` / :class:`Transformer` run or rebuild a graph node by node.
"""

from vfw.frontends.torch.fx import passes, subgraph_rewriter  # noqa: F401
from vfw.frontends.torch.fx._symbolic_trace import Tracer, symbolic_trace, wrap
from vfw.frontends.torch.fx.graph import Graph
from vfw.frontends.torch.fx.graph_module import GraphModule
from vfw.frontends.torch.fx.interpreter import Interpreter, Transformer
from vfw.frontends.torch.fx.node import Node, map_arg
from vfw.frontends.torch.fx.proxy import Proxy
from vfw.frontends.torch.fx.subgraph_rewriter import replace_pattern

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Node", "map_arg", "Proxy", "Interpreter",
           "Transformer", "replace_pattern"]
