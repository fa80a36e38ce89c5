"""``tf.experimental.ExtensionType``: user-defined immutable records of tensors and Python values.

A subclass declares its fields as class annotations (``values: tf.Tensor``, ``name: str = "x"``,
``parts: typing.Tuple[tf.Tensor, ...]``, ``extra: typing.Optional[tf.Tensor] = None``, nested extension
types...).  The constructor binds arguments to the fields, converts them as their annotations say (tensors
through ``tf.convert_to_tensor``, tuples and mappings item by item), runs ``__validate__`` and freezes the value.
Each subclass gets a ``Spec`` class (its type spec: tensors replaced by TensorSpecs); ``tf.nest`` with
``expand_composites=True`` flattens a value into its tensors.
"""

import collections.abc
import functools
import inspect
import typing

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes
from vfw.frontends.tensorflow._dtypes import DType
from vfw.frontends.tensorflow._framework_extras import TypeSpec
from vfw.frontends.tensorflow._shape import TensorShape, as_shape
from vfw.frontends.tensorflow._tensor import Tensor, TensorBase
from vfw.frontends.tensorflow._tensor_spec import TensorSpec


class ImmutableDict(collections.abc.Mapping):
    """A read-only mapping: what a ``typing.Mapping`` field holds."""

    def __init__(self, items):
        self._items = dict(items)

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __repr__(self):
        return f"ImmutableDict({self._items!r})"


# -- converting a field's value to its annotation -------------------------------------------------------------
def _type_name(annotation):
    return getattr(annotation, "__name__", repr(annotation))


def _convert(value, annotation, where):
    """``value`` as the field annotation ``annotation`` says (TypeError naming ``where`` when it cannot be)."""
    if annotation is TensorBase or annotation is Tensor:
        if isinstance(value, Tensor):
            return value
        try:
            return _dispatch.convert_to_tensor(value)
        except (TypeError, ValueError):
            raise TypeError(f"{where}: expected a Tensor, got {type(value).__name__!r}") from None
    if annotation is TensorShape:
        try:
            return as_shape(value)
        except (TypeError, ValueError):
            raise TypeError(f"{where}: expected 'TensorShape', got {type(value).__name__!r}") from None
    if annotation is DType:
        try:
            return _dtypes.as_dtype(value)
        except (TypeError, ValueError):
            raise TypeError(f"{where}: expected 'DType', got {type(value).__name__!r}") from None
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Union:
        for option in args:
            try:
                return _convert(value, option, where)
            except TypeError:
                continue
        raise TypeError(f"{where}: expected {annotation!r}, got {type(value).__name__!r}")
    if origin is tuple:
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"{where}: expected 'tuple', got {type(value).__name__!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise TypeError(f"{where}: expected a tuple of length {len(args)}, got {len(value)}")
        return tuple(_convert(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(value, args)))
    if origin is collections.abc.Mapping:
        if not isinstance(value, collections.abc.Mapping):
            raise TypeError(f"{where}: expected 'Mapping', got {type(value).__name__!r}")
        return ImmutableDict((_convert(k, args[0], f"{where} key"), _convert(v, args[1], f"{where}[{k!r}]"))
                             for k, v in value.items())
    if annotation is None or annotation is type(None):
        if value is not None:
            raise TypeError(f"{where}: expected None, got {type(value).__name__!r}")
        return None
    if isinstance(annotation, type):
        if not isinstance(value, annotation):
            raise TypeError(f"{where}: expected {_type_name(annotation)!r}, got {type(value).__name__!r}")
        return value
    raise TypeError(f"vfw.tensorflow: unsupported ExtensionType field annotation {annotation!r} for {where}")


_PLAIN_TYPES = (int, float, str, bytes, bool, type(None))


