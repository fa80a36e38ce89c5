"""tf.config: one CPU device, tf.function's eager switch, and settings vfw accepts without effect.

vfw computes on the CPU with numpy: the device lists hold the one CPU device; visible-device,
thread-count, memory-growth and optimizer settings are recorded and reported back, and change
nothing about how vfw runs (thread counts are numpy's BLAS's own).  Unlike TF, thread counts
can be set at any time (TF refuses them once it has run an op).
"""

import collections
import types

from vfw.frontends.tensorflow._function import functions_run_eagerly, run_functions_eagerly

__all__ = [
    "LogicalDevice", "LogicalDeviceConfiguration", "PhysicalDevice", "experimental",
    "experimental_functions_run_eagerly", "experimental_run_functions_eagerly", "functions_run_eagerly",
    "get_logical_device_configuration", "get_soft_device_placement", "get_visible_devices", "list_logical_devices",
    "list_physical_devices", "optimizer", "run_functions_eagerly", "set_logical_device_configuration",
    "set_soft_device_placement", "set_visible_devices", "threading",
]

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
LogicalDeviceConfiguration = collections.namedtuple(
    "LogicalDeviceConfiguration", ["memory_limit", "experimental_priority", "experimental_device_ordinal"],
    defaults=[None, None, None])

_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_CPU_LOGICAL = LogicalDevice("/device:CPU:0", "CPU")
_settings = {"visible": [_CPU], "soft_placement": True, "intra": 0, "inter": 0, "tf32": True, "jit": "",
             "optimizer": {"disable_model_pruning": False, "disable_meta_optimizer": False},
             "device_policy": "silent", "synchronous": True, "logical": {}}


def _of_type(devices, device_type):
    return [d for d in devices if device_type is None or d.device_type == device_type]


def list_physical_devices(device_type=None):
    """The physical devices (the CPU), optionally of one type (``"CPU"``; ``"GPU"`` gives none)."""
    return _of_type([_CPU], device_type)


def list_logical_devices(device_type=None):
    """The logical devices (the CPU), optionally of one type."""
    return _of_type([_CPU_LOGICAL] if _CPU in _settings["visible"] else [], device_type)


def get_visible_devices(device_type=None):
    """The physical devices set visible (the CPU unless :func:`set_visible_devices` hid it)."""
    return _of_type(_settings["visible"], device_type)


def _check_devices(devices):
    for d in devices:
        if d != _CPU:
            raise ValueError(f"Unrecognized device: {d!r}")


def set_visible_devices(devices, device_type=None):
    """Record which devices of ``device_type`` are visible (only the CPU exists; vfw always computes on it)."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    _check_devices(devices)
    if device_type in (None, "CPU"):
        _settings["visible"] = devices


def get_logical_device_configuration(device):
    """The logical device configuration set for ``device`` (None: the default)."""
    _check_devices([device])
    return _settings["logical"].get(device)


def set_logical_device_configuration(device, logical_devices):
    """Record a logical device configuration for ``device`` (no effect in vfw)."""
    _check_devices([device])
    _settings["logical"][device] = logical_devices


def get_soft_device_placement():
    """bool: whether ops may run on another device than asked (recorded setting)."""
    return _settings["soft_placement"]


def set_soft_device_placement(enabled):
    """Record the soft device placement setting."""
    _settings["soft_placement"] = bool(enabled)


experimental_run_functions_eagerly = run_functions_eagerly
experimental_functions_run_eagerly = functions_run_eagerly


# -- tf.config.threading -------------------------------------------------------------------------
def _setter(key):
    def set_threads(num_threads):
        _settings[key] = int(num_threads)
    set_threads.__doc__ = "Record the thread count (0: the system's choice)."
    return set_threads


def _getter(key):
    def get_threads():
        return _settings[key]
    get_threads.__doc__ = "int: the recorded thread count (0: the system's choice)."
    return get_threads


threading = types.ModuleType("vfw.tensorflow.config.threading", "Thread-count settings (recorded).")
threading.set_intra_op_parallelism_threads = _setter("intra")
threading.get_intra_op_parallelism_threads = _getter("intra")
threading.set_inter_op_parallelism_threads = _setter("inter")
threading.get_inter_op_parallelism_threads = _getter("inter")


# -- tf.config.experimental ----------------------------------------------------------------------
def set_memory_growth(device, enable):
    """TF's ValueError: memory growth applies to GPUs, and vfw has only the CPU."""
    _check_devices([device])
    raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")


