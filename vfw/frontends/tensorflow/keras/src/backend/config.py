"""Keras' global settings: float type, fuzz factor, image data format, backend name, epoch caps.

These are module state (as in Keras, where ``keras.json`` only seeds them): ``clear_session``
leaves them alone.  vfw reads no ``keras.json`` and no environment variables: the defaults are
Keras' (float32, 1e-7, channels_last, tensorflow).
"""

_FLOAT_TYPES = ("bfloat16", "float16", "float32", "float64")
_DATA_FORMATS = ("channels_first", "channels_last")

_settings = {"floatx": "float32", "epsilon": 1e-7, "image_data_format": "channels_last", "max_epochs": None,
             "max_steps_per_epoch": None}


def floatx():
    """The default float type, a string (``"float32"`` unless changed by ``set_floatx``)."""
    return _settings["floatx"]


def set_floatx(value):
    """Set the default float type: one of ``"bfloat16"``, ``"float16"``, ``"float32"``, ``"float64"``."""
    if value not in _FLOAT_TYPES:
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {set(_FLOAT_TYPES)}")
    _settings["floatx"] = str(value)


def epsilon():
    """The fuzz factor numeric expressions add to avoid dividing by zero (1e-7 by default)."""
    return _settings["epsilon"]


def set_epsilon(value):
    """Set the fuzz factor returned by ``epsilon()``."""
    _settings["epsilon"] = value


def _data_format_error(data_format):
    return ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                      f"Received: data_format={data_format}")


def image_data_format():
    """The default image layout: ``"channels_last"`` (NHWC) or ``"channels_first"`` (NCHW)."""
    return _settings["image_data_format"]


def set_image_data_format(data_format):
    """Set the default image layout (``"channels_last"`` or ``"channels_first"``, any case)."""
    data_format = str(data_format).lower()
    if data_format not in _DATA_FORMATS:
        raise _data_format_error(data_format)
    _settings["image_data_format"] = data_format


def standardize_data_format(data_format):
    """``data_format`` lower-cased and checked; None means ``image_data_format()``."""
    if data_format is None:
        return image_data_format()
    data_format = str(data_format).lower()
    if data_format not in _DATA_FORMATS:
        raise _data_format_error(data_format)
    return data_format


def backend():
    """The name of the backend Keras runs on: always ``"tensorflow"`` (vfw.tensorflow)."""
    return "tensorflow"


def max_epochs():
    """The cap on the number of epochs ``fit`` runs (None: no cap)."""
    return _settings["max_epochs"]


def set_max_epochs(max_epochs):
    """Cap the number of epochs ``fit`` runs (None removes the cap)."""
    _settings["max_epochs"] = max_epochs


def max_steps_per_epoch():
    """The cap on the number of steps per epoch (None: no cap)."""
    return _settings["max_steps_per_epoch"]


def set_max_steps_per_epoch(max_steps_per_epoch):
    """Cap the number of steps of each epoch (None removes the cap)."""
    _settings["max_steps_per_epoch"] = max_steps_per_epoch
