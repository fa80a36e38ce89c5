"""tf.compat.v1.logging: TF 1's logging functions over Python's ``"tensorflow"`` logger (``tf.get_logger()``)."""

import logging as _logging
import sys as _sys

from vfw.frontends.tensorflow._context_ops import get_logger as _get_logger

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARN
ERROR = _logging.ERROR
FATAL = _logging.FATAL


def set_verbosity(v):
    """Set the level of the ``"tensorflow"`` logger (``tf.compat.v1.logging.ERROR``...)."""
    _get_logger().setLevel(v)


def get_verbosity():
    """int: the effective level of the ``"tensorflow"`` logger."""
    return _get_logger().getEffectiveLevel()


def log(level, msg, *args, **kwargs):
    """Log ``msg % args`` at ``level``."""
    _get_logger().log(level, msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    """Log ``msg % args`` at ``level`` (the same as :func:`log`, as in TF)."""
    _get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    """Log ``msg % args`` at DEBUG."""
    _get_logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    """Log ``msg % args`` at INFO."""
    _get_logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    """Log ``msg % args`` at WARN."""
    _get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    """Log ``msg % args`` at ERROR."""
    _get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    """Log ``msg % args`` at FATAL (it does not exit, as in TF)."""
    _get_logger().critical(msg, *args, **kwargs)


def TaskLevelStatusMessage(msg):  # noqa: N802  (TF's name)
    """Log ``msg`` at ERROR."""
    error(msg)


def flush():
    """Not implemented in TF 2.21 either: raises NotImplementedError."""
    raise NotImplementedError("tf.compat.v1.logging.flush is not implemented (nor is it in TensorFlow 2.21)")


def log_if(level, msg, condition, *args):
    """Log ``msg % args`` at ``level`` when ``condition`` is true."""
    if condition:
        vlog(level, msg, *args)


# Calls counted per source line: (file name, line number) -> calls so far.
_calls_per_line = {}


def _count_call():
    """How many times the counted line ran before (0 the first time).

    As TF's, the line counted is not the caller's own but that of the nearest frame above it in another file
    (the code calling into the caller's module), so calls from different lines of one module share a count.
    """
    caller = _sys._getframe(2)
    frame = caller.f_back
    while frame is not None and frame.f_code.co_filename == caller.f_code.co_filename:
        frame = frame.f_back
    line = ("<unknown>", 0) if frame is None else (frame.f_code.co_filename, frame.f_lineno)
    _calls_per_line[line] = _calls_per_line.get(line, -1) + 1
    return _calls_per_line[line]


def log_every_n(level, msg, n, *args):
    """Log ``msg % args`` at ``level`` on the 1st, (n+1)th, (2n+1)th... counted call (see ``_count_call``)."""
    log_if(level, msg, not _count_call() % n, *args)


def log_first_n(level, msg, n, *args):
    """Log ``msg % args`` at ``level`` on the first ``n`` counted calls (see ``_count_call``)."""
    log_if(level, msg, _count_call() < n, *args)
