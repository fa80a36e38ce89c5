"""tf.linalg operators given by one matrix-like parameter: FullMatrix, Diag, LowerTriangular, Identity,
ScaledIdentity, Zeros, Householder, Permutation, Tridiag (see ``_linear_operator`` for the base class)."""

import vfw.frontends.tensorflow as tf  # attributes are read at call time, after the package loaded
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._linear_operator import (
    LinearOperator,
    as_param,
    broadcast_batch,
    broadcast_matrices,
    check_float_dtype,
)


def _value(param):
    """A parameter's current value as a tensor (variables are read here, so tapes see them)."""
    return tf.convert_to_tensor(param)


def _dims(x):
    return x.shape.as_list()


class LinearOperatorFullMatrix(LinearOperator):
    """An operator holding its dense ``[..., M, N]`` matrix."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorFullMatrix"):
        parameters = dict(matrix=matrix, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._matrix = as_param(matrix)
        check_float_dtype(self._matrix, "matrix")
        super().__init__(self._matrix.dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name, parameters)

    def _shape(self):
        return _dims(self._matrix)

    def _to_dense(self):
        return _value(self._matrix)


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of ``tril`` (entries above the diagonal are ignored)."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorLowerTriangular"):
        parameters = dict(tril=tril, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        self._tril = as_param(tril)
        check_float_dtype(self._tril, "tril")
        super().__init__(self._tril.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name, parameters)

    def _shape(self):
        return _dims(self._tril)

    def _to_dense(self):
        return tf.linalg.band_part(_value(self._tril), -1, 0)

    def _solve(self, rhs, adjoint, adjoint_arg):
        rhs = tf.linalg.adjoint(rhs) if adjoint_arg else rhs
        matrix, rhs = broadcast_matrices(self.to_dense(), rhs)
        return tf.linalg.triangular_solve(matrix, rhs, lower=True, adjoint=adjoint)

    def _diag_part(self):
        return tf.linalg.diag_part(_value(self._tril))

    def _determinant(self):
        return tf.reduce_prod(self._diag_part(), axis=-1)

    def _log_abs_determinant(self):
        return tf.reduce_sum(tf.math.log(tf.abs(self._diag_part())), axis=-1)

    def _eigvals(self):
        return self._diag_part()

    def _compose_left(self, right):
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorLowerTriangular(self.to_dense() * right.diag[..., None, :])
        return None

    def _compose_right(self, left):
        if isinstance(left, LinearOperatorDiag):
            return LinearOperatorLowerTriangular(left.diag[..., :, None] * self.to_dense())
        return None


class LinearOperatorDiag(LinearOperator):
    """A diagonal matrix with diagonal ``diag`` (shape ``[..., N]``)."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorDiag"):
        parameters = dict(diag=diag, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._diag = as_param(diag)
        check_float_dtype(self._diag, "diag")
        if not self._diag.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name, parameters)

    @property
    def diag(self):
        return _value(self._diag)

    def _shape(self):
        dims = _dims(self._diag)
        return dims + dims[-1:]

    def _to_dense(self):
        return tf.linalg.diag(self.diag)

    def _matmul(self, x, adjoint, adjoint_arg):
        diag = tf.math.conj(self.diag) if adjoint else self.diag
        x = tf.linalg.adjoint(x) if adjoint_arg else x
        return diag[..., None] * x

    def _solve(self, rhs, adjoint, adjoint_arg):
        diag = tf.math.conj(self.diag) if adjoint else self.diag
        rhs = tf.linalg.adjoint(rhs) if adjoint_arg else rhs
        return rhs / diag[..., None]

    def _diag_part(self):
        return self.diag

    def _determinant(self):
        return tf.reduce_prod(self.diag, axis=-1)

    def _log_abs_determinant(self):
        log_abs = tf.reduce_sum(tf.math.log(tf.abs(self.diag)), axis=-1)
        return tf.cast(log_abs, self.dtype) if self.dtype.is_complex else log_abs

    def _eigvals(self):
        return self.diag

    def add_to_tensor(self, x, name="add_to_tensor"):
        x = self._input(x)
        return tf.linalg.set_diag(x, self.diag + tf.linalg.diag_part(x))

    def _with_diag(self, diag, **hints):
        return LinearOperatorDiag(diag, **hints)

    def _adjoint(self):
        return self._with_diag(tf.math.conj(self.diag), is_non_singular=self.is_non_singular,
                               is_self_adjoint=self.is_self_adjoint, is_positive_definite=self.is_positive_definite,
                               is_square=True)

    def _inverse(self):
        return self._with_diag(1.0 / self.diag, is_non_singular=self.is_non_singular,
                               is_self_adjoint=self.is_self_adjoint, is_positive_definite=self.is_positive_definite,
                               is_square=True)

    def _cholesky(self):
        return self._with_diag(tf.sqrt(self.diag), is_non_singular=True, is_self_adjoint=True,
                               is_positive_definite=True, is_square=True)

    def _compose_left(self, right):
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(self.diag * right.diag, **_product_hints(self, right))
        if isinstance(right, LinearOperatorScaledIdentity):
            return LinearOperatorDiag(self.diag * right.multiplier[..., None], **_product_hints(self, right))
        return None

    def _compose_right(self, left):
        if isinstance(left, LinearOperatorScaledIdentity):
            return LinearOperatorDiag(left.multiplier[..., None] * self.diag, **_product_hints(left, self))
        return None


