"""torch's "modified by an inplace operation" error text: which saved tensor, at which version it was saved and at
which it is now.

The engine refuses a node whose saved input or output was written in place (``SavedTensorModifiedError``, with
``node``, ``kind`` and ``index``); this module remembers the versions the frontend saw when it mattered, only for
the few tensors it concerns, and words the error as torch does.
"""

import re
import weakref

_ANOMALY_HINT = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. The "
                 "variable in question was changed in there or anywhere later. Good luck!")
_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
         "torch.autograd.set_detect_anomaly(True, check_nan=False).")

# node -> {input position: version when recorded}, for inputs already written in place before (else version 0)
_input_versions = weakref.WeakKeyDictionary()
# node -> {output slot: (version counter, version before its first in-place write)}
_output_versions = weakref.WeakKeyDictionary()


def note_inputs(node):
    """At record time: the versions of the inputs ``node`` checks, where some are not at version 0."""
    for i in node.check_inputs:
        counter = getattr(node.inputs[i], "_version_counter", None)
        if counter is not None and counter[0]:
            _input_versions.setdefault(node, {})[i] = counter[0]


def note_output_write(node, slot, counter):
    """Before the first in-place write into output ``slot`` of ``node`` (``counter`` not yet incremented)."""
    _output_versions.setdefault(node, {}).setdefault(slot, (counter, counter[0]))


def message(error):
    """torch's message for the engine's ``SavedTensorModifiedError``, or None where its details are unknown."""
    from vfw.frontends.torch._dispatch import type_name  # (that module imports this one)
    from vfw.frontends.torch._grad_fn import node_name
    from vfw.frontends.torch.autograd.anomaly_mode import state as anomaly

    node, kind, index = getattr(error, "node", None), getattr(error, "kind", None), getattr(error, "index", None)
    if kind == "input" and node is not None and node.inputs is not None:
        tensor = node.inputs[index]
        counter = getattr(tensor, "_version_counter", None)
        if counter is None:
            return None
        now, saved = counter[0], _input_versions.get(node, {}).get(index, 0)
        owner, slot, array = tensor.grad_node, getattr(tensor, "grad_slot", 0), tensor.array
    elif kind == "output" and node is not None and index in _output_versions.get(node, {}):
        counter, saved = _output_versions[node][index]
        now, owner, slot, array = counter[0], node, index, node._outputs[index]
    else:
        return None
    which = ""
    if owner is not None:
        name = re.sub(r"Backward\d*$", "", node_name(owner))
        which = f", which is output {slot} of {'torch::autograd::' + name if name == 'CopySlices' else name},"
    return ("one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"[torch.{type_name(array.dtype)}Tensor [{', '.join(map(str, array.shape))}]]{which} is at version "
            f"{now}; expected version {saved} instead. {_ANOMALY_HINT if anomaly.enabled else _HINT}")
