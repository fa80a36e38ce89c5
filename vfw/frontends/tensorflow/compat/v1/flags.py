"""tf.compat.v1.flags: absl's flags, as TensorFlow exports them (absl-py must be installed, as TF needs it).

Two TF additions: the four common ``DEFINE_*`` functions also take TF 1's keyword names (``flag_name``,
``default_value``, ``docstring``), and ``FLAGS`` parses ``sys.argv`` the first time a flag value is read before
any explicit parse (absl itself raises ``UnparsedFlagAccessError`` there).
"""

import functools as _functools
import logging as _logging
import sys as _sys

try:
    from absl.flags import *  # noqa: F403  (TF's flags module is absl.flags' namespace)
    from absl.flags import FLAGS as _ABSL_FLAGS
    from absl.flags import DEFINE_boolean as _define_boolean
    from absl.flags import DEFINE_float as _define_float
    from absl.flags import DEFINE_integer as _define_integer
    from absl.flags import DEFINE_string as _define_string
except ImportError as _error:
    raise ModuleNotFoundError("tf.compat.v1.flags needs absl-py (as TensorFlow does): pip install absl-py",
                              name="absl") from _error

_TF1_KEYWORDS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _accepting_tf1_keywords(define):
    @_functools.wraps(define)
    def define_flag(*args, **kwargs):
        renamed = {_TF1_KEYWORDS.get(key, key): value for key, value in kwargs.items()}
        if renamed.keys() != kwargs.keys():
            _logging.warning("Use of the keyword argument names (flag_name, default_value, docstring) is "
                             "deprecated, please use (name, default, help) instead.")
        return define(*args, **renamed)

    return define_flag


DEFINE_string = _accepting_tf1_keywords(_define_string)
DEFINE_boolean = _accepting_tf1_keywords(_define_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _accepting_tf1_keywords(_define_float)
DEFINE_integer = _accepting_tf1_keywords(_define_integer)


class _ParsedOnFirstRead:
    """absl's global ``FLAGS``, parsing ``sys.argv`` when a flag is read before any parse (TF's ``FLAGS``)."""

    def __init__(self, flag_values):
        object.__setattr__(self, "_flag_values", flag_values)

    def __getattr__(self, name):
        flag_values = object.__getattribute__(self, "_flag_values")
        try:
            # FlagValues' own methods and attributes; flag values come from its __getattr__ below.
            return object.__getattribute__(flag_values, name)
        except AttributeError:
            pass
        if not flag_values.is_parsed():
            flag_values(_sys.argv)
        return getattr(flag_values, name)

    def __setattr__(self, name, value):
        setattr(self._flag_values, name, value)

    def __delattr__(self, name):
        delattr(self._flag_values, name)

    def __dir__(self):
        return dir(self._flag_values)

    def __getitem__(self, name):
        return self._flag_values[name]

    def __setitem__(self, name, flag):
        self._flag_values[name] = flag

    def __contains__(self, name):
        return name in self._flag_values

    def __len__(self):
        return len(self._flag_values)

    def __iter__(self):
        return iter(self._flag_values)

    def __str__(self):
        return str(self._flag_values)

    def __call__(self, *args, **kwargs):
        return self._flag_values(*args, **kwargs)


FLAGS = _ParsedOnFirstRead(_ABSL_FLAGS)
