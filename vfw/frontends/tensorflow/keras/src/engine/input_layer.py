"""``keras.Input`` and ``keras.layers.InputLayer``: the entry points of functional graphs."""

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.engine.dtype_policy import standardize_dtype, standardize_shape
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor, Node
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer


class InputLayer(Layer):
    """The layer holding a graph input: its output is a KerasTensor of shape ``batch_shape``.

    Parameters
    ----------
    shape : tuple, optional
        The shape without the batch dim.
    batch_size : int, optional
    dtype : str, optional
        Default ``floatx()``.
    sparse, ragged : bool, optional
        Recorded.
    batch_shape : tuple, optional
        The full shape (instead of ``shape`` and ``batch_size``).
    input_tensor : KerasTensor, optional
        Use this tensor as the input.
    optional : bool
        Whether the model accepts None for this input.
    name : str, optional
    """

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, ragged=None, batch_shape=None,
                 input_tensor=None, optional=False, name=None, **kwargs):
        super().__init__(name=name)
        if "input_shape" in kwargs:
            warn_for_user("Argument `input_shape` is deprecated. Use `shape` instead.")
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs:
            batch_shape = kwargs.pop("batch_input_shape")
        if input_tensor is not None:
            batch_shape, dtype, sparse = _check_input_tensor(input_tensor, shape, batch_size, batch_shape, dtype,
                                                             sparse)
        else:
            if shape is not None and batch_shape is not None:
                raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
            if batch_size is not None and batch_shape is not None:
                raise ValueError("You cannot pass both `batch_size` and `batch_shape` at the same time.")
            if shape is None and batch_shape is None:
                raise ValueError("You must pass a `shape` argument.")
            if shape is not None:
                batch_shape = (batch_size,) + standardize_shape(shape)
        self._batch_shape = standardize_shape(batch_shape)
        self._dtype = standardize_dtype(dtype)
        self.sparse = bool(sparse)
        self.ragged = bool(ragged)
        if input_tensor is None:
            input_tensor = KerasTensor(shape=batch_shape, dtype=dtype, sparse=sparse, ragged=ragged, name=name)
        self._input_tensor = input_tensor
        Node(self, (), {}, input_tensor)
        self.built = True
        self.optional = optional

    def call(self):
        return None

    @property
    def batch_shape(self):
        """tuple: the input's shape, batch dim included."""
        return self._batch_shape

    @property
    def dtype(self):
        """str: the input's dtype."""
        return self._dtype

    def get_config(self):
        return {"batch_shape": self.batch_shape, "dtype": self.dtype, "sparse": self.sparse, "ragged": self.ragged,
                "name": self.name, "optional": self.optional}


def _check_input_tensor(tensor, shape, batch_size, batch_shape, dtype, sparse):
    """``(batch_shape, dtype, sparse)`` of ``tensor``, after Keras' checks of the other arguments against it."""
    if not isinstance(tensor, KerasTensor):
        raise ValueError(f"Argument `input_tensor` must be a KerasTensor. Received invalid type: input_tensor={tensor} "
                         f"(of type {type(tensor)})")
    conflicts = [
        ("batch_size", batch_size is not None and (len(tensor.shape) < 1 or tensor.shape[0] != batch_size)),
        ("shape", shape is not None and (len(shape) != len(tensor.shape) - 1 or tuple(shape) != tensor.shape[1:])),
        ("batch_shape", batch_shape is not None and tuple(batch_shape) != tensor.shape),
        ("dtype", dtype is not None and tensor.dtype != dtype),
        ("sparse", sparse is not None and tensor.sparse != sparse),
    ]
    for argument, conflict in conflicts:
        if conflict:
            raise ValueError(f"When providing the `input_tensor` argument, you cannot provide an incompatible "
                             f"`{argument}` argument.")
    return tensor.shape, tensor.dtype, tensor.sparse


def Input(shape=None, batch_size=None, dtype=None, sparse=None, ragged=None, batch_shape=None, name=None, tensor=None,
          optional=False):
    """A KerasTensor to start a functional model from (the output of a new InputLayer).

    Parameters
    ----------
    shape : tuple, optional
        The shape without the batch dim (None for unknown dims).
    batch_size : int, optional
    dtype : str, optional
    sparse, ragged : bool, optional
    batch_shape : tuple, optional
        The full shape.
    name : str, optional
        The name of the layer and of the tensor.
    tensor : KerasTensor, optional
    optional : bool

    Returns
    -------
    KerasTensor
    """
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse, ragged=ragged,
                       batch_shape=batch_shape, name=name, input_tensor=tensor, optional=optional)
    return layer.output


API = {"keras": ["Input"], "layers": ["Input", "InputLayer"]}
