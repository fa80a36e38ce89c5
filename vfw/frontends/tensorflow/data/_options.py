"""tf.data.Options: settings a pipeline carries (vfw runs elements in order on one thread, so they are
recorded and merged as TF does, and otherwise have no effect)."""

import enum


class AutoShardPolicy(enum.IntEnum):
    """``tf.data.experimental.AutoShardPolicy``."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    """``tf.data.experimental.ExternalStatePolicy``."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class AutotuneAlgorithm(enum.Enum):
    """``tf.data.experimental.AutotuneAlgorithm``."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class _OptionGroup:
    """Options with fixed names and defaults: setting an unknown name raises TF's AttributeError; ``merge``
    gives the options of ``self`` overridden by those set in ``other``."""

    _DEFAULTS = {}
    _ALIASES = {}

    def __init__(self):
        object.__setattr__(self, "_set", {})

    def __getattr__(self, name):
        name = type(self)._ALIASES.get(name, name)
        defaults = type(self)._DEFAULTS
        if name not in defaults:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        value = self._set.get(name)
        if value is None:
            value = defaults[name]
            if isinstance(value, type) and issubclass(value, _OptionGroup):
                value = value()
                self._set[name] = value
        return value

    def __setattr__(self, name, value):
        name = type(self)._ALIASES.get(name, name)
        if name not in type(self)._DEFAULTS:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        self._set[name] = value

    def __dir__(self):
        return sorted(set(type(self)._DEFAULTS) | set(type(self)._ALIASES) | set(object.__dir__(self)))

    def merge(self, other):
        """A new group: these options, overridden by those set in ``other``."""
        merged = type(self)()
        for source in (self, other):
            for name, value in source._set.items():
                if isinstance(value, _OptionGroup):
                    current = merged._set.get(name)
                    value = value if current is None else current.merge(value)
                merged._set[name] = value
        return merged

    def __eq__(self, other):
        return type(other) is type(self) and all(getattr(self, n) == getattr(other, n) for n in self._DEFAULTS)

    __hash__ = None


class ThreadingOptions(_OptionGroup):
    """``tf.data.ThreadingOptions``."""

    _DEFAULTS = {"max_intra_op_parallelism": None, "private_threadpool_size": None}


class OptimizationOptions(_OptionGroup):
    """``tf.data.experimental.OptimizationOptions``."""

    _DEFAULTS = dict.fromkeys(["apply_default_optimizations", "filter_fusion", "filter_parallelization",
                               "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
                               "map_parallelization", "noop_elimination", "parallel_batch", "seq_interleave_prefetch",
                               "shuffle_and_repeat_fusion"])


class AutotuneOptions(_OptionGroup):
    """``tf.data.experimental.AutotuneOptions``."""

    _DEFAULTS = dict.fromkeys(["autotune_algorithm", "cpu_budget", "enabled", "initial_parallelism",
                               "min_parallelism", "ram_budget"])


class DistributeOptions(_OptionGroup):
    """``tf.data.experimental.DistributeOptions``."""

    _DEFAULTS = {"auto_shard_policy": AutoShardPolicy.AUTO, "num_devices": None}


class Options(_OptionGroup):
    """``tf.data.Options``: set attributes (``options.deterministic = False``...) and pass to
    ``Dataset.with_options``."""

    _DEFAULTS = {"autotune": AutotuneOptions, "dataset_name": None, "deterministic": None,
                 "experimental_distribute": DistributeOptions, "experimental_external_state_policy": None,
                 "experimental_optimization": OptimizationOptions, "experimental_service": None,
                 "experimental_slack": None, "experimental_symbolic_checkpoint": None, "experimental_warm_start": None,
                 "framework_type": None, "threading": ThreadingOptions}
    _ALIASES = {"experimental_deterministic": "deterministic", "experimental_threading": "threading"}
