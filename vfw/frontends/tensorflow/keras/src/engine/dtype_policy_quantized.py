"""Quantized dtype policies (``keras.dtype_policies``): a float source policy plus a quantization mode.

``QuantizedDTypePolicy("int8", "float32")`` is named ``"int8_from_float32"``: the layer computes in
float32 and stores its quantized weights as int8.  The int4 sub-channel, GPTQ and AWQ policies encode
their settings in the mode (``"int4/128"``, ``"gptq/4/128"``: bits and group size).  ``DTypePolicyMap``
maps layer paths to policies (what a quantized model records per layer).
"""

import collections.abc
import re

from vfw.frontends.tensorflow.keras.src.engine import dtype_policy as policies

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")


class QuantizedDTypePolicy(policies.DTypePolicy):
    """A float policy (``source_name``, default the global one) whose layers are quantized with ``mode``.

    Parameters
    ----------
    mode : str
        One of ``QUANTIZATION_MODES``.
    source_name : str, optional
        The float policy the layer computes with.
    """

    def __init__(self, mode, source_name=None):
        if source_name is None:
            source_name = policies.dtype_policy().name
        self._compute_dtype, self._variable_dtype = self._parse_name(source_name)
        if mode not in QUANTIZATION_MODES:
            raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. Received: "
                             f"mode={mode}")
        if self._compute_dtype == "float16" and mode == "int8":
            raise ValueError(f"Quantization mode='{mode}' doesn't work well with compute_dtype='float16'.")
        self._name = f"{mode}_from_{source_name}"
        self._source_name = source_name
        self._quantization_mode = mode

    def __eq__(self, other):
        return (type(self) is type(other) and self._name == other.name
                and self._quantization_mode == other.quantization_mode and self._source_name == other._source_name
                and self._extra_settings() == other._extra_settings())

    __hash__ = None

    def _extra_settings(self):
        return ()

    def get_config(self):
        return {"mode": self._quantization_mode, "source_name": self._source_name}

    def __repr__(self):
        return f'<{type(self).__name__} "{self._name}">'


class QuantizedFloat8DTypePolicy(QuantizedDTypePolicy):
    """float8 training policy, with the length of the amax histories of delayed scaling."""

    default_amax_history_length = 1024

    def __init__(self, mode, source_name=None, amax_history_length=1024):
        super().__init__(mode, source_name)
        if not isinstance(amax_history_length, int):
            raise TypeError(f"`amax_history_length` must be an integer. Received: "
                            f"amax_history_length={amax_history_length}")
        self._amax_history_length = amax_history_length

    @property
    def amax_history_length(self):
        """int: how many past absolute maxima the scaling factors follow."""
        return self._amax_history_length

    def _extra_settings(self):
        return (self._amax_history_length,)

    def get_config(self):
        return {**super().get_config(), "amax_history_length": self._amax_history_length}


def _split_mode(mode, policy_class, expected_format, field_count):
    """``mode`` (``"base/a/b"``) as its base name and integer fields, with Keras' errors."""
    parts = mode.split("/") if isinstance(mode, str) else []
    base = policy_class.base_mode
    if len(parts) != field_count + 1 or parts[0] != base:
        raise ValueError(f"Invalid mode for {policy_class.__name__}. Expected format {expected_format}, but got "
                         f"'{mode}'.")
    try:
        return [int(p) for p in parts[1:]]
    except ValueError:
        raise ValueError(f"Invalid mode for {policy_class.__name__}. Fields must be integers. Expected format "
                         f"{expected_format}, but got '{mode}'.") from None


def _check_group_size(group_size, mode, name="group_size"):
    if group_size < -1 or group_size == 0:
        raise ValueError(f"Invalid {name} in mode. Supported values are -1 (per-channel) or a positive integer, "
                         f"but got {group_size} from '{mode}'.")


