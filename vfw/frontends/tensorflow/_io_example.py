"""``tf.train.Example`` and its parts (``Features``, ``Feature``, ``BytesList``, ``FloatList``, ``Int64List``):
the messages of TF's ``example.proto`` / ``feature.proto``, with protobuf's Python API as programs use it
(keyword constructors, ``.value`` lists, ``feature`` maps, ``WhichOneof("kind")``, ``SerializeToString``,
``FromString`` / ``ParseFromString``, equality).

Wire layout: ``Example {Features features = 1}``, ``Features {map<string, Feature> feature = 1}`` (each entry a
message ``{key = 1, value = 2}``), ``Feature {oneof kind {BytesList bytes_list = 1; FloatList float_list = 2;
Int64List int64_list = 3}}``, the lists a repeated ``value = 1`` (floats and int64s packed).  Map entries are
written in insertion order; protobuf writes them in its hash map's order, so serialized Examples with several
features can differ from TF's byte for byte while parsing to the same values.
"""

import numpy as np

from vfw.frontends.tensorflow import _protobuf as pb


class _Message:
    """Equality, ``FromString`` and ``ParseFromString`` over each message's ``_fields`` and ``_parse``."""

    def __eq__(self, other):
        return type(other) is type(self) and self._state() == other._state()

    def __hash__(self):
        raise TypeError(f"unhashable object: '{type(self).__name__}'")

    @classmethod
    def FromString(cls, data):  # noqa: N802  (protobuf's name)
        """The message parsed from ``data`` (bytes)."""
        message = cls()
        message.ParseFromString(data)
        return message

    def ParseFromString(self, data):  # noqa: N802  (protobuf's name)
        """Replace this message's contents by the message serialized in ``data``; returns the bytes read."""
        self.__init__()
        for number, wire_type, value in pb.fields(bytes(data)):
            self._parse(number, wire_type, value)
        return len(data)

    def ByteSize(self):  # noqa: N802  (protobuf's name)
        """The length of the serialized message."""
        return len(self.SerializeToString())

    def __repr__(self):
        return f"{type(self).__name__}({self._state()!r})"


class _ValueList(_Message):
    def __init__(self, value=()):
        self.value = [self._checked(v) for v in value]

    def _state(self):
        return self.value


class BytesList(_ValueList):
    """``value``: a list of bytes."""

    @staticmethod
    def _checked(v):
        if not isinstance(v, bytes):
            raise TypeError(f"expected bytes, {type(v).__name__} found")
        return v

    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        return b"".join(pb.field(1, pb.LENGTH, v) for v in self.value)

    def _parse(self, number, wire_type, value):
        if number == 1:
            self.value.append(value)


class FloatList(_ValueList):
    """``value``: a list of floats (float32 precision, as the proto field)."""

    @staticmethod
    def _checked(v):
        return float(np.float32(v))

    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        return pb.field(1, pb.LENGTH, np.asarray(self.value, "<f4").tobytes()) if self.value else b""

    def _parse(self, number, wire_type, value):
        if number == 1:
            self.value += pb.packed_floats(value) if wire_type == pb.LENGTH else pb.packed_floats(value[:4])


class Int64List(_ValueList):
    """``value``: a list of int64s."""

    @staticmethod
    def _checked(v):
        return int(v)

    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        return pb.field(1, pb.LENGTH, b"".join(pb.varint(v) for v in self.value)) if self.value else b""

    def _parse(self, number, wire_type, value):
        if number == 1:
            self.value += pb.packed_varints(value) if wire_type == pb.LENGTH else [pb.signed64(value)]


_KINDS = ("bytes_list", "float_list", "int64_list")  # field numbers 1, 2, 3
_KIND_TYPES = {"bytes_list": BytesList, "float_list": FloatList, "int64_list": Int64List}


class Feature(_Message):
    """One of ``bytes_list``, ``float_list``, ``int64_list`` (the ``kind`` oneof; reading an unset one gives an
    empty list, as protobuf)."""

    def __init__(self, bytes_list=None, float_list=None, int64_list=None):
        given = {k: v for k, v in zip(_KINDS, (bytes_list, float_list, int64_list)) if v is not None}
        self._kind = next(iter(given), None)
        self._list = given.get(self._kind)

    def __getattr__(self, name):
        if name in _KIND_TYPES:
            return self._list if name == self._kind else _KIND_TYPES[name]()
        raise AttributeError(name)

    def WhichOneof(self, oneof_group):  # noqa: N802  (protobuf's name)
        """The set kind's name (``"float_list"``...), None when none is set."""
        if oneof_group != "kind":
            raise ValueError(f'Protocol message has no oneof "{oneof_group}" field.')
        return self._kind

    def _state(self):
        return (self._kind, self._list._state() if self._list is not None else None)

    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        if self._kind is None:
            return b""
        return pb.field(_KINDS.index(self._kind) + 1, pb.LENGTH, self._list.SerializeToString())

    def _parse(self, number, wire_type, value):
        if 1 <= number <= 3 and wire_type == pb.LENGTH:
            self._kind = _KINDS[number - 1]
            self._list = _KIND_TYPES[self._kind].FromString(value)


class Features(_Message):
    """``feature``: a dict of feature name (str) -> ``Feature``."""

    def __init__(self, feature=None):
        self.feature = dict(feature or {})

    def _state(self):
        return {k: v._state() for k, v in self.feature.items()}

    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        return b"".join(pb.field(1, pb.LENGTH, pb.field(1, pb.LENGTH, key.encode()) +
                                 pb.field(2, pb.LENGTH, value.SerializeToString()))
                        for key, value in self.feature.items())

    def _parse(self, number, wire_type, value):
        if number != 1:
            return
        key, entry = "", Feature()
        for entry_number, _, entry_value in pb.fields(value):
            if entry_number == 1:
                key = entry_value.decode("utf-8", "surrogateescape")
            elif entry_number == 2:
                entry = Feature.FromString(entry_value)
        self.feature[key] = entry


class Example(_Message):
    """``features``: a ``Features`` message."""

    def __init__(self, features=None):
        self._has_features = features is not None  # a set empty sub-message is still written (2 bytes)
        self.features = features if features is not None else Features()

    def _state(self):
        return self.features._state()

    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        body = self.features.SerializeToString()
        return pb.field(1, pb.LENGTH, body) if self._has_features or self.features.feature else b""

    def _parse(self, number, wire_type, value):
        if number == 1:
            self.features, self._has_features = Features.FromString(value), True


NAMESPACES = {"train": ["BytesList", "Example", "Feature", "Features", "FloatList", "Int64List"]}
