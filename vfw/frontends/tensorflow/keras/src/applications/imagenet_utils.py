"""Shared helpers of ``keras.applications``: ImageNet preprocessing and decoding, input-shape and classifier checks.

Public (``keras.applications.imagenet_utils``): :func:`preprocess_input`, :func:`decode_predictions`.
For the families: :func:`family_functions` (a family module's own ``preprocess_input``/``decode_predictions``),
:func:`obtain_input_shape`, :func:`validate_activation`, :func:`correct_pad` (the model
plumbing, weights argument checks and classifier head are in ``model_assembly``).
"""

import json

import numpy as np

from vfw.frontends.tensorflow.keras import activations, backend, ops
from vfw.frontends.tensorflow.keras.src.utils import file_utils

CLASS_INDEX_PATH = "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"
# {"0": ["n01440764", "tench"], ...}, loaded on the first decode_predictions call.
CLASS_INDEX = None

_MODES = ("caffe", "tf", "torch")
_DATA_FORMATS = ("channels_first", "channels_last")
# Per-channel ImageNet statistics: caffe's are BGR means in [0, 255]; torch's RGB mean/std in [0, 1].
_CAFFE_BGR_MEAN = (103.939, 116.779, 123.68)
_TORCH_MEAN = (0.485, 0.456, 0.406)
_TORCH_STD = (0.229, 0.224, 0.225)


def preprocess_input(x, data_format=None, mode="caffe"):
    """Preprocess a batch of images (or one image) for an ImageNet model.

    Parameters
    ----------
    x : numpy.ndarray or tensor or KerasTensor
        3D or 4D, 3 colour channels (RGB), values in [0, 255]. A float numpy array is modified in
        place (as Keras does); other numpy dtypes are first converted to ``floatx``.
    data_format : str, optional
        "channels_last" or "channels_first" (default ``keras.backend.image_data_format()``).
    mode : str
        "caffe": RGB -> BGR, then subtract the ImageNet channel means (no scaling).
        "tf": scale to [-1, 1]. "torch": scale to [0, 1], then normalise with ImageNet's mean/std.

    Returns
    -------
    numpy.ndarray or tensor
        The preprocessed images (a numpy array for numpy input).

    Raises
    ------
    ValueError
        Unknown ``mode`` or ``data_format``.
    """
    if mode not in _MODES:
        raise ValueError(f"Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode={mode}")
    if data_format is None:
        data_format = backend.image_data_format()
    elif data_format not in _DATA_FORMATS:
        raise ValueError("Expected data_format to be one of `channels_first` or `channels_last`. "
                         f"Received: data_format={data_format}")
    if isinstance(x, np.ndarray):
        return _preprocess_numpy(x, data_format, mode)
    return _preprocess_tensor(x, data_format, mode)


def _channel_statistics(mode):
    """``(mean, std)`` per channel in the order the data has after ``mode``'s channel flip (std None: no scaling)."""
    if mode == "caffe":
        return _CAFFE_BGR_MEAN, None
    return _TORCH_MEAN, _TORCH_STD


def _preprocess_numpy(x, data_format, mode):
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
    else:
        # RGB -> BGR as a reversed view, so the float input is still updated in place.
        x = np.flip(x, axis=_channel_axis(x.ndim, data_format))
    mean, std = _channel_statistics(mode)
    axis = _channel_axis(x.ndim, data_format)
    for channel in range(3):
        index = [slice(None)] * x.ndim
        index[axis] = channel
        index = tuple(index)
        x[index] -= mean[channel]
        if std is not None:
            x[index] /= std[channel]
    return x


def _channel_axis(ndim, data_format):
    if data_format == "channels_first":
        return ndim - 3
    return ndim - 1


def _per_channel(values, x, data_format):
    """``values`` (one per channel) as a tensor of ``x``'s dtype shaped to broadcast along its channel axis."""
    array = np.asarray(values).astype(backend.standardize_dtype(x.dtype))
    if data_format == "channels_first":
        array = array.reshape((3, 1, 1))
    return ops.convert_to_tensor(array)