def _product_hints(a, b):
    """TF's hints of a product of two commuting operators."""
    hints = {hint: True if getattr(a, hint) and getattr(b, hint) else None
             for hint in ("is_non_singular", "is_self_adjoint", "is_positive_definite")}
    return dict(hints, is_square=True)


class _BaseIdentity(LinearOperator):
    """Shared by Identity and ScaledIdentity: a multiple of the identity of size ``num_rows``."""

    def _check_num_rows(self, num_rows):
        if hasattr(num_rows, "numpy"):
            num_rows = num_rows.numpy()
        if int(num_rows) != num_rows:
            raise TypeError(f"Argument num_rows must be integer-valued. Received: {num_rows}.")
        if num_rows < 0:
            raise ValueError(f"Argument num_rows must be non-negative. Received: {num_rows}.")
        return int(num_rows)

    def _scale(self):
        raise NotImplementedError

    def _matmul(self, x, adjoint, adjoint_arg):
        x = tf.linalg.adjoint(x) if adjoint_arg else x
        scale = self._scale()
        if scale is not None:
            scale = tf.math.conj(scale) if adjoint else scale
            x = scale[..., None, None] * x
        return self._broadcast(x)

    def _solve(self, rhs, adjoint, adjoint_arg):
        rhs = tf.linalg.adjoint(rhs) if adjoint_arg else rhs
        scale = self._scale()
        if scale is not None:
            scale = tf.math.conj(scale) if adjoint else scale
            rhs = rhs / scale[..., None, None]
        return self._broadcast(rhs)

    def _broadcast(self, x):
        batch = broadcast_batch(self.batch_shape.as_list(), _dims(x)[:-2])
        return x if _dims(x)[:-2] == batch else tf.broadcast_to(x, batch + _dims(x)[-2:])

    def _ones_diag(self):
        return tf.ones(self.batch_shape.as_list() + [self._num_rows], self.dtype)

    def _to_dense(self):
        return self._matmul(tf.eye(self._num_rows, dtype=self.dtype), False, False)

    def _diag_part(self):
        scale = self._scale()
        diag = self._ones_diag()
        return diag if scale is None else scale[..., None] * diag


