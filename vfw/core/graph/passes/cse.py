"""Common subexpression elimination (O1): compute each distinct value once.

Two ops compute the same values when they have the same type, domain, device
and attributes (the serialized :class:`Argument` messages, compared
regardless of their order) and read the same inputs: the later one is removed
and its uses read the earlier one's outputs.  Identical initializers (same
dtype, dims and bytes) are merged first, since tracing makes a new one for
every numpy constant it meets, so that ops reading equal constants become
equal too.

Random ops (and PyFunc ops, which call Python functions that may draw or
have other side effects) are never merged: two draws are two different
values (see :func:`is_random`).  Names in ``keep`` and the graph outputs stay defined:

* a merged-away value that must stay visible gives its name to the surviving
  op's output (no extra op, no aliasing);
* when both values must stay visible (say ``return x * 2, x * 2``) the ops are
  not merged, so that the two results stay distinct arrays as they are
  eagerly (a frontend may write into one of them in place).
"""

from vfw.core.errors import UnknownOpError
from vfw.core.ir import proto_to_tensor
from vfw.core.registry import get_schema

RANDOM_OPS = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                        "Bernoulli", "Dropout", "PyFunc", "AllReduce", "AllGather", "ReduceScatter", "Broadcast"})
"""Op types that draw random numbers (Dropout only in training mode), and PyFunc, whose Python function may
(frontends' random draws from their own generators do): each call may give new values and advance a stream.
The collectives (``ops/collective.py``) are here too: every process must make the same calls, so none may be
merged, folded or pruned away."""


def _inference_dropout(opdef, constants):
    """Whether a Dropout op is known to run in inference mode (output = data, draws nothing)."""
    training = opdef.input[2] if len(opdef.input) > 2 else ""
    if not training:
        return True
    proto = constants.get(training)
    if proto is None:
        return False
    value = proto_to_tensor(proto)
    # A non-scalar flag is an error at run time: leave the op alone so that it is raised there.
    return value.size == 1 and not bool(value.reshape(())[()])


def is_random(opdef, constants=None):
    """Whether running ``opdef`` draws random numbers, so that two runs (or two such ops) may differ.

    Parameters
    ----------
    opdef : OpDef
    constants : dict[str, TensorProto], optional
        Initializers by name: a Dropout whose ``training_mode`` is absent or a
        constant false is deterministic (it returns its input).

    Returns
    -------
    bool
        True for the :data:`RANDOM_OPS` (Dropout unless known to be in
        inference mode), any op with a ``seed`` attribute, unknown op
        types (nothing is known of them), and ops with a subgraph attribute
        holding such an op.
    """
    if opdef.type == "Dropout":
        return not _inference_dropout(opdef, constants or {})
    if opdef.type in RANDOM_OPS:
        return True
    for arg in opdef.arg:  # a control-flow op (If, Loop) is as random as the ops of its subgraphs
        if arg.WhichOneof("value") == "g" and any(is_random(op, {t.name: t for t in arg.g.initializer})
                                                  for op in arg.g.op):
            return True
    try:
        return "seed" in get_schema(opdef.type).attrs
    except UnknownOpError:
        return True


def draws_from_engine(opdef, constants=None):
    """Whether ``opdef`` is random and draws from the engine generator (it has no ``seed`` of its own).

    Such an op advances the process-wide random stream even when its result
    is unused, so removing it would change what later random ops draw.  PyFunc
    ops count too: their Python function may draw from a frontend's generator.
    Unknown op types are not counted (they cannot run anyway).
    """
    try:
        get_schema(opdef.type)
    except UnknownOpError:
        return False
    return is_random(opdef, constants) and not any(arg.name == "seed" for arg in opdef.arg)


def _op_key(opdef, inputs):
    while inputs and not inputs[-1]:
        inputs = inputs[:-1]  # trailing absent optional inputs are the same as none
    args = tuple(sorted((arg.name, arg.SerializeToString(deterministic=True)) for arg in opdef.arg))
    return (opdef.type, opdef.domain, opdef.device_option.SerializeToString(deterministic=True), tuple(inputs),
            args)


