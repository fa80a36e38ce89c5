"""Which Keras layer or torch module made an op of a traced graph, to name it where the export fails.

The dynamic-axes pass (:mod:`vfw.onnx_io._export_dynamic`) names the op it cannot generalize by its value names
(``v13``), which mean nothing to whoever wrote the model.  :class:`LayerRecorder` wraps the ``call`` of each
layer of a Keras model while it is exported: every op a trace records inside a layer's ``call`` is credited to the
innermost such layer (by its output names, which are the same in every trace of the same ops), and a layer whose
``call`` raises is remembered.  :meth:`LayerRecorder.explained` turns an ExportError that points at values (its
``values`` attribute) or that the model's own error caused into one naming the layer and its class.
:class:`ModuleRecorder` does the same for the submodules of a torch model (by forward hooks); a module that knows
why it cannot follow a dynamic size says so through an ``_onnx_export_limit()`` method (a reason, or None).
"""

import functools

from vfw.core.graph.trace import current_trace
from vfw.onnx_io._export import ExportError


class LayerRecorder:
    """Credits the ops traced inside each layer of ``model`` to that layer, while used as a context manager.

    Parameters
    ----------
    model : keras.Model
        Its layers' ``call`` methods are wrapped (instance attributes, removed on exit).
    """

    def __init__(self, model):
        self.layers = [layer for layer in model._flatten_layers(include_self=False) if "call" not in vars(layer)]
        self.owners = {}  # value name -> (layer name, class name), the first trace's
        self.failed = None  # (layer name, class name) of the innermost layer whose call raised
        self._depth = 0

    def _wrapped(self, layer):
        call = layer.call
        who = (layer.name, type(layer).__name__)

        @functools.wraps(call)  # the signature Keras inspects (training, mask) stays the layer's
        def recorded(*args, **kwargs):
            trace = current_trace()
            start = len(trace.graph.op) if trace is not None else 0
            if not self._depth:
                self.failed = None  # a new run of the model: an earlier run's failure is not this one's
            self._depth += 1
            try:
                result = call(*args, **kwargs)
            except Exception:
                self.failed = self.failed or who  # the innermost layer's handler runs first
                raise
            finally:
                self._depth -= 1
            if trace is not None:
                for op in trace.graph.op[start:]:  # nested layers took theirs already
                    for name in op.output:
                        self.owners.setdefault(name, who)
            return result

        return recorded

    def __enter__(self):
        for layer in self.layers:
            object.__setattr__(layer, "call", self._wrapped(layer))  # past Keras' attribute tracking
        return self

    def __exit__(self, *exc):
        for layer in self.layers:
            vars(layer).pop("call", None)
        return False

    def explained(self, error):
        """``error`` (an ExportError) as one naming the Keras layer at fault, or ``error`` where none is known."""
        who = next((self.owners[n] for n in getattr(error, "values", ()) if n in self.owners), None)
        if who is None and error.__cause__ is not None and not isinstance(error.__cause__, ExportError):
            who = self.failed  # the model's own error at another size
        if who is None:
            return error
        message = str(error).removeprefix("ONNX export: ")
        explained = ExportError(f"ONNX export: in Keras layer {who[0]!r} ({who[1]}): {message}")
        explained.values = getattr(error, "values", ())
        return explained


class ModuleRecorder:
    """Credits the ops traced inside each submodule of a torch ``model`` to it (forward hooks, removed on exit).

    Parameters
    ----------
    model : torch.nn.Module
    """

    def __init__(self, model):
        self.modules = list(model.named_modules())  # the model itself first, named ""
        self.owners = {}  # value name -> module
        self.names = {}  # id(module) -> its qualified name
        self._handles = []
        self._starts = []

    def _before(self, module, args):
        trace = current_trace()
        self._starts.append(len(trace.graph.op) if trace is not None else None)

    def _after(self, module, args, output):
        start, trace = self._starts.pop(), current_trace()
        if start is not None and trace is not None:
            for op in trace.graph.op[start:]:  # nested modules took theirs already
                for name in op.output:
                    self.owners.setdefault(name, module)

    def __enter__(self):
        for name, module in self.modules:
            self.names[id(module)] = name
            self._handles.append(module.register_forward_pre_hook(self._before))
            self._handles.append(module.register_forward_hook(self._after))
        return self

    def __exit__(self, *exc):
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        return False

    def explained(self, message, error):
        """``message`` (an ExportError's) naming the module that made the values ``error`` points at, and why it
        cannot follow them where the module says; ``message`` itself where no module is known."""
        module = next((self.owners[n] for n in getattr(error, "values", ()) if n in self.owners), None)
        if module is None:
            return message
        limit = getattr(module, "_onnx_export_limit", None)
        reason = limit() if callable(limit) else None
        name = self.names[id(module)]
        where = f"in module {name!r} ({type(module).__name__})" if name else f"in the model ({type(module).__name__})"
        rest = message.removeprefix("ONNX export: ")
        return f"ONNX export: {where}: {reason}; {rest}" if reason else f"ONNX export: {where}: {rest}"