def _check_annotation(annotation, field):
    """TF's TypeError for a field annotation it does not support (at class definition)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, tuple, collections.abc.Mapping):
        for arg in args:
            if arg is not Ellipsis:
                _check_annotation(arg, field)
        return
    if annotation is None or annotation in _PLAIN_TYPES or annotation in (TensorBase, Tensor, TensorShape, DType):
        return
    if isinstance(annotation, type) and issubclass(annotation, ExtensionType):
        return
    shown = repr(annotation.__name__) if isinstance(annotation, type) or annotation is typing.Any else annotation
    raise TypeError(f"In field {field!r}: Unsupported type annotation {shown}")


# -- the flat tensors of a value, and its spec ---------------------------------------------------------------
def _components(value):
    """The tensors of a field value, in order (nested extension types expanded)."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, ExtensionType):
        return value._nest_components()
    if isinstance(value, (tuple, ImmutableDict)):
        items = value.values() if isinstance(value, ImmutableDict) else value
        return [t for item in items for t in _components(item)]
    return []


def _rebuilt(value, tensors):
    """``value`` with its tensors taken, in order, from the iterator ``tensors``."""
    if isinstance(value, Tensor):
        return next(tensors)
    if isinstance(value, ExtensionType):
        return value._rebuilt_from(tensors)
    if isinstance(value, tuple):
        return tuple(_rebuilt(item, tensors) for item in value)
    if isinstance(value, ImmutableDict):
        return ImmutableDict((k, _rebuilt(v, tensors)) for k, v in value.items())
    return value


def _spec_of(value):
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, ExtensionType):
        return value._type_spec
    if isinstance(value, tuple):
        return tuple(_spec_of(item) for item in value)
    if isinstance(value, ImmutableDict):
        return ImmutableDict((k, _spec_of(v)) for k, v in value.items())
    return value


def _field_text(fields, values):
    return ", ".join(f"{name}={value!r}" for name, value in zip(fields, values))


