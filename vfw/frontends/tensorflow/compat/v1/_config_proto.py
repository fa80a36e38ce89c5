"""``tf.compat.v1.ConfigProto`` and ``GPUOptions``: session options, accepted and kept, with protobuf's API.

vfw has no sessions and runs on the CPU, so nothing reads these options; they exist because TF 2-era scripts
build them (``ConfigProto(gpu_options=GPUOptions(allow_growth=True))``) before anything else.  Fields are those
of TF's protos that such scripts set; keyword construction, attribute access (sub-messages made on first read),
equality and protobuf's text format (``str()``) behave as protobuf's Python messages.
"""

import numbers

_SCALAR_TYPES = {
    "int": (numbers.Integral, int),
    "float": (numbers.Real, float),
    "bool": (numbers.Integral, bool),
    "string": (str, str),
}
_DEFAULTS = {"int": 0, "float": 0.0, "bool": False, "string": ""}


def _checked_scalar(message, field, kind, value):
    accepted, convert = _SCALAR_TYPES[kind]
    if isinstance(value, accepted) and not (kind == "string" and isinstance(value, bytes)):
        return convert(value)
    raise TypeError(f"{message}.{field}: expected a value of type {kind}, got {value!r} of type {type(value).__name__}")


def _text_scalar(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


class _Options:
    """A protobuf-like message.

    ``FIELDS`` maps each field name (in field-number order) to "int"/"float"/"bool"/"string", to a message class
    (a sub-message), to ``("repeated", kind)`` or to ``("map", key kind, value kind)``.
    """

    FIELDS = {}

    def __init__(self, **fields):
        object.__setattr__(self, "_values", {})
        for name, value in fields.items():
            if name not in self.FIELDS:
                raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" field.')
            kind = self.FIELDS[name]
            if isinstance(kind, tuple):
                self._values[name] = self._container(name, kind, value)
            elif isinstance(kind, type):
                if value is not None:
                    if not isinstance(value, kind):
                        raise TypeError(f"{type(self).__name__}.{name}: expected a {kind.__name__}, got "
                                        f"{type(value).__name__}")
                    self._values[name] = value
            else:
                setattr(self, name, value)

    def _container(self, name, kind, value):
        if kind[0] == "repeated":
            return [_checked_scalar(type(self).__name__, name, kind[1], item) for item in value]
        return {_checked_scalar(type(self).__name__, name, kind[1], key):
                _checked_scalar(type(self).__name__, name, kind[2], item) for key, item in dict(value).items()}

    def __getattr__(self, name):
        kind = type(self).FIELDS.get(name)
        if kind is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        values = object.__getattribute__(self, "_values")
        if name not in values:
            if isinstance(kind, type):
                values[name] = kind()
            elif isinstance(kind, tuple):
                values[name] = [] if kind[0] == "repeated" else {}
            else:
                return _DEFAULTS[kind]
        return values[name]

    def __setattr__(self, name, value):
        kind = self.FIELDS.get(name)
        if kind is None:
            raise AttributeError(f'Protocol message {type(self).__name__} has no "{name}" field.')
        if not isinstance(kind, str):
            raise AttributeError(f'Assignment not allowed to message field "{name}" in protocol message object.')
        self._values[name] = _checked_scalar(type(self).__name__, name, kind, value)

    def _set_fields(self):
        """The fields that differ from their defaults (what protobuf's text format prints), in field order."""
        out = []
        for name, kind in self.FIELDS.items():
            value = self._values.get(name)
            if isinstance(kind, type):
                if value is not None and value._set_fields():
                    out.append((name, value))
            elif value:
                out.append((name, value))
        return out

    def _text(self, indent):
        pad = " " * indent
        lines = []
        for name, value in self._set_fields():
            if isinstance(value, _Options):
                lines += [f"{pad}{name} {{", *value._text(indent + 2), f"{pad}}}"]
            elif isinstance(value, dict):
                for key, item in value.items():
                    lines += [f"{pad}{name} {{", f"{pad}  key: {_text_scalar(key)}", f"{pad}  value: "
                              f"{_text_scalar(item)}", f"{pad}}}"]
            elif isinstance(value, list):
                lines += [f"{pad}{name}: {_text_scalar(item)}" for item in value]
            else:
                lines.append(f"{pad}{name}: {_text_scalar(value)}")
        return lines

    def __str__(self):
        return "".join(line + "\n" for line in self._text(0))

    __repr__ = __str__

    def __eq__(self, other):
        return type(other) is type(self) and self._set_fields() == other._set_fields()

    __hash__ = None  # mutable, as protobuf messages


class GPUOptions(_Options):
    """``tf.compat.v1.GPUOptions``: accepted and kept; vfw runs on the CPU."""

    FIELDS = {  # in field-number order, the order of protobuf's text format
        "per_process_gpu_memory_fraction": "float",
        "allocator_type": "string",
        "deferred_deletion_bytes": "int",
        "allow_growth": "bool",
        "visible_device_list": "string",
        "polling_active_delay_usecs": "int",
        "polling_inactive_delay_msecs": "int",
        "force_gpu_compatible": "bool",
    }


class ConfigProto(_Options):
    """``tf.compat.v1.ConfigProto``: session options, accepted and kept (vfw has no sessions)."""

    FIELDS = {  # in field-number order, the order of protobuf's text format
        "device_count": ("map", "string", "int"),
        "intra_op_parallelism_threads": "int",
        "placement_period": "int",
        "device_filters": ("repeated", "string"),
        "inter_op_parallelism_threads": "int",
        "gpu_options": GPUOptions,
        "allow_soft_placement": "bool",
        "log_device_placement": "bool",
        "use_per_session_threads": "bool",
        "operation_timeout_in_ms": "int",
        "isolate_session_state": "bool",
        "share_cluster_devices_in_session": "bool",
    }