class _ParameterizedPolicy(QuantizedDTypePolicy):
    """A quantized policy whose mode carries integer settings (``"<base>/<n>..._from_<source>"``)."""

    base_mode = None

    def _init_mode(self, mode, source_name):
        super().__init__(self.base_mode, source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = self.base_mode

    def get_config(self):
        return {"mode": "/".join([self.base_mode, *map(str, self._extra_settings())]),
                "source_name": self._source_name}


class Int4DTypePolicy(_ParameterizedPolicy):
    """int4 with a block size in the mode: ``"int4/<block_size>"`` (-1: per-channel)."""

    base_mode = "int4"

    def __init__(self, mode, source_name=None):
        (self.block_size,) = _split_mode(mode, Int4DTypePolicy, "'int4/<block_size>'", 1)
        _check_group_size(self.block_size, mode, "block_size")
        self._init_mode(mode, source_name)

    def _extra_settings(self):
        return (self.block_size,)


class _GroupedPolicy(_ParameterizedPolicy):
    """``"<base>/<weight_bits>/<group_size>"`` (GPTQ, AWQ)."""

    supported_bits = ()

    def __init__(self, mode, source_name=None):
        expected = f"'{self.base_mode}/<weight_bits>/<group_size>'"
        self.weight_bits, self.group_size = _split_mode(mode, type(self), expected, 2)
        if self.weight_bits not in self.supported_bits:
            raise ValueError(f"Invalid weight_bits in mode. Supported values are {self.supported_bits}, but got "
                             f"{self.weight_bits} from '{mode}'.")
        _check_group_size(self.group_size, mode)
        self._init_mode(mode, source_name)

    def _extra_settings(self):
        return (self.weight_bits, self.group_size)


class GPTQDTypePolicy(_GroupedPolicy):
    """GPTQ (``"gptq/<weight_bits>/<group_size>"``, 2, 3, 4 or 8 bits).  vfw has no GPTQ calibration."""

    base_mode = "gptq"
    supported_bits = (2, 3, 4, 8)


class AWQDTypePolicy(_GroupedPolicy):
    """AWQ (``"awq/4/<group_size>"``).  vfw has no AWQ calibration."""

    base_mode = "awq"
    supported_bits = (4,)


def policy_from_string(name):
    """The quantized policy named ``"<mode>_from_<source>"`` (``dtype_policies.get`` of such a string)."""
    parts = name.split("_from_")
    if len(parts) != 2:
        raise ValueError("Cannot convert `policy` into a valid pair (`mode`, `source_name`) to instantiate "
                         f"`QuantizedDTypePolicy`. Received: policy={name}")
    mode, source_name = parts
    if mode.startswith("int4") and "/" in mode:
        return Int4DTypePolicy(mode, source_name)
    policy_class = {"gptq": GPTQDTypePolicy, "awq": AWQDTypePolicy, "float8": QuantizedFloat8DTypePolicy}.get(
        re.match(r"[a-z]+\d*", mode).group(0), QuantizedDTypePolicy)
    return policy_class(mode, source_name)


class DTypePolicyMap(policies.DTypePolicy, collections.abc.MutableMapping):
    """Policies by layer path (keys are matched as regular expressions); ``default_policy`` otherwise.

    Parameters
    ----------
    default_policy : DTypePolicy or str, optional
        Default: the global policy.
    policy_map : dict, optional
        ``{path: policy}``.
    """

    def __init__(self, default_policy=None, policy_map=None):
        if isinstance(default_policy, DTypePolicyMap):
            raise ValueError("`default_policy` cannot be a `DTypePolicyMap`.")
        if policy_map is not None and not isinstance(policy_map, dict):
            raise TypeError(f"If specified, `policy_map` must be a dict. Received: policy_map={policy_map} of type "
                            f"{type(policy_map)}")
        self._default_policy_arg = default_policy
        self._default_policy = policies.get(default_policy)
        self._policy_map = {}
        for key, value in (policy_map or {}).items():
            self[key] = value
        self._quantization_mode = None

    @property
    def name(self):
        return "map_" + self._default_policy.name

    @property
    def default_policy(self):
        """DTypePolicy: the policy of paths no key matches."""
        return policies.get(self._default_policy)

    @property
    def compute_dtype(self):
        return self.default_policy.compute_dtype

    @property
    def variable_dtype(self):
        return self.default_policy.variable_dtype

    @property
    def quantization_mode(self):
        return self.default_policy.quantization_mode

    def __getitem__(self, key):
        if key in self._policy_map:
            return self._policy_map[key]
        matches = [k for k in self._policy_map if re.search(k, key)]
        if len(matches) > 1:
            raise ValueError(f"Path '{key}' matches multiple dtype policy specification keys: {matches}. Please "
                             "make sure each path only matches at most one dtype policy specification key in the "
                             "DTypePolicyMap.")
        return self._policy_map[matches[0]] if matches else self.default_policy

    def __setitem__(self, key, policy):
        if key in self._policy_map:
            raise ValueError(f"{key} already exist in the DTypePolicyMap with value {self._policy_map[key]}. "
                             "Please make sure to not use duplicated keys.")
        self._policy_map[key] = policies.get(policy)

    def __delitem__(self, key):
        return self._policy_map.pop(key)

    def __contains__(self, key):
        return key in self._policy_map

    def __iter__(self):
        return iter(self._policy_map)

    def __len__(self):
        return len(self._policy_map)

    def get_config(self):
        default = self._default_policy_arg
        if isinstance(default, policies.DTypePolicy):
            default = policies.serialize(default)
        return {"default_policy": default,
                "policy_map": {k: policies.serialize(v) for k, v in self._policy_map.items()}}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["policy_map"] = {k: policies.deserialize(v) for k, v in config.get("policy_map", {}).items()}
        if isinstance(config.get("default_policy"), dict):
            config["default_policy"] = policies.deserialize(config["default_policy"])
        return cls(**config)

    def __repr__(self):
        mapping = [(k, v.name) for k, v in self._policy_map.items()]
        return f"<DTypePolicyMap at {hex(id(self))} default_policy={self._default_policy.name}, mapping={mapping}>"

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


POLICY_CLASSES = {cls.__name__: cls for cls in (QuantizedDTypePolicy, QuantizedFloat8DTypePolicy, Int4DTypePolicy,
                                                GPTQDTypePolicy, AWQDTypePolicy, DTypePolicyMap)}

API = {"dtype_policies": list(POLICY_CLASSES)}
