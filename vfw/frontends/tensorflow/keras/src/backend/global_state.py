"""Keras' session state: what ``keras.backend.clear_session()`` forgets.

Named attributes (the global SeedGenerator, the global dtype policy, the interactive-logging
switch, the flash-attention switch...) kept per thread, as Keras keeps them.  ``clear`` drops them
all: it is one of the hooks of ``engine/naming.py``'s ``reset_session``, which ``clear_session``
runs (with the name counters and the other modules' session state).
"""

import threading

from vfw.frontends.tensorflow.keras.src.engine import naming

_state = threading.local()


def set_global_attribute(name, value):
    """Store ``value`` under ``name`` until the next ``clear_session``."""
    setattr(_state, name, value)


def get_global_attribute(name, default=None, set_to_default=False):
    """The value stored under ``name``; ``default`` when unset or None (stored too if ``set_to_default``)."""
    value = getattr(_state, name, None)
    if value is None and default is not None:
        value = default
        if set_to_default:
            set_global_attribute(name, value)
    return value


@naming.on_session_reset
def clear():
    """Forget every attribute of the calling thread (at each ``clear_session``)."""
    _state.__dict__.clear()
