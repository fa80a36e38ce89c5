"""``torch.fx.GraphModule``: a Module whose ``forward`` is Python generated from a Graph."""

import copy
import linecache

from vfw.frontends.torch.fx.graph import Graph
from vfw.frontends.torch.nn import Module

__all__ = ["GraphModule"]

_source_counter = [0]


def _copy_attr(source, destination, path):
    """Give ``destination`` the object at ``path`` of ``source``, creating plain Modules on the way."""
    *prefix, field = path.split(".")
    for part in prefix:
        from_obj = getattr(source, part)
        to_obj = getattr(destination, part, None)
        if from_obj is to_obj:
            return
        if to_obj is None:
            to_obj = Module()
            setattr(destination, part, to_obj)
        source, destination = from_obj, to_obj
    _set_member(destination, field, getattr(source, field))


def _set_member(module, name, value):
    from vfw.frontends.torch import Tensor
    from vfw.frontends.torch.nn import Parameter

    # A plain tensor attribute becomes a buffer, as in torch's GraphModule.
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        module.register_buffer(name, value)
    else:
        setattr(module, name, value)


def _set_path(root, path, value):
    *prefix, field = path.split(".")
    for part in prefix:
        if not hasattr(root, part):
            setattr(root, part, Module())
        root = getattr(root, part)
    _set_member(root, field, value)


class GraphModule(Module):
    """A Module running a Graph: ``forward`` is the Python source ``code`` generated from ``graph``.

    Each instance gets its own subclass named ``class_name`` (so ``forward`` can be regenerated per
    instance), as in torch.

    Parameters
    ----------
    root : Module or dict
        Where the submodules, parameters and buffers named by the graph's ``call_module`` and
        ``get_attr`` nodes are taken from (a dict maps those paths to the objects).
    graph : Graph
        The graph to run (owned by this module from now on).
    class_name : str
        Name of the generated class (shown by ``repr``).
    """

    def __new__(cls, *args, **kwargs):
        # One subclass per instance, so recompile() sets forward on this instance's class only.
        for base in cls.__mro__:
            if base.__dict__.get("_is_instance_class"):
                cls = base.__bases__[0]
                break
        name = kwargs.get("class_name", args[2] if len(args) > 2 else "GraphModule")
        instance_cls = type(name, (cls,), {"_is_instance_class": True})
        return super().__new__(instance_cls)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        self.__class__.__qualname__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node.name} referenced target {node.target} but that target "
                                           "was not provided in ``root``!")
                    _set_path(self, node.target, root[node.target])
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.graph = graph

    @property
    def graph(self):
        """The Graph this module runs; assigning one regenerates ``code`` and ``forward``."""
        return self._graph

    @graph.setter
    def graph(self, graph):
        if not isinstance(graph, Graph):
            raise TypeError(f"GraphModule.graph must be a Graph, got {type(graph).__name__}")
        object.__setattr__(self, "_graph", graph)
        graph.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The Python source of ``forward`` (torch's text)."""
        return self._code

    def recompile(self):
        """Regenerate ``code`` from ``graph`` and install it as this instance's ``forward``."""
        python_code = self._graph.python_code(root_module="self")
        object.__setattr__(self, "_code", python_code.src)
        _source_counter[0] += 1
        filename = f"<eval_with_key>.{_source_counter[0]}"
        # linecache lets tracebacks and inspect show the generated lines.
        linecache.cache[filename] = (len(python_code.src), None, python_code.src.splitlines(True), filename)
        namespace = dict(python_code.globals)
        exec(compile(python_code.src, filename, "exec"), namespace)
        type(self).forward = namespace["forward"]
        return python_code

    def print_readable(self, print_output=True, include_stride=False, include_device=False, colored=False):
        """``forward`` as a class listing, as torch prints it; returned as text."""
        signature, *statements = self._code[self._code.index("def forward"):].rstrip().split("\n")
        lines = [f"class {type(self).__name__}(torch.nn.Module):", f"    {signature}",
                 "        # No stacktrace found for following nodes", *(f"    {line}" for line in statements)]
        text = "\n".join(lines) + "\n"
        if print_output:
            print(text)
        return text

    def __str__(self):
        return super().__str__() + "\n" + self._code + "\n# To see more debug info, please use " \
            "`graph_module.print_readable()`"

    def __deepcopy__(self, memo):
        state = {n.target: copy.deepcopy(self._fetch(n.target), memo)
                 for n in self._graph.nodes if n.op in ("get_attr", "call_module")}
        result = GraphModule(state, copy.deepcopy(self._graph, memo), type(self).__name__)
        result.training = self.training
        return result

    def _fetch(self, path):
        obj = self
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    def __copy__(self):
        result = GraphModule(self, self._graph, type(self).__name__)
        result.training = self.training
        return result

    def __reduce__(self):
        raise NotImplementedError("vfw: pickling a GraphModule is not supported")
