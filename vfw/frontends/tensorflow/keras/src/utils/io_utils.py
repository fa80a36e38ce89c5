"""Console output of Keras utilities: the interactive-logging switch and ``print_msg``."""

import logging
import sys

from vfw.frontends.tensorflow.keras.src.backend import global_state

_INTERACTIVE_LOGGING = "interactive_logging"
_logger = logging.getLogger("keras")


def enable_interactive_logging():
    """Print progress bars and messages to stdout (the default; ``clear_session`` restores it)."""
    global_state.set_global_attribute(_INTERACTIVE_LOGGING, True)


def disable_interactive_logging():
    """Send Keras' messages to the ``logging`` module (INFO) instead of stdout."""
    global_state.set_global_attribute(_INTERACTIVE_LOGGING, False)


def is_interactive_logging_enabled():
    """Whether Keras' messages go to stdout."""
    return global_state.get_global_attribute(_INTERACTIVE_LOGGING, True)


def print_msg(message, line_break=True):
    """Write ``message`` to stdout (followed by a newline if ``line_break``), or log it at INFO level
    when interactive logging is off."""
    message = str(message)
    if is_interactive_logging_enabled():
        sys.stdout.write(f"{message}\n" if line_break else message)
        sys.stdout.flush()
    else:
        _logger.info(message)
