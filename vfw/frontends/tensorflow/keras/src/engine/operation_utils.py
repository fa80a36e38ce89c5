"""``keras.utils.get_source_inputs``: the Input tensors a symbolic tensor is computed from."""


def get_source_inputs(tensor):
    """The input tensors needed to compute ``tensor``, in the order the graph first reaches them.

    Parameters
    ----------
    tensor : KerasTensor or any value
        A value without Keras history (not made by a layer or ``keras.Input``) is returned as it is.

    Returns
    -------
    list
        The ``keras.Input`` tensors behind ``tensor`` (``[tensor]`` for a tensor of no operation), each once.
    """
    if not hasattr(tensor, "_keras_history"):
        return tensor
    operation, node_index = tensor._keras_history[0], tensor._keras_history[1]
    if not operation or not operation._inbound_nodes:
        return [tensor]
    node = operation._inbound_nodes[node_index]
    if node.is_input:  # an Input's node: its tensors are the sources
        from vfw.frontends.tensorflow import nest

        return nest.flatten(node.output_tensors)
    sources = []
    for parent in node.input_tensors:
        for source in get_source_inputs(parent):
            if all(source is not seen for seen in sources):
                sources.append(source)
    return sources


API = {"utils": ["get_source_inputs"]}