class ExtensionTypeSpec(TypeSpec):
    """The type spec of an ExtensionType value: its fields with tensors replaced by TensorSpecs."""

    _value_class = None

    def __init__(self, **fields):
        self._fields = fields

    def __getattr__(self, name):
        fields = self.__dict__.get("_fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def value_type(self):
        return self._value_class

    @property
    def _component_specs(self):
        return _flat_specs(tuple(self._fields.values()))

    def _to_components(self, value):
        return value._nest_components()

    def _from_components(self, components):
        raise NotImplementedError("vfw.tensorflow: an ExtensionType value is rebuilt from a value of its type")

    def _serialize(self):
        return tuple((k, repr(v)) for k, v in self._fields.items())

    def __repr__(self):
        return f"{type(self).__qualname__}({_field_text(self._fields, self._fields.values())})"


def _flat_specs(spec):
    if isinstance(spec, TensorSpec):
        return [spec]
    if isinstance(spec, ExtensionTypeSpec):
        return spec._component_specs
    if isinstance(spec, (tuple, ImmutableDict)):
        items = spec.values() if isinstance(spec, ImmutableDict) else spec
        return [s for item in items for s in _flat_specs(item)]
    return []


class ExtensionType:
    """Base class of user-defined extension types (see the module docstring).

    Subclasses declare fields with annotations; the generated constructor takes them as positional or keyword
    arguments (fields with defaults last).  A custom ``__init__`` may set the fields itself; they are converted
    and validated when it returns.  Values are immutable and unhashable; ``==`` compares field by field (a bool
    tensor, or False when the values' types differ).
    """

    _tf_extension_type_fields = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fields = {}
        for klass in reversed(cls.__mro__):
            for name, annotation in klass.__dict__.get("__annotations__", {}).items():
                if not name.startswith("_"):
                    fields[name] = annotation
        defaults = {name: cls.__dict__[name] for name in fields if name in cls.__dict__}
        for klass in cls.__mro__[1:]:
            for name in fields:
                if name not in defaults and name in getattr(klass, "_tf_extension_type_defaults", {}):
                    defaults[name] = klass._tf_extension_type_defaults[name]
        for name in defaults:
            if name in cls.__dict__:
                delattr(cls, name)  # the instance's field, not a class attribute, answers `value.name`
        for name, annotation in fields.items():
            _check_annotation(annotation, name)
        cls._tf_extension_type_fields = tuple(fields.items())
        cls._tf_extension_type_defaults = defaults
        parameters = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                        default=defaults.get(name, inspect.Parameter.empty)) for name in fields]
        cls._tf_extension_type_signature = inspect.Signature(parameters)
        user_init = cls.__dict__.get("__init__")
        cls.__init__ = _custom_constructor(user_init) if user_init is not None else _generated_constructor
        cls.Spec = type(f"{cls.__name__}.Spec", (ExtensionTypeSpec,), {
            "_value_class": cls, "__qualname__": f"{cls.__qualname__}.Spec", "__module__": cls.__module__})

    def __new__(cls, *args, **kwargs):
        if cls is ExtensionType:
            raise AssertionError("Cannot create an instance of ExtensionType because ExtensionType is an abstract "
                                 "base class.")
        return super().__new__(cls)

    def _finish(self):
        """Convert the fields set on ``self`` to their annotations, validate, and freeze."""
        fields = self._tf_extension_type_fields
        for name, annotation in fields:
            if name not in self.__dict__:
                if name not in self._tf_extension_type_defaults:
                    raise ValueError(f"Field {name} is missing")
                self.__dict__[name] = self._tf_extension_type_defaults[name]
            self.__dict__[name] = _convert(self.__dict__[name], annotation, name)
        self.__dict__["_tf_extension_type_frozen"] = True
        self.__validate__()

    def __validate__(self):
        """Checks of the fields a subclass may define (run by the constructor)."""

    def __setattr__(self, name, value):
        if self.__dict__.get("_tf_extension_type_frozen"):
            raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor of ExtensionType.")
        self.__dict__[name] = value

    def __delattr__(self, name):
        raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor of ExtensionType.")

    __hash__ = None

    def _field_values(self):
        return [self.__dict__[name] for name, _ in self._tf_extension_type_fields]

    @property
    def _type_spec(self):
        return self.Spec(**{name: _spec_of(value) for (name, _), value in
                            zip(self._tf_extension_type_fields, self._field_values())})

    def _nest_components(self):
        """The tensors of this value, in field order (what ``tf.nest.flatten(..., expand_composites=True)``
        gives)."""
        return [t for value in self._field_values() for t in _components(value)]

    def _rebuilt_from(self, tensors):
        """A value like this one with its tensors taken, in order, from the iterator ``tensors``."""
        rebuilt = object.__new__(type(self))
        for (name, _), value in zip(self._tf_extension_type_fields, self._field_values()):
            rebuilt.__dict__[name] = _rebuilt(value, tensors)
        rebuilt.__dict__["_tf_extension_type_frozen"] = True
        return rebuilt

    def _nest_rebuilt(self, components):
        """A value like this one holding the tensors ``components`` (a list, as :meth:`_nest_components`)."""
        return self._rebuilt_from(iter(components))

    def __eq__(self, other):
        if type(other) is not type(self) or not _same_spec(self._type_spec, other._type_spec):
            return False
        equal = True
        for a, b in zip(self._nest_components(), other._nest_components()):
            equal = equal and bool(np.array_equal(a.array, b.array))
        return _dispatch.wrap(np.array(equal))

    def __ne__(self, other):
        equal = self == other
        return not equal if equal is False else _dispatch.wrap(~equal.array)

    def __repr__(self):
        names = [name for name, _ in self._tf_extension_type_fields]
        return f"{type(self).__qualname__}({_field_text(names, self._field_values())})"


def _same_spec(a, b):
    """Whether two specs have equal fields (TensorSpecs by shape and dtype)."""
    return repr(a) == repr(b)


def _generated_constructor(self, *args, **kwargs):
    bound = type(self)._tf_extension_type_signature.bind(*args, **kwargs)
    bound.apply_defaults()
    self.__dict__.update(bound.arguments)
    self._finish()


def _custom_constructor(user_init):
    @functools.wraps(user_init)
    def constructor(self, *args, **kwargs):
        user_init(self, *args, **kwargs)
        self._finish()
    return constructor