def _preprocess_tensor(x, data_format, mode):
    if mode == "tf":
        x = x / 127.5
        return x - 1.0
    if mode == "torch":
        x = x / 255.0
    else:
        x = ops.flip(x, axis=_channel_axis(len(x.shape), data_format))
    mean, std = _channel_statistics(mode)
    x = ops.add(x, _per_channel([-m for m in mean], x, data_format))
    if std is not None:
        x = ops.divide(x, _per_channel(std, x, data_format))
    return x


def decode_predictions(preds, top=5):
    """The ``top`` ImageNet classes of each prediction.

    Downloads ``imagenet_class_index.json`` with ``keras.utils.get_file`` on first use.

    Parameters
    ----------
    preds : numpy.ndarray or tensor
        Shape ``(samples, 1000)``.
    top : int

    Returns
    -------
    list of list of tuple
        Per sample, ``(class_name, class_description, score)`` tuples, best first.
    """
    global CLASS_INDEX
    preds = ops.convert_to_numpy(preds) if not isinstance(preds, np.ndarray) else preds
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
                         f"(samples, 1000)). Received array with shape: {preds.shape}")
    if CLASS_INDEX is None:
        path = file_utils.get_file("imagenet_class_index.json", CLASS_INDEX_PATH, cache_subdir="models")
        with open(path) as f:
            CLASS_INDEX = json.load(f)
    results = []
    for pred in preds:
        best = np.argsort(pred)[-top:][::-1]
        decoded = [tuple(CLASS_INDEX[str(i)]) + (pred[i],) for i in best]
        decoded.sort(key=lambda entry: entry[2], reverse=True)
        results.append(decoded)
    return results


# What each preprocessing mode does, for the docstring of a family's ``preprocess_input``.
_MODE_DESCRIPTIONS = {
    "caffe": "The images are converted from RGB to BGR, then each channel is centred on its ImageNet mean,\n"
             "    without scaling (``imagenet_utils.preprocess_input`` mode \"caffe\").",
    "tf": "The pixels are scaled from [0, 255] to [-1, 1] (``imagenet_utils.preprocess_input`` mode \"tf\").",
    "torch": "The pixels are scaled from [0, 255] to [0, 1], then each channel is normalized with ImageNet's mean\n"
             "    and standard deviation (``imagenet_utils.preprocess_input`` mode \"torch\").",
}
_PREPROCESS_DOC = """Preprocess a tensor or numpy array holding a batch of images (or one image) for {family}.

    {description}

    Parameters
    ----------
    x : numpy.ndarray or tensor or KerasTensor
        3D or 4D, 3 colour channels (RGB), values in [0, 255]. A float numpy array is modified in place.
    data_format : str, optional
        "channels_last" or "channels_first" (default ``keras.backend.image_data_format()``).

    Returns
    -------
    numpy.ndarray or tensor
        The preprocessed images, float32 (``floatx``) for integer input.
    """
_IDENTITY_PREPROCESS_DOC = """Return ``x`` unchanged; kept so every family module has a ``preprocess_input``.

    {family} models preprocess their [0, 255] RGB input themselves (the first layers of the model).

    Parameters
    ----------
    x : numpy.ndarray or tensor
    data_format : str, optional
        Unused.

    Returns
    -------
    numpy.ndarray or tensor
        ``x`` itself.
    """


