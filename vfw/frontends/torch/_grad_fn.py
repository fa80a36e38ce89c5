"""``grad_fn`` objects: views of the engine's autograd nodes named as torch's (``MulBackward0``), with their
``next_functions`` (``AccumulateGrad`` for leaves)."""

import functools

from vfw.frontends.torch import _grad_fn_names, _saved_tensors

# Engine op names -> torch's backward node names (others show as <Op>Backward0).
_GRAD_FN_NAMES = {"MatMul": "Mm", "Gemm": "Addmm", "ReduceSum": "Sum", "ReduceMean": "Mean", "Cast": "ToCopy",
                  "Reshape": "View", "Transpose": "Permute", "Identity": "Clone", "Expand": "Expand",
                  "ReduceMax": "Max", "ReduceMin": "Min", "Pow": "Pow", "Softmax": "Softmax",
                  "LogSoftmax": "LogSoftmax", "Where": "Where", "Relu": "Relu", "Concat": "Cat", "Gather": "Index",
                  "Slice": "Slice", "Unsqueeze": "Unsqueeze", "Squeeze": "Squeeze", "Neg": "Neg", "CumSum": "Cumsum",
                  "GatherElements": "Gather", "Tile": "Repeat", "Log1p": "Log1P", "ReduceL2": "LinalgVectorNorm",
                  "Clip": "Clamp", "Conv": "Convolution", "ConvTranspose": "Convolution",
                  "MaxPool": "MaxPool2DWithIndices", "AveragePool": "AvgPool2D",
                  "BatchNormalization": "NativeBatchNorm", "LayerNormalization": "NativeLayerNorm",
                  "GroupNormalization": "NativeGroupNorm",
                  "SoftmaxCrossEntropyLoss": "NllLoss", "NegativeLogLikelihoodLoss": "NllLoss"}


class GradFn:
    """``tensor.grad_fn``: a view of the recorded op that produced a tensor."""

    __slots__ = ("_node", "_slot")

    def __init__(self, node, slot=0):
        self._node, self._slot = node, slot

    def name(self):
        """str: the node's name, e.g. ``'AddBackward0'``."""
        return node_name(self._node)

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self._node))}>"

    def __eq__(self, other):
        return isinstance(other, GradFn) and other._node is self._node

    def __hash__(self):
        return hash(id(self._node))

    @property
    def next_functions(self):
        """tuple[(GradFn or AccumulateGrad or None, int)]: per input, the node that produced it and which of that
        node's outputs it is; a leaf that requires grad gives its ``AccumulateGrad``, a constant ``(None, 0)``."""
        edges = _grad_fn_names.outer_edges(self._node) or self._node.edges
        return tuple(_next_function(edge) for edge in edges)

    def __getattr__(self, name):
        # torch's saved-value attributes (_saved_self, _raw_saved_self, _saved_exponent...)
        if name.startswith(("_saved_", "_raw_saved_")):
            return _saved_tensors.saved_attribute(self._node, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        return [*super().__dir__(), *_saved_tensors.attribute_names(self._node)]

    @property
    def metadata(self):
        """dict: free storage attached to the node (kept as long as the node)."""
        return _saved_tensors.node_state(self._node).metadata

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after the node computed its gradients; a returned tuple replaces
        ``grad_inputs`` (one entry per ``next_functions`` entry, None where no gradient is computed).

        Returns
        -------
        RemovableHandle
            ``remove()`` unregisters ``fn``.
        """
        return _add_node_hook(self._node, "post_hooks", fn)

    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` before the node computes its gradients; a returned tuple replaces them.

        Returns
        -------
        RemovableHandle
            ``remove()`` unregisters ``fn``.
        """
        return _add_node_hook(self._node, "pre_hooks", fn)


def _add_node_hook(node, kind, fn):
    from vfw.frontends.torch.utils.hooks import RemovableHandle  # (imports the frontend: bound on use)

    state = _saved_tensors.node_state(node)
    hooks = getattr(state, kind)
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    state.attach()
    return handle


class AccumulateGrad:
    """The node torch shows for a leaf that requires grad: where backward accumulates into ``variable.grad``."""

    __slots__ = ("variable",)
    next_functions = ()

    def __init__(self, variable):
        self.variable = variable

    def name(self):
        """str: torch's C++ name of the node."""
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self.variable))}>"

    def __eq__(self, other):
        return isinstance(other, AccumulateGrad) and other.variable is self.variable

    def __hash__(self):
        return hash(id(self.variable))


def _next_function(edge):
    """One ``next_functions`` entry from a node's edge (``None``, ``(node, slot)`` or ``(None, leaf)``)."""
    if edge is None:
        return None, 0
    source, slot_or_leaf = edge
    if source is None:
        return AccumulateGrad(slot_or_leaf), 0
    return grad_fn_of(source, slot_or_leaf), slot_or_leaf


def node_name(node):
    if node.op is None:
        return f"{getattr(node.backward_fn, 'function_name', 'CustomFunction')}Backward"
    recorded = _grad_fn_names.recorded_name(node)
    if recorded is not None:
        return recorded
    op_type = node.op.schema.op_type
    return f"{_GRAD_FN_NAMES.get(op_type, op_type)}Backward0"


@functools.cache
def _grad_fn_class(name, module):
    return type(name, (GradFn,), {"__slots__": (), "__module__": module})


def grad_fn_of(node, slot=0):
    """The ``grad_fn`` object of a node: an instance of a class named like torch's (``MulBackward0``), in torch's
    module (builtins for its C++ nodes, ``torch.autograd.function`` for a custom Function's)."""
    module = "torch.autograd.function" if node.op is None else "builtins"
    # torch's C++-only nodes are named "torch::autograd::CopySlices", their classes "CopySlices"
    return _grad_fn_class(node_name(node).rpartition("::")[2], module)(node, slot)