def _merge_initializers(graph, protected):
    """Point readers of duplicate initializers at the first equal one; return whether anything changed."""
    overridable = set(graph.input)  # an initializer that is also an input is only a default value
    groups = {}
    for proto in graph.initializer:
        if proto.name in overridable:
            continue
        # Cheap key first: only tensors of equal dtype and size have their bytes compared.
        key = (proto.data_type, tuple(proto.dims), len(proto.raw_data), len(proto.string_data))
        groups.setdefault(key, []).append(proto)
    rename = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        first = {}
        for proto in members:
            name = first.setdefault((proto.raw_data, tuple(proto.string_data)), proto.name)
            if name != proto.name and proto.name not in protected:
                rename[proto.name] = name
    if not rename:
        return False
    survivors = [t for t in graph.initializer if t.name not in rename]
    del graph.initializer[:]
    graph.initializer.extend(survivors)
    for opdef in graph.op:
        if any(name in rename for name in opdef.input):
            names = [rename.get(name, name) for name in opdef.input]
            del opdef.input[:]
            opdef.input.extend(names)
    _drop_value_infos(graph, set(rename))
    return True


def _drop_value_infos(graph, names):
    if names:
        infos = [vi for vi in graph.value_info if vi.name not in names]
        del graph.value_info[:]
        graph.value_info.extend(infos)


def _merge_into(survivor, opdef, root, chosen, protected):
    """Merge ``opdef``'s outputs into those of the equal op ``survivor``; False when names must stay apart."""
    pairs = []
    for i, name in enumerate(opdef.output):
        if not name:
            continue
        first = survivor.output[i] if i < len(survivor.output) else ""
        if first and name in protected and (first in chosen or first in protected):
            return False  # both values must stay visible: two arrays, as eagerly
        pairs.append((i, name, first))
    for i, name, first in pairs:
        if not first:
            # The survivor's kernel computes this output too, it was just left unnamed.
            while len(survivor.output) <= i:
                survivor.output.append("")
            survivor.output[i] = name
            continue
        root[name] = first
        if name in protected:
            chosen[first] = name
    return True


def _merge_ops(graph, protected):
    """One sweep over the ops in order, merging each into an earlier equal one; return whether any was."""
    constants = {t.name: t for t in graph.initializer}
    root = {}  # merged-away value -> the surviving value it equals
    chosen = {}  # surviving value -> the kept name it must be known by in the end
    seen = {}
    ops = []
    for opdef in graph.op:
        inputs = [root.get(name, name) for name in opdef.input]
        if is_random(opdef, constants):
            ops.append((opdef, inputs))
            continue
        key = _op_key(opdef, inputs)
        survivor = seen.get(key)
        if survivor is not None and _merge_into(survivor, opdef, root, chosen, protected):
            continue
        seen.setdefault(key, opdef)
        ops.append((opdef, inputs))
    if not root and len(ops) == len(graph.op):
        return False

    def final(name):
        name = root.get(name, name)
        return chosen.get(name, name)

    renamed = {name for name in list(root) + list(chosen) if final(name) != name}
    kept = []
    for opdef, inputs in ops:
        names = [final(name) for name in inputs]
        if names != list(opdef.input):
            del opdef.input[:]
            opdef.input.extend(names)
        outputs = [final(name) if name else "" for name in opdef.output]
        if outputs != list(opdef.output):
            del opdef.output[:]
            opdef.output.extend(outputs)
        kept.append(opdef)
    # Kept ops are messages of ``graph.op``: copy them out before clearing the field.
    kept = [_copy(opdef) for opdef in kept]
    del graph.op[:]
    graph.op.extend(kept)
    _drop_value_infos(graph, renamed)
    return True


def _copy(message):
    out = type(message)()
    out.CopyFrom(message)
    return out


def eliminate_common_subexpressions(graph, keep):
    """Return a copy of ``graph`` in which equal ops and equal initializers appear once.

    Parameters
    ----------
    graph : GraphDef
        Ops in execution order (SSA).
    keep : list[str]
        Values that must stay defined under their names (the graph outputs
        are kept too).

    Returns
    -------
    GraphDef
    """
    out = type(graph)()
    out.CopyFrom(graph)
    protected = set(keep) | set(out.output)
    changed = True
    while changed:  # a sweep merges whole chains; the next one confirms the fixed point
        changed = _merge_initializers(out, protected)
        changed = _merge_ops(out, protected) or changed
    return out


__all__ = ["RANDOM_OPS", "draws_from_engine", "eliminate_common_subexpressions", "is_random"]
