"""TF's trace types of tf.function arguments: what selects a trace (:func:`trace_key`), and how a traced shape
covers or generalizes others (``reduce_retracing``)."""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow._function_arguments import element_spec_key, unwrapped
from vfw.frontends.tensorflow._tensor_spec import TensorSpec, spec_of


def trace_key(obj, shapes, tensors=None):
    """TF's type of an argument, without tensor shapes (appended to ``shapes``; the tensors to ``tensors`` when
    given): what selects a trace."""
    obj = unwrapped(obj)
    if isinstance(obj, (CoreTensor, np.ndarray)) or hasattr(obj, "_as_tensor"):
        spec = spec_of(obj)
        if spec is not None:
            if hasattr(obj, "_as_tensor"):  # a variable: its shape is part of its type
                return ("variable", spec.dtype, tuple(spec.shape.as_list()))
            shapes.append(tuple(spec.shape.as_list()))
            if tensors is not None:
                tensors.append(obj)
            return ("tensor", spec.dtype)
    if isinstance(obj, TensorSpec):
        shapes.append(None if obj.shape.rank is None else tuple(obj.shape.as_list()))
        return ("tensor", obj.dtype)
    if isinstance(obj, (list, tuple)):
        return (type(obj), tuple([trace_key(x, shapes, tensors) for x in obj]))
    kind = "dataset" if _is_dataset(obj) else getattr(type(obj), "_tf_trace_kind", None)
    if kind is not None:  # TF's type of a dataset, an iterator, a distributed dataset: its element spec
        return (kind, element_spec_key(obj.element_spec, shapes, tensors))
    if isinstance(obj, dict):
        return (type(obj), tuple([(k, trace_key(obj[k], shapes, tensors)) for k in sorted(obj, key=repr)]))
    try:
        hash(obj)
    except TypeError:
        return ("object", type(obj), id(obj))
    return ("value", type(obj), obj)


def _is_dataset(obj):
    from vfw.frontends.tensorflow.data._dataset import Dataset

    return isinstance(obj, Dataset)


def covers(general, shape):
    """Whether the traced shape ``general`` (dims may be None; None for an unknown rank) admits ``shape``."""
    if general is None:
        return True
    if shape is None or len(shape) != len(general):
        return False
    return all(g is None or g == s for g, s in zip(general, shape))


def common(a, b):
    """The most specific shape covering ``a`` and ``b`` (TF's reduce_retracing generalization)."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple([x if x == y else None for x, y in zip(a, b)])
