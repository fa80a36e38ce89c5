"""Composite values (tf.TensorArray) carried by graph control flow as their component tensors.

A composite value has a ``_type_spec`` whose ``_to_components(value)`` gives its tensors,
``_from_components(tensors)`` rebuilds a value from them and ``_component_invariants()``
gives the shapes they may take across loop iterations (None: the shape stays).  tf.nest keeps
such values as leaves (TF's ``tf.nest.flatten(tensor_array, expand_composites=True)`` is
``[tensor_array]``); the loops go through the helpers here instead, so a TensorArray enters
a ``Loop`` op as tensors and comes out rebuilt.
"""

from vfw.core.graph.subgraph import SubgraphTrace
from vfw.frontends.tensorflow import nest


def is_composite(value):
    """Whether ``value`` is a composite value (without building its spec)."""
    return hasattr(type(value), "_type_spec")


def spec_of(value):
    """The type spec of a composite value, or None for anything else."""
    return value._type_spec if is_composite(value) else None


def flatten_components(structure):
    """The leaves of ``structure``, each composite value replaced by its component tensors."""
    flat = []
    for leaf in nest.flatten(structure):
        spec = spec_of(leaf)
        if spec is None:
            flat.append(leaf)
        else:
            flat.extend(spec._to_components(leaf))
    return flat


def pack_components(structure, flat):
    """``structure`` with its leaves replaced by the items of ``flat`` (as :func:`flatten_components` gives them):
    a composite leaf takes as many items as it has components, rebuilt by its spec."""
    items = iter(flat)
    leaves = []
    for leaf in nest.flatten(structure):
        spec = spec_of(leaf)
        if spec is None:
            leaves.append(next(items))
        else:
            leaves.append(spec._from_components([next(items) for _ in spec._component_invariants()]))
    return nest.pack_sequence_as(structure, leaves)


def component_invariants(structure, invariants):
    """The shape invariants of the components of ``structure`` (None: unchanged shape), from ``invariants`` (one
    per leaf of ``structure``, or None) for tensors and from the specs for composite values; None when there are
    neither."""
    leaves = nest.flatten(structure)
    specs = [spec_of(leaf) for leaf in leaves]
    if invariants is None and all(spec is None for spec in specs):
        return None
    given = [None] * len(leaves) if invariants is None else list(invariants)
    flat = []
    for spec, invariant in zip(specs, given):
        flat.extend([invariant] if spec is None else spec._component_invariants())
    return flat


def settled(loop_vars, body):
    """``loop_vars`` with the composite values whose component shapes the loop body decides (a TensorArray's
    element shape, learned from its first write) rebuilt in those shapes: found by a trial run of ``body`` whose
    effects are undone.  ``loop_vars`` itself when none needs it."""
    leaves = nest.flatten(loop_vars)
    if not any(spec_of(leaf) is not None and spec_of(leaf)._undecided() for leaf in leaves):
        return loop_vars
    trial_vars = pack_components(loop_vars, flatten_components(loop_vars))
    with SubgraphTrace("while_shapes", None):
        result = body(*trial_vars)
    found = nest.flatten(result)
    if len(found) != len(leaves):
        return loop_vars  # the loop's own checks report it
    new = []
    for leaf, after in zip(leaves, found):
        spec = spec_of(leaf)
        new.append(leaf if spec is None or spec_of(after) is None else spec._settled(leaf, spec_of(after)))
    return nest.pack_sequence_as(loop_vars, new)