def get_memory_growth(device):
    """TF's error for a device without memory growth (the CPU)."""
    _check_devices([device])
    raise KeyError(device)


def get_device_details(device):
    """dict: details of a physical device (none for the CPU)."""
    _check_devices([device])
    return {}


def _record(key, doc):
    def setter(value):
        _settings[key] = value
    setter.__doc__ = doc
    return setter


experimental = types.ModuleType("vfw.tensorflow.config.experimental", "Experimental device settings (recorded).")
experimental.VirtualDeviceConfiguration = LogicalDeviceConfiguration
experimental.list_physical_devices = list_physical_devices
experimental.list_logical_devices = list_logical_devices
experimental.get_visible_devices = get_visible_devices
experimental.set_visible_devices = set_visible_devices
experimental.get_virtual_device_configuration = get_logical_device_configuration
experimental.set_virtual_device_configuration = set_logical_device_configuration
experimental.set_memory_growth = set_memory_growth
experimental.get_memory_growth = get_memory_growth
experimental.get_device_details = get_device_details
experimental.enable_op_determinism = lambda: None  # vfw's kernels are deterministic
experimental.enable_tensor_float_32_execution = _record("tf32", "Record the TensorFloat-32 setting.")
experimental.tensor_float_32_execution_enabled = lambda: bool(_settings["tf32"])
experimental.get_device_policy = lambda: _settings["device_policy"]
experimental.set_device_policy = _record("device_policy", "Record the device policy.")
experimental.get_synchronous_execution = lambda: _settings["synchronous"]
experimental.set_synchronous_execution = _record("synchronous", "Record the synchronous execution setting.")
experimental.enable_mlir_bridge = lambda: None
experimental.disable_mlir_bridge = lambda: None


def _memory_device(device):
    """The device type of a ``"CPU:0"``-style name, with TF's ValueErrors for malformed and absent devices."""
    parts = device.strip("/").split(":")
    device_type = parts[-2].upper() if len(parts) >= 2 else None
    if device_type is None or not parts[-1].isdigit():
        raise ValueError(f"Failed parsing device name: '{device}'. Note a valid device string should at least "
                         f"contain a device type and a device index, like \"GPU:0\".")
    if device_type != "CPU" or parts[-1] != "0":
        raise ValueError(f"No matching devices found for '{device}'")
    return device_type


def get_memory_info(device):
    """``{"current": bytes, "peak": bytes}`` of a device's allocator: vfw's arrays are numpy's, not tracked
    per device, so the CPU reports 0 and 0 (as TF's CPU allocator without memory stats)."""
    _memory_device(device)
    return {"current": 0, "peak": 0}


def reset_memory_stats(device):
    """Reset a device's peak memory statistic (nothing to reset in vfw)."""
    _memory_device(device)


experimental.get_memory_info = get_memory_info
experimental.get_memory_usage = lambda device: get_memory_info(device)["current"]
experimental.reset_memory_stats = reset_memory_stats


# -- tf.config.optimizer -------------------------------------------------------------------------
def _set_options(options):
    _settings["optimizer"] = {**_settings["optimizer"], **dict(options)}


optimizer = types.ModuleType("vfw.tensorflow.config.optimizer", "Graph optimizer settings (recorded).")
optimizer.get_experimental_options = lambda: dict(_settings["optimizer"])
optimizer.set_experimental_options = _set_options
optimizer.get_jit = lambda: _settings["jit"]


def _set_jit(enabled):
    _settings["jit"] = "autoclustering" if enabled is True else (enabled or "")


optimizer.set_jit = _set_jit