def family_functions(module_name, mode):
    """A family module's public ``preprocess_input(x, data_format=None)`` and ``decode_predictions(preds, top=5)``.

    Parameters
    ----------
    module_name : str
        The family module's ``__name__``: the functions' ``__module__``, and its last part names the family
        in their docstrings.
    mode : {"caffe", "tf", "torch"} or None
        The :func:`preprocess_input` mode; None for families whose models preprocess their input themselves
        (``preprocess_input`` is then the identity).

    Returns
    -------
    tuple of 2 functions
        ``(preprocess_input, decode_predictions)``.
    """
    family = module_name.rsplit(".", 1)[-1]
    if mode is None:
        def family_preprocess_input(x, data_format=None):
            return x
        family_preprocess_input.__doc__ = _IDENTITY_PREPROCESS_DOC.format(family=family)
    else:
        def family_preprocess_input(x, data_format=None):
            return preprocess_input(x, data_format=data_format, mode=mode)
        family_preprocess_input.__doc__ = _PREPROCESS_DOC.format(family=family, description=_MODE_DESCRIPTIONS[mode])

    def family_decode_predictions(preds, top=5):
        return decode_predictions(preds, top=top)
    family_decode_predictions.__doc__ = decode_predictions.__doc__.replace(
        "each prediction.", f"each prediction of a {family} classifier.", 1)

    for function, name in ((family_preprocess_input, "preprocess_input"),
                           (family_decode_predictions, "decode_predictions")):
        function.__name__ = function.__qualname__ = name
        function.__module__ = module_name
    return family_preprocess_input, family_decode_predictions


def obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten, weights=None):
    """Validate ``input_shape`` for an application model and fill in its default.

    Parameters
    ----------
    input_shape : tuple or None
        The user's shape without the batch axis.
    default_size : int
        Image side the model (and its ImageNet weights) were made for.
    min_size : int
        Smallest image side the architecture accepts.
    data_format : str
    require_flatten : bool
        Whether the model ends in a classifier needing a static shape (``include_top``).
    weights : str or None

    Returns
    -------
    tuple
        The input shape.
    """
    channels_first = data_format == "channels_first"
    imagenet = weights == "imagenet"
    if imagenet and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels != 3:
            raise ValueError(f"The input must have 3 channels; Received `input_shape={input_shape}`")
    default_shape = (3, default_size, default_size) if channels_first else (default_size, default_size, 3)
    if imagenet and require_flatten:
        if input_shape is not None and input_shape != default_shape:
            raise ValueError("When setting `include_top=True` and loading `imagenet` weights, `input_shape` "
                             f"should be {default_shape}.  Received: input_shape={input_shape}")
        return default_shape
    if input_shape is None:
        if require_flatten:
            return default_shape
        return (3, None, None) if channels_first else (None, None, 3)
    if len(input_shape) != 3:
        raise ValueError("`input_shape` must be a tuple of three integers.")
    spatial = input_shape[1:] if channels_first else input_shape[:2]
    if any(side is not None and side < min_size for side in spatial):
        raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: input_shape={input_shape}")
    if require_flatten and None in spatial:
        raise ValueError("If `include_top` is True, you should specify a static `input_shape`. "
                         f"Received: input_shape={input_shape}")
    return input_shape


def validate_activation(classifier_activation, weights):
    """Pretrained weights allow only a softmax (or no) classifier activation.

    Raises
    ------
    ValueError
        ``weights`` is set and ``classifier_activation`` is neither None nor softmax.
    """
    if weights is None:
        return
    activation = activations.get(classifier_activation)
    if activation not in (activations.get("softmax"), activations.get(None)):
        raise ValueError("Only `None` and `softmax` activations are allowed for the `classifier_activation` "
                         "argument when using pretrained weights, with `include_top=True`; Received: "
                         f"classifier_activation={activation}")


def correct_pad(inputs, kernel_size):
    """The ZeroPadding2D padding that makes a stride-2 'valid' convolution centred like TF's 'same' one.

    Parameters
    ----------
    inputs : KerasTensor
        The 4D input of the convolution.
    kernel_size : int or tuple of 2 ints

    Returns
    -------
    tuple
        ``((top, bottom), (left, right))``.
    """
    spatial_axis = 2 if backend.image_data_format() == "channels_first" else 1
    size = inputs.shape[spatial_axis:spatial_axis + 2]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    # Unknown sizes are treated as even (the usual case for stride-2 stages).
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))
