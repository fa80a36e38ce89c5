"""TF1-era members of tf.Variable that TF 2 keeps: ``count_up_to``, ``batch_scatter_update``, ``load``... and the
graph-only ones, which raise TF's eager errors (a mixin of ``Variable``)."""

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._conversion import kernel_type_name

_EAGER_REFUSAL = "This operation is not supported when eager execution is enabled."


class LegacyVariableMethods:
    """Members of TF's variable API from TF 1 (deprecated, or meaningless in eager mode).

    Mixed into ``Variable``, which provides ``_dtype``, ``read_value``, ``assign``, ``assign_add`` and
    ``scatter_update`` / ``scatter_nd_update``.
    """

    def initialized_value(self):
        """Refused as in TF 2 (variables are initialized at creation: use ``read_value``)."""
        raise NotImplementedError()

    def is_initialized(self, name=None):
        """A bool scalar tensor: True (an eager variable holds a value from its creation)."""
        return _dispatch.wrap(np.array(True))

    def read_value_no_copy(self):
        """The variable's value (``read_value``: vfw never copies on read, reads are snapshots already)."""
        return self.read_value()

    def load(self, value, session=None):
        """Assign ``value`` (TF 1's way; ``assign`` in TF 2). Returns None."""
        self.assign(value)

    def count_up_to(self, limit):
        """Increment an integer variable until it reaches ``limit``; returns the value before the increment.

        Raises
        ------
        tf.errors.OutOfRangeError
            When the value already is ``limit`` or more.
        tf.errors.InvalidArgumentError
            When the variable is not int32/int64.
        """
        if self._dtype not in (_dtypes.int32, _dtypes.int64):
            raise _dispatch.op_error(
                f"Value for attr 'T' of {kernel_type_name(self._dtype)} is not in the list of allowed values: "
                f"int32, int64\n\t; NodeDef: {{{{node ResourceCountUpTo}}}}; Op<name=ResourceCountUpTo; "
                f"signature=resource:resource -> output:T; attr=limit:int; attr=T:type,allowed=[DT_INT32, DT_INT64]; "
                f"is_stateful=true>", "ResourceCountUpTo")
        before = self.read_value()
        if before.array >= limit:
            raise _dispatch.op_error(f"Reached limit of {limit}", "ResourceCountUpTo", errors.OutOfRangeError)
        self.assign_add(1)
        return before

    def batch_scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Scatter ``sparse_delta`` (a ``tf.IndexedSlices``) along the first dimension after the batch dimensions:
        with indices of shape ``[B..., K]``, ``v[b..., indices[b..., k]] = values[b..., k]``."""
        indices = np.asarray(getattr(sparse_delta, "indices", None))
        if indices.ndim <= 1:
            return self.scatter_update(sparse_delta, use_locking, name)
        batch = np.indices(indices.shape, dtype=indices.dtype)[:-1]  # the batch coordinates of every index
        full_indices = np.stack(list(batch) + [indices], axis=-1)
        return self.scatter_nd_update(full_indices, sparse_delta.values)

    def eval(self, session=None):
        raise RuntimeError(_EAGER_REFUSAL)

    def to_proto(self, export_scope=None):
        raise RuntimeError(_EAGER_REFUSAL)

    @property
    def create(self):
        raise RuntimeError(_EAGER_REFUSAL)
