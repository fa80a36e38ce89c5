"""``torch.fx.Graph``: a doubly linked list of Nodes with torch's editing, printing and checking API."""

import contextlib
import inspect

from vfw.frontends.torch.fx._codegen import python_code
from vfw.frontends.torch.fx._names import Namespace, target_to_name
from vfw.frontends.torch.fx.node import Node, map_arg

__all__ = ["Graph", "PythonCode"]


class PythonCode:
    """Source of a generated ``forward`` (``src``) and the globals it runs with (``globals``)."""

    def __init__(self, src, globals_):
        self.src = src
        self.globals = globals_


class _NodeList:
    """Iterable view of a graph's nodes (forward or reversed), safe against erasing the current node."""

    def __init__(self, root, reverse=False):
        self._root = root
        self._reverse = reverse

    def __iter__(self):
        step = "_prev" if self._reverse else "_next"
        node = getattr(self._root, step)
        while node is not self._root:
            following = getattr(node, step)
            if not node._erased:
                yield node
            node = following

    def __len__(self):
        return sum(1 for _ in self)

    def __reversed__(self):
        return iter(_NodeList(self._root, not self._reverse))


class Graph:
    """The IR of torch.fx: placeholders, attribute reads, calls and one output, in execution order.

    Parameters
    ----------
    owning_module : Module, optional
        The GraphModule this graph belongs to (set by GraphModule).
    tracer_cls : type, optional
        The tracer class that produced it.
    """

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._namespace = Namespace()
        self._insert = self._root.prepend
        self.owning_module = owning_module
        self._tracer_cls = tracer_cls

    @property
    def nodes(self):
        """The nodes in order (iterable, reversible, ``len``)."""
        return _NodeList(self._root)

    # -- creating nodes ----------------------------------------------------------------------------
    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Insert a new node at the insertion point and return it.

        Parameters
        ----------
        op : str
            The opcode (``call_function``, ``call_module``...).
        target : str or callable
            What the node runs.
        args, kwargs : tuple, dict, optional
            Its arguments (other nodes of this graph among them).
        name : str, optional
            Name to use (made unique); derived from ``target`` by default.
        """
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        map_arg((args, kwargs), self._check_owned)
        candidate = name if name is not None else target_to_name(target)
        node = Node(self, self._namespace.create_name(candidate), op, target, args, kwargs, type_expr)
        self._insert(node)
        return node

    def _check_owned(self, node):
        if node.graph is not self:
            raise RuntimeError(f"Argument '{node}' of Node being created is not a node of this Graph")

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        """A graph input named ``name`` (with ``default_value`` when given)."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        """Read attribute ``qualified_name`` (dotted path) of the owning module."""
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        """Call the submodule at dotted path ``module_name``."""
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        """Call method ``method_name`` of ``args[0]``."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None, name=None):
        """Call the Python callable ``the_function``."""
        return self.create_node("call_function", the_function, args, kwargs, name=name, type_expr=type_expr)

    def output(self, result, type_expr=None):
        """The graph's result (a node or a structure of nodes)."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda n: n):
        """Copy ``node`` of another graph here, mapping its input nodes through ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        copy = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        copy.meta = dict(node.meta)
        return copy

    def graph_copy(self, other, value_remap, return_output_node=False):
        """Copy all nodes of ``other`` but its output here; returns the output's value (mapped)."""
        for node in other.nodes:
            if node in value_remap:
                continue
            if node.op == "output":
                result = map_arg(node.args[0], lambda n: value_remap[n])
                return (result, node) if return_output_node else result
            value_remap[node] = self.node_copy(node, lambda n: value_remap[n])
        return None

    # -- insertion point ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def _inserting(self, insert):
        previous, self._insert = self._insert, insert
        try:
            yield
        finally:
            self._insert = previous

    def inserting_before(self, node=None):
        """Context manager: new nodes go just before ``node`` (at the start of the graph when None)."""
        if node is None:
            return self.inserting_after(self._root)
        return self._inserting(node.prepend)

    def inserting_after(self, node=None):
        """Context manager: new nodes go just after ``node`` (at the end of the graph when None)."""
        if node is None:
            return self.inserting_before(self._root)

        def insert(new, anchor=[node]):  # noqa: B006 - successive insertions stay in order
            anchor[0].append(new)
            anchor[0] = new

        return self._inserting(insert)

    # -- removing nodes ----------------------------------------------------------------------------
    def erase_node(self, to_erase):
        """Remove a node without users from the graph."""
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} "
                               f"users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._unlink()
        to_erase._erased = True
        to_erase._update_args_kwargs((), {})
        self._namespace.release(to_erase.name)

    def eliminate_dead_code(self, is_impure_node=None):
        """Erase nodes whose values nobody reads and that have no side effect; True when any was erased."""
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not node.users and not impure:
                self.erase_node(node)
                changed = True
        return changed

    # -- checking and printing ---------------------------------------------------------------------
    def lint(self):
        """Check the graph's invariants (names unique, inputs defined before use, use lists consistent)."""
        seen_names, defined = set(), set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
            for used in node.all_input_nodes:
                if used.graph is not self:
                    raise RuntimeError(f"Argument '{used}' of Node '{node}' does not belong to this Graph")
                if used not in defined:
                    raise RuntimeError(f"Argument '{used}' of Node '{node}' was used before it has been defined!")
                if node not in used.users:
                    raise RuntimeError(f"Node '{node}' is missing from the users of its input '{used}'")
            defined.add(node)
        if self.owning_module is not None:
            for node in self.nodes:
                if node.op in ("get_attr", "call_module"):
                    self._check_target_exists(node)

    def _check_target_exists(self, node):
        obj = self.owning_module
        for part in node.target.split("."):
            if not hasattr(obj, part):
                kind = "module" if node.op == "call_module" else "attribute"
                raise RuntimeError(f"Node {node} target {node.target} references nonexistent {kind} {part}")
            obj = getattr(obj, part)

    def python_code(self, root_module="self"):
        """The generated ``forward`` source and its globals (a PythonCode)."""
        return PythonCode(*python_code(self))

    def print_tabular(self):
        """Print the nodes as a table of opcode, name, target, args and kwargs."""
        rows = [[n.op, n.name, str(n.target), str(n.args), str(n.kwargs)] for n in self.nodes]
        header = ["opcode", "name", "target", "args", "kwargs"]
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(5)]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *rows]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        print("\n".join(lines))

    def find_nodes(self, *, op, target=None):
        """The nodes with opcode ``op`` (and ``target`` when given)."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    def __str__(self):
        lines = ["graph():"]
        lines += [f"    {text}" for text in (n.format_node() for n in self.nodes) if text]
        return "\n".join(lines)

    def __repr__(self):
        return object.__repr__(self)

    def __deepcopy__(self, memo=None):
        copy = Graph(tracer_cls=self._tracer_cls)
        output = copy.graph_copy(self, {}, return_output_node=True)
        if output is not None:
            copy.output(output[0], output[1].type)
        return copy
