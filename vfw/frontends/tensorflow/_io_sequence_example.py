"""``tf.train.SequenceExample`` and its parts ``FeatureList`` / ``FeatureLists`` (TF's ``example.proto`` /
``feature.proto``), with the protobuf Python API of ``_io_example``'s messages.

Wire layout: ``SequenceExample {Features context = 1; FeatureLists feature_lists = 2}``,
``FeatureLists {map<string, FeatureList> feature_list = 1}`` (each entry a message ``{key = 1, value = 2}``),
``FeatureList {repeated Feature feature = 1}``.  Map entries are written in insertion order (protobuf: its hash
map's order), as for ``Features``.
"""

from vfw.frontends.tensorflow import _protobuf as pb
from vfw.frontends.tensorflow._io_example import Feature, Features, _Message


class FeatureList(_Message):
    """``feature``: a list of ``Feature`` (one per step of a sequence)."""

    def __init__(self, feature=()):
        self.feature = list(feature)

    def _state(self):
        return [f._state() for f in self.feature]

    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        return b"".join(pb.field(1, pb.LENGTH, f.SerializeToString()) for f in self.feature)

    def _parse(self, number, wire_type, value):
        if number == 1 and wire_type == pb.LENGTH:
            self.feature.append(Feature.FromString(value))


class FeatureLists(_Message):
    """``feature_list``: a dict of name (str) -> ``FeatureList``."""

    def __init__(self, feature_list=None):
        self.feature_list = dict(feature_list or {})

    def _state(self):
        return {k: v._state() for k, v in self.feature_list.items()}

    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        return b"".join(pb.field(1, pb.LENGTH, pb.field(1, pb.LENGTH, key.encode()) +
                                 pb.field(2, pb.LENGTH, value.SerializeToString()))
                        for key, value in self.feature_list.items())

    def _parse(self, number, wire_type, value):
        if number != 1:
            return
        key, entry = "", FeatureList()
        for entry_number, _, entry_value in pb.fields(value):
            if entry_number == 1:
                key = entry_value.decode("utf-8", "surrogateescape")
            elif entry_number == 2:
                entry = FeatureList.FromString(entry_value)
        self.feature_list[key] = entry


class SequenceExample(_Message):
    """``context``: a ``Features`` message; ``feature_lists``: a ``FeatureLists`` message."""

    def __init__(self, context=None, feature_lists=None):
        # A set sub-message is written even when empty (2 bytes), as protobuf does.
        self._has = {"context": context is not None, "feature_lists": feature_lists is not None}
        self.context = context if context is not None else Features()
        self.feature_lists = feature_lists if feature_lists is not None else FeatureLists()

    def _state(self):
        return (self.context._state(), self.feature_lists._state())

    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        out = b""
        for number, name, entries in ((1, "context", self.context.feature),
                                      (2, "feature_lists", self.feature_lists.feature_list)):
            if self._has[name] or entries:
                out += pb.field(number, pb.LENGTH, getattr(self, name).SerializeToString())
        return out

    def _parse(self, number, wire_type, value):
        if number == 1:
            self.context, self._has["context"] = Features.FromString(value), True
        elif number == 2:
            self.feature_lists, self._has["feature_lists"] = FeatureLists.FromString(value), True


NAMESPACES = {"train": ["FeatureList", "FeatureLists", "SequenceExample"]}
TENSOR_METHODS = {}