class LinearOperatorIdentity(_BaseIdentity):
    """The ``[N, N]`` identity (with an optional batch shape)."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True, is_self_adjoint=True,
                 is_positive_definite=True, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorIdentity"):
        parameters = dict(num_rows=num_rows, batch_shape=batch_shape, dtype=dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, assert_proper_shapes=assert_proper_shapes, name=name)
        for hint, text in (("is_non_singular", "non-singular"), ("is_self_adjoint", "self-adjoint"),
                           ("is_positive_definite", "positive definite"), ("is_square", "square")):
            if not parameters[hint]:
                raise ValueError(f"An identity operator is always {text}.")
        self._num_rows = self._check_num_rows(num_rows)
        self._batch = [] if batch_shape is None else [int(d) for d in tf.convert_to_tensor(batch_shape).numpy()]
        if any(d < 0 for d in self._batch):
            raise ValueError(f"Argument batch_shape must be non-negative. Received: {batch_shape}.")
        super().__init__(dtype or _dtypes.float32, True, True, True, True, name, parameters)

    def _shape(self):
        return self._batch + [self._num_rows, self._num_rows]

    def _scale(self):
        return None

    def _determinant(self):
        return tf.ones(self._batch, self.dtype)

    def _log_abs_determinant(self):
        return tf.zeros(self._batch, self.dtype)

    def _eigvals(self):
        return self._ones_diag()

    def add_to_tensor(self, x, name="add_to_tensor"):
        x = self._input(x)
        return tf.linalg.set_diag(x, tf.linalg.diag_part(x) + 1)

    def _inverse(self):
        return self

    def _cholesky(self):
        return self

    def _compose_left(self, right):
        return right

    def _compose_right(self, left):
        return left


class LinearOperatorScaledIdentity(_BaseIdentity):
    """``multiplier * I`` of size ``num_rows``; the batch shape is the multiplier's shape."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorScaledIdentity"):
        parameters = dict(num_rows=num_rows, multiplier=multiplier, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, assert_proper_shapes=assert_proper_shapes, name=name)
        if not is_square:
            raise ValueError("A ScaledIdentity operator is always square.")
        self._multiplier = as_param(multiplier)
        if not self._multiplier.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        self._num_rows = self._check_num_rows(num_rows)
        super().__init__(self._multiplier.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name, parameters)

    @property
    def multiplier(self):
        return _value(self._multiplier)

    def _shape(self):
        return _dims(self._multiplier) + [self._num_rows, self._num_rows]

    def _scale(self):
        return self.multiplier

    def _determinant(self):
        return self.multiplier ** self._num_rows

    def _log_abs_determinant(self):
        log_abs = self._num_rows * tf.math.log(tf.abs(self.multiplier))
        return tf.cast(log_abs, self.dtype) if self.dtype.is_complex else log_abs

    def _eigvals(self):
        return self._diag_part()

    def add_to_tensor(self, x, name="add_to_tensor"):
        x = self._input(x)
        return tf.linalg.set_diag(x, tf.linalg.diag_part(x) + self.multiplier[..., None])

    def _with_multiplier(self, multiplier, **hints):
        return LinearOperatorScaledIdentity(self._num_rows, multiplier, **hints)

    def _adjoint(self):
        return self._with_multiplier(tf.math.conj(self.multiplier), is_non_singular=self.is_non_singular,
                                     is_self_adjoint=self.is_self_adjoint,
                                     is_positive_definite=self.is_positive_definite)

    def _inverse(self):
        return self._with_multiplier(1.0 / self.multiplier, is_non_singular=self.is_non_singular,
                                     is_self_adjoint=True, is_positive_definite=self.is_positive_definite)

    def _cholesky(self):
        return self._with_multiplier(tf.sqrt(self.multiplier), is_non_singular=True, is_self_adjoint=True,
                                     is_positive_definite=True)

    def _compose_left(self, right):
        if isinstance(right, LinearOperatorScaledIdentity):
            return self._with_multiplier(self.multiplier * right.multiplier, **_product_hints(self, right))
        return None


NAMESPACES = {"linalg": ["LinearOperatorFullMatrix", "LinearOperatorLowerTriangular", "LinearOperatorDiag",
                         "LinearOperatorIdentity", "LinearOperatorScaledIdentity"]}
TENSOR_METHODS = {}
