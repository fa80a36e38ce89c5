"""``torch.fx.Interpreter`` (run a graph node by node) and ``Transformer`` (rebuild it while running)."""

from vfw.frontends.torch.fx.graph import Graph
from vfw.frontends.torch.fx.node import map_aggregate, map_arg
from vfw.frontends.torch.fx.proxy import Proxy

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs a GraphModule's graph one node at a time through overridable per-opcode methods.

    Parameters
    ----------
    module : Module
        The module whose graph runs (attributes and submodules are looked up on it).
    garbage_collect_values : bool
        Drop each value after its last use.
    graph : Graph, optional
        The graph to run instead of ``module.graph``.
    """

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env = {}
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        self.user_to_last_uses = {}
        seen = set()
        for node in reversed(self.graph.nodes):
            for used in node.all_input_nodes:
                if used not in seen:
                    seen.add(used)
                    self.user_to_last_uses.setdefault(node, []).append(used)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """Run the graph on ``args``; returns the output node's value."""
        self.env = dict(initial_env) if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            self.env[node] = self.run_node(node)
            if self.garbage_collect_values:
                for used in self.user_to_last_uses.get(node, []):
                    del self.env[used]
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list):
        """``run(*args_list)`` after clearing ``args_list``."""
        args = list(args_list)
        args_list.clear()
        return self.run(*args)

    def run_node(self, n):
        """Compute one node: fetch its arguments from the environment and call the opcode's method."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # -- per-opcode behaviour ----------------------------------------------------------------------
    def placeholder(self, target, args, kwargs):
        """The next positional input (the default when inputs ran out)."""
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, "
                               "but one was not passed in!") from None

    def get_attr(self, target, args, kwargs):
        """Attribute ``target`` (dotted path) of the module."""
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        """``target(*args, **kwargs)``."""
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        """``args[0].target(*args[1:], **kwargs)``."""
        receiver, *rest = args
        return getattr(receiver, target)(*rest, **kwargs)

    def call_module(self, target, args, kwargs):
        """The submodule at path ``target`` called on the arguments."""
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        """The graph's result."""
        return args[0]

    # -- helpers -----------------------------------------------------------------------------------
    def fetch_attr(self, target):
        """The object at dotted path ``target`` of the module."""
        obj = self.module
        for i, part in enumerate(target.split(".")):
            if not hasattr(obj, part):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(target.split('.')[:i + 1])}")
            obj = getattr(obj, part)
        return obj

    def fetch_args_kwargs_from_env(self, n):
        """``n``'s args and kwargs with every node replaced by its computed value."""
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n):
        """``args`` with every node replaced by its value in the environment."""
        def value_of(node):
            if node not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {node}! Run Graph.lint() to diagnose "
                                   "such issues")
            return self.env[node]
        return map_arg(args, value_of)


class Transformer(Interpreter):
    """Builds a new graph while interpreting: each opcode method returns a Proxy in the new graph.

    Override ``call_function`` & co. to emit something else; :meth:`transform` returns the GraphModule.
    """

    def __init__(self, module):
        from vfw.frontends.torch.fx._symbolic_trace import Tracer

        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = Tracer()
        self.tracer.graph = self.new_graph
        self.tracer.root = module
        self.tracer._module_stack = []
        self.tracer.tensor_attrs = {}

    def placeholder(self, target, args, kwargs):
        """A placeholder of the same name (and default) in the new graph."""
        default = args if args else ()
        return Proxy(self.new_graph.create_node("placeholder", target, default, {}), self.tracer)

    def get_attr(self, target, args, kwargs):
        """A get_attr node of the same target."""
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_function(self, target, args, kwargs):
        """A call_function node of the same target."""
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def call_method(self, target, args, kwargs):
        """A call_method node of the same target."""
        return self.tracer.create_proxy("call_method", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        """A call_module node of the same target."""
        return self.tracer.create_proxy("call_module", target, args, kwargs)

    def run_node(self, n):
        result = super().run_node(n)
        if isinstance(result, Proxy) and n.op != "output":
            result.node.meta = dict(n.meta)
        return result

    def transform(self):
        """Run the transformation and return a GraphModule of the new graph."""
        from vfw.frontends.torch.fx._symbolic_trace import Patcher, patch_namespaces
        from vfw.frontends.torch.fx.graph_module import GraphModule

        # torch functions called on Proxies by overridden methods record nodes, as while tracing
        patcher = Patcher()
        try:
            patch_namespaces(patcher)
            result = super().run(enable_io_processing=False)
        finally:
            patcher.restore()
        if result is not None:
            self.new_graph.output(map_aggregate(result, lambda v: v.node if isinstance(v, Proxy) else v))
        return GraphModule(self.module, self.new_graph)
