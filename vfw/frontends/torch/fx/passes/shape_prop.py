"""``torch.fx.passes.shape_prop``: record each node's tensor shape and dtype by running the graph."""

from typing import NamedTuple

from vfw.frontends.torch.fx.interpreter import Interpreter
from vfw.frontends.torch.fx.node import map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]


class TensorMetadata(NamedTuple):
    """What ShapeProp stores in ``node.meta['tensor_meta']`` for a tensor value."""

    shape: object
    dtype: object
    requires_grad: bool
    stride: tuple
    memory_format: object
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result):
    from vfw.frontends.torch import contiguous_format

    memory_format = contiguous_format if result.is_contiguous() else None
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(), memory_format,
                          False, {})


class ShapeProp(Interpreter):
    """Runs the module's graph on example inputs and fills ``node.meta['tensor_meta']`` and ``['type']``.

    Parameters
    ----------
    module : GraphModule
        The module to run.
    """

    def run_node(self, n):
        from vfw.frontends.torch import Tensor

        result = super().run_node(n)
        found = []

        def describe(value):
            if isinstance(value, Tensor):
                found.append(True)
                return _extract_tensor_metadata(value)
            return value

        meta = map_aggregate(result, describe)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Run the graph on ``args`` (the recorded metadata is the point); returns its result."""
        return super().run(*args)
