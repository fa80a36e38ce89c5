"""Anomaly detection: ``detect_anomaly`` / ``set_detect_anomaly``.

While enabled (with ``check_nan``), a backward raises torch's RuntimeError as soon as
a node's gradient function returns NaN values (checked in ``_engine``; nothing is
checked, and nothing costs, while it is off).
"""

import threading

from vfw.frontends._warnings import warn_for_user

__all__ = ["detect_anomaly", "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "set_detect_anomaly"]


class _State(threading.local):
    def __init__(self):
        self.enabled = False
        self.check_nan = True


state = _State()


def is_anomaly_enabled():
    """bool: whether anomaly detection is on (this thread)."""
    return state.enabled


def is_anomaly_check_nan_enabled():
    """bool: whether anomaly detection checks backward results for NaN."""
    return state.check_nan


def _set(mode, check_nan):
    prev = state.enabled, state.check_nan
    state.enabled, state.check_nan = bool(mode), bool(check_nan)
    return prev


class detect_anomaly:  # noqa: N801  (torch's name)
    """Context manager that turns anomaly detection on for its block."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warn_for_user("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.")

    def __enter__(self):
        self._prev = _set(True, self.check_nan)

    def __exit__(self, *exc):
        _set(*self._prev)
        return False


class set_detect_anomaly:  # noqa: N801
    """Turn anomaly detection on or off: now (plain call) or for a block (context manager)."""

    def __init__(self, mode, check_nan=True):
        self._prev = _set(mode, check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _set(*self._prev)
        return False
