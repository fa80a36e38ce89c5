"""tf.linalg operators with a fixed pattern: Zeros, Householder, Permutation, Tridiag."""

import vfw.frontends.tensorflow as tf  # attributes are read at call time, after the package loaded
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._linear_operator import LinearOperator, as_param, check_float_dtype, dense_solve


class LinearOperatorZeros(LinearOperator):
    """The ``[M, N]`` zero matrix (with an optional batch shape)."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None, is_non_singular=False,
                 is_self_adjoint=True, is_positive_definite=False, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorZeros"):
        parameters = dict(num_rows=num_rows, num_columns=num_columns, batch_shape=batch_shape, dtype=dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        if is_non_singular:
            raise ValueError("A Zeros operator is always singular.")
        if is_positive_definite:
            raise ValueError("A Zeros operator is always not positive-definite.")
        if not is_self_adjoint:
            raise ValueError("A Zeros operator is always self adjoint.")
        self._num_rows = int(num_rows)
        self._num_columns = self._num_rows if num_columns is None else int(num_columns)
        if self._num_rows < 0 or self._num_columns < 0:
            raise ValueError(f"Argument num_rows must be non-negative. Received: {num_rows}.")
        if self._num_rows != self._num_columns:
            if is_square:
                raise ValueError("A Zeros operator is always square... unless num_columns differs.")
            is_self_adjoint = None
        self._batch = [] if batch_shape is None else [int(d) for d in tf.convert_to_tensor(batch_shape).numpy()]
        super().__init__(dtype or _dtypes.float32, False, is_self_adjoint, False,
                         self._num_rows == self._num_columns, name, parameters)

    def _shape(self):
        return self._batch + [self._num_rows, self._num_columns]

    def _matmul(self, x, adjoint, adjoint_arg):
        rows = self._num_columns if adjoint else self._num_rows
        cols = x.shape[-2] if adjoint_arg else x.shape[-1]
        batch = tf.broadcast_static_shape(tf.TensorShape(self._batch), x.shape[:-2]).as_list()
        return tf.zeros(batch + [rows, cols], self.dtype)

    def _to_dense(self):
        return tf.zeros(self._shape(), self.dtype)

    def _diag_part(self):
        return tf.zeros(self._batch + [min(self._num_rows, self._num_columns)], self.dtype)

    def _determinant(self):
        return tf.zeros(self._batch, self.dtype)

    def _log_abs_determinant(self):
        return tf.math.log(tf.zeros(self._batch, self.dtype))

    def _eigvals(self):
        return self._diag_part()

    def add_to_tensor(self, x, name="add_to_tensor"):
        return self._input(x)

    def _compose_left(self, right):
        return self

    def _compose_right(self, left):
        return self


class LinearOperatorHouseholder(LinearOperator):
    """The reflection ``I - 2 v v^H / (v^H v)`` across the hyperplane orthogonal to ``reflection_axis`` ``v``."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorHouseholder"):
        parameters = dict(reflection_axis=reflection_axis, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        self._axis = as_param(reflection_axis)
        check_float_dtype(self._axis, "reflection_axis")
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_non_singular is False:
            raise ValueError("A Householder operator is always non-singular.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is never positive definite.")
        super().__init__(self._axis.dtype, is_non_singular, True, False, True, name, parameters)

    @property
    def reflection_axis(self):
        return tf.convert_to_tensor(self._axis)

    def _shape(self):
        dims = self._axis.shape.as_list()
        return dims + dims[-1:]

    def _matmul(self, x, adjoint, adjoint_arg):
        x = tf.linalg.adjoint(x) if adjoint_arg else x
        axis = self.reflection_axis
        unit = axis / tf.cast(tf.norm(axis, axis=-1, keepdims=True), self.dtype)
        projection = tf.linalg.matmul(unit[..., None], tf.linalg.matmul(unit[..., None], x, adjoint_a=True))
        return x - 2 * projection

    def _solve(self, rhs, adjoint, adjoint_arg):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _determinant(self):
        return -tf.ones(self.batch_shape.as_list(), self.dtype)

    def _log_abs_determinant(self):
        return tf.zeros(self.batch_shape.as_list(), self.dtype)

    def _eigvals(self):
        n = self._shape()[-1]
        eigvals = tf.concat([-tf.ones([1], self.dtype), tf.ones([n - 1], self.dtype)], axis=0)
        return tf.broadcast_to(eigvals, self._shape()[:-1])

    def _inverse(self):
        return self


class LinearOperatorPermutation(LinearOperator):
    """The matrix sending basis vector ``perm[i]`` to ``i``: ``P[i, perm[i]] = 1``."""

    def __init__(self, perm, dtype=_dtypes.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        parameters = dict(perm=perm, dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._perm = tf.convert_to_tensor(perm)
        if not self._perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {self._perm.dtype}.")
        if is_non_singular is False:
            raise ValueError("A Permutation operator is always non-singular.")
        if is_square is False:
            raise ValueError("A Permutation operator is always square.")
        super().__init__(dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name, parameters)

    @property
    def perm(self):
        return self._perm

    def _shape(self):
        dims = self._perm.shape.as_list()
        return dims + dims[-1:]

    def _to_dense(self):
        return tf.one_hot(self._perm, self._shape()[-1], dtype=self.dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = tf.linalg.adjoint(x) if adjoint_arg else x
        return tf.linalg.matmul(self.to_dense(), x, adjoint_a=adjoint)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return self._matmul(rhs, not adjoint, adjoint_arg)

    def _determinant(self):
        return tf.linalg.det(self.to_dense())

    def _log_abs_determinant(self):
        return tf.zeros(self.batch_shape.as_list(), self.dtype)


def _tridiag_dense(diagonals, diagonals_format):
    """The dense matrix of tridiagonal ``diagonals`` in TF's ``compact``/``sequence``/``matrix`` formats."""
    if diagonals_format == "matrix":
        return diagonals
    if diagonals_format == "compact":
        superdiag, diag, subdiag = diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
    else:
        superdiag, diag, subdiag = diagonals
    return tf.linalg.diag(diag) + tf.linalg.diag(superdiag[..., :-1], k=1) + tf.linalg.diag(subdiag[..., 1:], k=-1)


class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal matrix from its three diagonals (``diagonals_format``: compact, sequence or matrix)."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorTridiag"):
        parameters = dict(diagonals=diagonals, diagonals_format=diagonals_format, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        if diagonals_format not in ("compact", "sequence", "matrix"):
            raise ValueError(f"Argument `diagonals_format` must be one of compact, matrix, sequence. Received : "
                             f"{diagonals_format}.")
        if diagonals_format == "sequence":
            self._diagonals = [as_param(d) for d in diagonals]
            dtype = self._diagonals[1].dtype
        else:
            self._diagonals = as_param(diagonals)
            dtype = self._diagonals.dtype
        if is_square is False:
            raise ValueError("Tridiagonal operators are always square.")
        self._format = diagonals_format
        super().__init__(dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name, parameters)

    @property
    def diagonals(self):
        return self._diagonals

    @property
    def diagonals_format(self):
        return self._format

    def _shape(self):
        if self._format == "sequence":
            dims = self._diagonals[1].shape.as_list()
            return dims + dims[-1:]
        dims = self._diagonals.shape.as_list()
        return dims[:-2] + [dims[-1], dims[-1]] if self._format == "compact" else dims

    def _to_dense(self):
        if self._format == "sequence":
            return _tridiag_dense([tf.convert_to_tensor(d) for d in self._diagonals], self._format)
        return _tridiag_dense(tf.convert_to_tensor(self._diagonals), self._format)

    def _tridiagonal(self):
        """The dense matrix of the three diagonals only (a ``matrix`` parameter's other entries are ignored)."""
        dense = self.to_dense()
        return tf.linalg.band_part(dense, 1, 1) if self._format == "matrix" else dense

    def _matmul(self, x, adjoint, adjoint_arg):
        return tf.linalg.matmul(self._tridiagonal(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return dense_solve(self._tridiagonal(), tf.linalg.adjoint(rhs) if adjoint_arg else rhs, adjoint)


NAMESPACES = {"linalg": ["LinearOperatorZeros", "LinearOperatorHouseholder", "LinearOperatorPermutation",
                         "LinearOperatorTridiag"]}
TENSOR_METHODS = {}
