"""TF 1 spellings of TF 2 functions: ``tf.compat.v1.reduce_sum(x, reduction_indices=1, keep_dims=True)``,
``argmax(x, dimension=1)``, ``expand_dims(x, dim=0)``, ``to_float``, ``assign_add``..., and ``random_normal``,
``random_uniform``, ``truncated_normal`` (TF's own ``tf.random`` functions under their TF 1 names).

TF 2.21 keeps these in ``tf.compat.v1`` with their TF 1 signatures (deprecated argument names accepted next to the
TF 2 ones, ``keepdims=None`` meaning False); eagerly they compute exactly what the TF 2 function does, so each one
resolves its TF 1 arguments and calls vfw's TF 2 function.
"""

import vfw.frontends.tensorflow as _tf


def _either(new_name, new_value, old_name, old_value):
    """The value of an argument TF 1 also accepts under a deprecated name (ValueError, as TF's, when both are set)."""
    if old_value is None:
        return new_value
    if new_value is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
    return old_value


def _tf1_reduction(reduce):
    """The TF 1 form of the TF 2 reduction ``reduce``: ``reduction_indices`` for ``axis``, ``keep_dims``."""
    def reduction(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        axis = _either("axis", axis, "reduction_indices", reduction_indices)
        keepdims = bool(_either("keepdims", keepdims, "keep_dims", keep_dims))
        return reduce(input_tensor, axis=axis, keepdims=keepdims, name=name)

    reduction.__name__ = reduction.__qualname__ = reduce.__name__
    reduction.__doc__ = (f"``tf.compat.v1.{reduce.__name__}``: TF 2's ``{reduce.__name__}`` also taking TF 1's "
                         "``reduction_indices`` (for ``axis``) and ``keep_dims`` (for ``keepdims``).")
    return reduction


reduce_sum = _tf1_reduction(_tf.reduce_sum)
reduce_mean = _tf1_reduction(_tf.reduce_mean)
reduce_max = _tf1_reduction(_tf.reduce_max)
reduce_min = _tf1_reduction(_tf.reduce_min)
reduce_prod = _tf1_reduction(_tf.reduce_prod)
reduce_any = _tf1_reduction(_tf.reduce_any)
reduce_all = _tf1_reduction(_tf.reduce_all)
reduce_logsumexp = _tf1_reduction(_tf.reduce_logsumexp)


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=_tf.int64, name=None, reduction_indices=None,
                  keep_dims=None, input=None):  # noqa: A002  (TF's argument name)
    """``tf.compat.v1.count_nonzero``: TF 2's ``math.count_nonzero`` with TF 1's ``input_tensor``,
    ``reduction_indices`` and ``keep_dims`` spellings."""
    input_tensor = _either("input_tensor", input_tensor, "input", input)
    axis = _either("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_either("keepdims", keepdims, "keep_dims", keep_dims))
    return _tf.math.count_nonzero(input_tensor, axis=axis, keepdims=keepdims, dtype=dtype, name=name)


def _tf1_arg_reduction(reduce):
    """The TF 1 form of ``argmax``/``argmin``: ``dimension`` for ``axis``."""
    def arg_reduction(input, axis=None, name=None, dimension=None, output_type=_tf.int64):  # noqa: A002
        axis = _either("axis", axis, "dimension", dimension)
        return reduce(input, axis=axis, output_type=output_type, name=name)

    arg_reduction.__name__ = arg_reduction.__qualname__ = reduce.__name__
    arg_reduction.__doc__ = (f"``tf.compat.v1.{reduce.__name__}``: TF 2's ``{reduce.__name__}`` also taking TF 1's "
                             "``dimension`` (for ``axis``).")
    return arg_reduction


argmax = _tf1_arg_reduction(_tf.argmax)
argmin = _tf1_arg_reduction(_tf.argmin)


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002  (TF's argument name)
    """``tf.compat.v1.expand_dims``: TF 2's ``expand_dims`` also taking TF 1's ``dim`` (for ``axis``)."""
    axis = _either("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return _tf.expand_dims(input, axis, name=name)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002  (TF's argument name)
    """``tf.compat.v1.squeeze``: TF 2's ``squeeze`` also taking TF 1's ``squeeze_dims`` (for ``axis``)."""
    axis = _either("axis", axis, "squeeze_dims", squeeze_dims)
    return _tf.squeeze(input, axis=axis, name=name)


def shape(input, name=None, out_type=None):  # noqa: A002  (TF's argument name)
    """``tf.compat.v1.shape``: the shape of ``input`` as an int32 tensor (or ``out_type``)."""
    return _tf.shape(input, out_type=out_type, name=name)


def size(input, name=None, out_type=None):  # noqa: A002  (TF's argument name)
    """``tf.compat.v1.size``: the number of elements of ``input`` as an int32 tensor (or ``out_type``)."""
    return _tf.size(input, out_type=out_type, name=name)


def _tf1_cast(dtype, default_name):
    """``to_float``-style casts of TF 1 (``tf.cast`` to one fixed dtype)."""
    def cast(x, name=default_name):
        return _tf.cast(x, dtype, name=name)

    cast.__doc__ = f"``tf.compat.v1``'s cast of ``x`` to {dtype.name} (``tf.cast(x, tf.{dtype.name})``)."
    return cast


to_float = _tf1_cast(_tf.float32, "ToFloat")
to_double = _tf1_cast(_tf.float64, "ToDouble")
to_int32 = _tf1_cast(_tf.int32, "ToInt32")
to_int64 = _tf1_cast(_tf.int64, "ToInt64")


# TF's very objects of tf.random, under their TF 1 names
random_normal = _tf.random.normal
truncated_normal = _tf.random.truncated_normal
random_uniform = _tf.random.uniform


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """``tf.compat.v1.assign``: ``ref.assign(value)`` (eager variables only, as TF 2 runs them)."""
    return ref.assign(value, use_locking=use_locking, name=name)


def assign_add(ref, value, use_locking=None, name=None):
    """``tf.compat.v1.assign_add``: ``ref.assign_add(value)``."""
    return ref.assign_add(value, use_locking=use_locking, name=name)


def assign_sub(ref, value, use_locking=None, name=None):
    """``tf.compat.v1.assign_sub``: ``ref.assign_sub(value)``."""
    return ref.assign_sub(value, use_locking=use_locking, name=name)


_REDUCTIONS = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all",
               "reduce_logsumexp", "count_nonzero", "argmax", "argmin"]
NAMESPACES = {
    "": [*_REDUCTIONS, "expand_dims", "squeeze", "shape", "size", "to_float", "to_double", "to_int32", "to_int64",
         "random_normal", "truncated_normal", "random_uniform", "assign", "assign_add", "assign_sub"],
    "math": _REDUCTIONS,
}
"""Where TF 2.21 has each of these functions: ``""`` is ``tf.compat.v1`` itself."""
