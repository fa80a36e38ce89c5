"""``tf.experimental.Optional`` (a value, or nothing, of a given element spec) and its ``tf.OptionalSpec``.

What ``iterator.get_next_as_optional()`` returns.  TF keeps the value in a variant tensor; vfw keeps the
structure of tensors itself (an Optional is immutable, so nothing can tell the difference).
"""

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _function, nest
from vfw.frontends.tensorflow._framework_extras import TypeSpec

_EMPTY_MESSAGE = "The given optional does not have a value."


def _structure():
    # tf.data's element-structure helpers (normalizing values, specs of structures); imported on use because
    # tf.data loads after the ops this module is gathered with
    from vfw.frontends.tensorflow.data import _structure as structure

    return structure


class Optional:
    """``tf.experimental.Optional``: a value, or nothing, of a given element spec.

    Built with :meth:`from_value` or :meth:`empty` (the class itself is abstract, as in TF).
    """

    def __init__(self):
        raise TypeError("Can't instantiate abstract class Optional with abstract methods _type_spec, element_spec, "
                        "get_value, has_value")

    @classmethod
    def _make(cls, value, element_spec):
        optional = object.__new__(cls)
        optional._value = value
        optional._spec = element_spec
        return optional

    @staticmethod
    def from_value(value):
        """An Optional holding ``value``.

        Parameters
        ----------
        value : nested structure
            Tensors, Python values or numpy arrays (each leaf converted to a tensor), ragged tensors or
            datasets, nested in tuples, lists and dicts.

        Raises
        ------
        tf.errors.InvalidArgumentError
            When ``value`` has no component (``None``, an empty tuple), as TF's OptionalFromValue.
        """
        structure = _structure()
        if value is None or not structure.flatten(value):
            raise _dispatch.op_error("Length for attr 'Toutput_types' of 0 must be at least minimum 1\n\t; "
                                     "NodeDef: {{node OptionalFromValue}}; Op<name=OptionalFromValue; signature="
                                     "components: -> optional:variant; attr=Toutput_types:list(type),min=1>",
                                     "OptionalFromValue")
        value = structure.normalize(value)
        return Optional._make(value, structure.structure_of(value))

    @staticmethod
    def empty(element_spec):
        """An Optional holding nothing, of ``element_spec`` (a structure of TensorSpecs...)."""
        return Optional._make(None, element_spec)

    @property
    def element_spec(self):
        """The spec of the value (held or not)."""
        return self._spec

    @property
    def _type_spec(self):
        return OptionalSpec(self._spec)

    def has_value(self, name=None):
        """A scalar bool tensor: whether a value is held."""
        return _dispatch.wrap(np.array(self._value is not None))

    def get_value(self, name=None):
        """The value (the structure given to :meth:`from_value`, leaves as tensors).

        Raises
        ------
        tf.errors.InvalidArgumentError
            When empty (inside a tf.function: when the graph runs the read, e.g. in the branch of a ``tf.cond``
            on ``has_value()`` that is taken).
        AttributeError
            When empty with no element spec (as TF).
        """
        if self._value is not None:
            return self._value
        if self._spec is None:
            raise AttributeError("'NoneType' object has no attribute '_flat_tensor_specs'")
        # an error of the graph run inside a tf.function: a tf.cond whose branch reads it builds that branch to
        # raise it when taken
        raise _function.run_time_error(_EMPTY_MESSAGE, "OptionalGetValue")

    def __repr__(self):
        return f"<tf.experimental.Optional has_value={self._value is not None} element_spec={self._spec!r}>"


def _common_supertype(a, b):
    if type(a) is not type(b):
        return None
    if hasattr(a, "most_specific_common_supertype"):
        return a.most_specific_common_supertype([b])
    return a if a == b else None


class OptionalSpec(TypeSpec):
    """``tf.OptionalSpec``: the type of ``tf.experimental.Optional`` values of one element spec.

    Parameters
    ----------
    element_spec : nested structure of TypeSpecs
        The spec of the value an Optional may hold.
    """

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def value_type(self):
        return Optional

    @property
    def _component_specs(self):
        return self._element_spec

    def _to_components(self, value):
        return value._value

    def _from_components(self, components):
        return Optional._make(components, self._element_spec)

    def _serialize(self):
        return (self._element_spec,)

    @staticmethod
    def from_value(value):
        """The OptionalSpec of the Optional ``value``."""
        return OptionalSpec(value.element_spec)

    def is_compatible_with(self, spec_or_value):
        """Whether an OptionalSpec or Optional has an element spec of the same structure, dtypes and compatible
        shapes."""
        if isinstance(spec_or_value, Optional):
            spec_or_value = spec_or_value._type_spec
        return isinstance(spec_or_value, OptionalSpec) and _structure().compatible(
            self._element_spec, spec_or_value._element_spec)

    def most_specific_common_supertype(self, others):
        """The OptionalSpec covering this one and ``others``: the element specs' common supertypes leaf by leaf
        (differing dims None, differing ranks unknown); None when they nest differently or differ in dtype."""
        leaves = nest.flatten(self._element_spec)
        for other in others:
            if not isinstance(other, OptionalSpec):
                return None
            try:
                nest.assert_same_structure(self._element_spec, other._element_spec)
            except (ValueError, TypeError):
                return None
            leaves = [_common_supertype(x, y) for x, y in zip(leaves, nest.flatten(other._element_spec))]
            if any(leaf is None for leaf in leaves):
                return None
        return OptionalSpec(nest.pack_sequence_as(self._element_spec, leaves))

    def __hash__(self):  # over the leaves: the element spec may nest in (unhashable) dicts and lists
        return hash((OptionalSpec, tuple(nest.flatten(self._element_spec))))

    def __repr__(self):
        return f"OptionalSpec({self._element_spec!r},)"


NAMESPACES = {"tf": ["OptionalSpec"]}
TENSOR_METHODS = {}
