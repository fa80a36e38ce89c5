"""tf.linalg.LinearOperator: the base class, its hints and checks, and the operators built from others
(Adjoint, Inversion, Composition).

An operator is a (batch of) matrix known by its parameters; the base class computes everything from
``to_dense()`` with the dense tf.linalg ops (so tapes differentiate through them), and subclasses
override what their structure makes cheaper or exact (``_matmul``, ``_solve``, ``_determinant``...).
Methods that return operators (``matmul``/``solve`` of two operators, ``inverse``, ``adjoint``,
``cholesky``) keep TF's structured results: each class says what it becomes through ``_inverse``,
``_adjoint``, ``_cholesky``, and products go through ``compose`` (Identity, Diag@Diag, Circulant@Circulant...).
"""

import vfw.frontends.tensorflow as tf  # attributes are read at call time, after the package loaded
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._shape import TensorShape

FLOATS = (_dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128)


def as_param(value, dtype=None, dtype_hint=None):
    """A constructor parameter as TF keeps it: variables stay variables (read at use), the rest become tensors."""
    if hasattr(value, "_as_tensor") and not isinstance(value, tf.Tensor):
        return value
    return tf.convert_to_tensor(value, dtype=dtype, dtype_hint=dtype_hint)


def check_float_dtype(value, argument):
    """TF's TypeError for operator parameters that are not float/complex."""
    if value.dtype not in FLOATS:
        allowed = ", ".join(f"tf.{d.name}" for d in FLOATS)
        raise TypeError(f"Argument `{argument}` must have dtype in [{allowed}]. Received: {value.dtype!r}.")


def combined_hint(name, operator_value, user_value):
    """A hint of an operator built from another (Adjoint, Inversion): the user's value may not contradict it."""
    if operator_value is False and user_value:
        raise ValueError(f"Argument `{name}` or argument `operator` must have supplied hint `{name}` equal to "
                         f"`True` or `None`. Found `operator.{name}`: {operator_value}, `{name}`: {user_value}.")
    if operator_value is True and user_value is False:
        raise ValueError(f"Argument `{name}` or argument `operator` must have supplied hint `{name}` equal to "
                         f"`True` or `None`. Found `operator.{name}`: {operator_value}, `{name}`: {user_value}.")
    return operator_value if user_value is None else user_value


def _check_compatible(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")


class LinearOperator:
    """Base class of TF's linear operators: a (batch of) ``[M, N]`` matrix known by its parameters.

    Parameters
    ----------
    dtype : DType
        Of the matrix and of the arguments of ``matmul``/``solve``.
    is_non_singular, is_self_adjoint, is_positive_definite, is_square : bool or None
        Hints about the matrix (None: unknown); contradictory hints raise ValueError as in TF.
    name : str
    parameters : dict
        The constructor's arguments, returned by ``parameters``.
    """

    def __init__(self, dtype, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None, parameters=None):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._dtype = None if dtype is None else _dtypes.as_dtype(dtype)
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._is_square_set_or_implied_by_hints = is_square
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})

    # -- description ---------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def parameters(self):
        return dict(self._parameters)

    @property
    def graph_parents(self):
        return []

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        rows, cols = self.shape[-2], self.shape[-1]
        auto = None if rows is None or cols is None else rows == cols
        hint = self._is_square_set_or_implied_by_hints
        if auto is not None and hint is not None and auto != hint:
            raise ValueError(f"User set is_square hint to {hint}, but the operator was {'' if auto else 'not '}"
                             "square.")
        return hint if auto is None else auto

    # -- shapes ----------------------------------------------------------------------------------
    @property
    def shape(self):
        return TensorShape(self._shape())

    def shape_tensor(self, name="shape_tensor"):
        return tf.constant(self.shape.as_list(), tf.int32)

    @property
    def batch_shape(self):
        return TensorShape(self.shape.as_list()[:-2])

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return tf.constant(self.batch_shape.as_list(), tf.int32)

    @property
    def tensor_rank(self):
        return self.shape.rank

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        return tf.constant(self.tensor_rank, tf.int32)

    @property
    def domain_dimension(self):
        return self.shape[-1]

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        return tf.constant(self.domain_dimension, tf.int32)

    @property
    def range_dimension(self):
        return self.shape[-2]

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        return tf.constant(self.range_dimension, tf.int32)

    # -- checks ----------------------------------------------------------------------------------
    def _input(self, x):
        x = tf.convert_to_tensor(x, dtype_hint=self.dtype)
        if x.dtype != self.dtype:
            raise TypeError(f"Expected argument to have dtype {self.dtype!r}.  Found: {x.dtype!r} in tensor {x}")
        return x

    def _refuse_non_square(self, what):
        if self.is_square is False:
            raise NotImplementedError(f"{what} not implemented for an operator that is expected to not be square.")

    def _refuse_singular_solve(self):
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to be singular.")
        self._refuse_non_square("Exact solve")

    # -- products and solves ---------------------------------------------------------------------
    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``op @ x`` (``op^H`` with ``adjoint``, ``x^H`` with ``adjoint_arg``); an operator ``x`` gives an operator."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            if right.range_dimension is not None and left.domain_dimension is not None \
                    and right.range_dimension != left.domain_dimension:
                raise ValueError(f"Operators are incompatible. Expected `x` to have dimension "
                                 f"{left.domain_dimension} but got {right.range_dimension}.")
            return compose(left, right)
        x = self._input(x)
        _check_compatible(self.shape[-2] if adjoint else self.shape[-1], x.shape[-1 if adjoint_arg else -2])
        return self._matmul(x, adjoint, adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec"):
        """``op @ x`` for vectors ``x`` (last axis)."""
        x = self._input(x)
        _check_compatible(self.shape[-2] if adjoint else self.shape[-1], x.shape[-1])
        return self._matmul(x[..., None], adjoint, False)[..., 0]

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``X`` with ``op @ X = rhs`` (``op^H`` with ``adjoint``, ``rhs^H`` with ``adjoint_arg``)."""
        self._refuse_singular_solve()
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            if right.range_dimension is not None and left.range_dimension is not None \
                    and right.range_dimension != left.range_dimension:
                raise ValueError(f"Operators are incompatible. Expected `rhs` to have dimension "
                                 f"{left.range_dimension} but got {right.range_dimension}.")
            return compose(left.inverse(), right)
        rhs = self._input(rhs)
        _check_compatible(self.shape[-1] if adjoint else self.shape[-2], rhs.shape[-1 if adjoint_arg else -2])
        return self._solve(rhs, adjoint, adjoint_arg)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """``solve`` for vectors ``rhs`` (last axis)."""
        self._refuse_singular_solve()
        rhs = self._input(rhs)
        _check_compatible(self.shape[-1] if adjoint else self.shape[-2], rhs.shape[-1])
        return self._solve(rhs[..., None], adjoint, False)[..., 0]

    def _matmul(self, x, adjoint, adjoint_arg):
        return tf.linalg.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint, adjoint_arg):
        rhs = tf.linalg.adjoint(rhs) if adjoint_arg else rhs
        if self.is_self_adjoint and self.is_positive_definite:
            chol, rhs = broadcast_matrices(tf.linalg.cholesky(self.to_dense()), rhs)
            return tf.linalg.cholesky_solve(chol, rhs)
        return dense_solve(self.to_dense(), rhs, adjoint)

    # -- dense views and scalars -----------------------------------------------------------------
    def to_dense(self, name="to_dense"):
        """The matrix as a tensor of shape ``batch_shape + [M, N]``."""
        return self._to_dense()

    def _to_dense(self):
        eye = tf.eye(self.domain_dimension, dtype=self.dtype)
        return self._matmul(tf.broadcast_to(eye, self.batch_shape.as_list() + eye.shape.as_list()), False, False)

    def diag_part(self, name="diag_part"):
        return self._diag_part()

    def _diag_part(self):
        return tf.linalg.diag_part(self.to_dense())

    def trace(self, name="trace"):
        return tf.reduce_sum(self.diag_part(), axis=-1)

    def determinant(self, name="det"):
        self._refuse_non_square("Determinant")
        return self._determinant()

    def _determinant(self):
        if self.is_self_adjoint and self.is_positive_definite:
            return tf.exp(self._log_abs_determinant())
        return tf.linalg.det(self.to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        self._refuse_non_square("Determinant")
        return self._log_abs_determinant()

    def _log_abs_determinant(self):
        if self.is_self_adjoint and self.is_positive_definite:
            chol_diag = tf.linalg.diag_part(tf.linalg.cholesky(self.to_dense()))
            log_abs = 2.0 * tf.reduce_sum(tf.math.log(tf.abs(chol_diag)), axis=-1)
        else:
            _, log_abs = tf.linalg.slogdet(self.to_dense())
            log_abs = tf.math.real(log_abs) if log_abs.dtype.is_complex else log_abs
        return tf.cast(log_abs, self.dtype)

    def eigvals(self, name="eigvals"):
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        return self._eigvals()

    def _eigvals(self):
        return tf.cast(tf.linalg.eigvalsh(self.to_dense()), self.dtype)

    def cond(self, name="cond"):
        singular = tf.linalg.svd(self.to_dense(), compute_uv=False)
        return tf.reduce_max(singular, axis=-1) / tf.reduce_min(singular, axis=-1)

    def add_to_tensor(self, x, name="add_to_tensor"):
        """``x + to_dense()``."""
        return self._input(x) + self.to_dense()

    # -- structured results ----------------------------------------------------------------------
    def adjoint(self, name="adjoint"):
        """The adjoint operator (``self`` when self-adjoint; structured where TF's is)."""
        if self.is_self_adjoint is True:
            return self
        return self._adjoint()

    H = property(adjoint)

    def _adjoint(self):
        return LinearOperatorAdjoint(self)

    def inverse(self, name="inverse"):
        """The inverse operator (structured where TF's is, else a LinearOperatorInversion)."""
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        return self._inverse()

    def _inverse(self):
        return LinearOperatorInversion(self)

    def cholesky(self, name="cholesky"):
        """The lower-triangular Cholesky factor as an operator (needs self-adjoint, positive definite hints)."""
        if not (self.is_self_adjoint and self.is_positive_definite):
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive definite self adjoint matrix.")
        return self._cholesky()

    def _cholesky(self):
        from vfw.frontends.tensorflow._linear_operator_basic import LinearOperatorLowerTriangular
        return LinearOperatorLowerTriangular(tf.linalg.cholesky(self.to_dense()), is_non_singular=True,
                                             is_self_adjoint=False, is_square=True)

    def _compose_left(self, right):
        """``self @ right`` as a structured operator, or None for TF's default (a composition)."""
        return None

    def _compose_right(self, left):
        """``left @ self`` as a structured operator, or None."""
        return None

    # -- assertions (eager: checked at once) -----------------------------------------------------
    def assert_non_singular(self, name="assert_non_singular"):
        tf.debugging.assert_positive(tf.abs(self.determinant()),
                                     message="Singular operator:  Diagonal contained zero values.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        dense = self.to_dense()
        tf.debugging.assert_equal(dense, tf.linalg.adjoint(dense), message="Matrix was not equal to its adjoint.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        tf.linalg.cholesky(self.to_dense())


def broadcast_matrices(a, b):
    """``a`` and ``b`` with their batch shapes broadcast together (tf.linalg.solve does not broadcast)."""
    batch = tf.broadcast_static_shape(a.shape[:-2], b.shape[:-2]).as_list()
    if a.shape[:-2].as_list() != batch:
        a = tf.broadcast_to(a, batch + a.shape.as_list()[-2:])
    if b.shape[:-2].as_list() != batch:
        b = tf.broadcast_to(b, batch + b.shape.as_list()[-2:])
    return a, b


def dense_solve(matrix, rhs, adjoint):
    """``matrix^-1 @ rhs`` (``matrix^-H`` with ``adjoint``), batch shapes broadcast."""
    matrix, rhs = broadcast_matrices(matrix, rhs)
    if matrix.dtype.is_complex:
        # vfw's MatrixSolve computes in real LAPACK types only; the inverse handles complex matrices
        return tf.linalg.matmul(tf.linalg.inv(matrix, adjoint=adjoint), rhs)
    return tf.linalg.solve(matrix, rhs, adjoint=adjoint)


def broadcast_batch(shape_a, shape_b):
    """Broadcast of two batch shapes (lists)."""
    return tf.broadcast_static_shape(TensorShape(shape_a), TensorShape(shape_b)).as_list()


def compose(left, right):
    """``left @ right`` of two operators: TF's structured product where one exists, else a composition."""
    product = left._compose_left(right)
    if product is None:
        product = right._compose_right(left)
    return LinearOperatorComposition([left, right]) if product is None else product


class LinearOperatorAdjoint(LinearOperator):
    """The adjoint ``A^H`` of an operator ``A``."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operator=operator, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self.operator = operator
        super().__init__(operator.dtype,
                         combined_hint("is_non_singular", operator.is_non_singular, is_non_singular),
                         combined_hint("is_self_adjoint", operator.is_self_adjoint, is_self_adjoint),
                         combined_hint("is_positive_definite", operator.is_positive_definite, is_positive_definite),
                         combined_hint("is_square", operator.is_square, is_square),
                         name or operator.name + "_adjoint", parameters)

    def _shape(self):
        dims = self.operator.shape.as_list()
        return dims[:-2] + [dims[-1], dims[-2]]

    def _matmul(self, x, adjoint, adjoint_arg):
        return self.operator._matmul(x, not adjoint, adjoint_arg)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return self.operator._solve(rhs, not adjoint, adjoint_arg)

    def _to_dense(self):
        return tf.linalg.adjoint(self.operator.to_dense())

    def _diag_part(self):
        return tf.math.conj(self.operator.diag_part())

    def _determinant(self):
        return tf.math.conj(self.operator.determinant())

    def _log_abs_determinant(self):
        return self.operator.log_abs_determinant()

    def _adjoint(self):
        return self.operator


class LinearOperatorInversion(LinearOperator):
    """The inverse ``A^{-1}`` of a square, non-singular operator ``A`` (products are solves)."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operator=operator, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self.operator = operator
        for hint in ("is_square", "is_non_singular"):
            if getattr(operator, hint) is False:
                user = locals()[hint]
                raise ValueError(f"Argument `{hint}` or argument `operator` must have supplied hint `{hint}` equal "
                                 f"to `True` or `None`. Found `operator.{hint}`: False, `{hint}`: {user}.")
        super().__init__(operator.dtype,
                         combined_hint("is_non_singular", operator.is_non_singular, is_non_singular),
                         combined_hint("is_self_adjoint", operator.is_self_adjoint, is_self_adjoint),
                         combined_hint("is_positive_definite", operator.is_positive_definite, is_positive_definite),
                         combined_hint("is_square", operator.is_square, is_square),
                         name or operator.name + "_inv", parameters)

    def _shape(self):
        return self.operator.shape.as_list()

    def _matmul(self, x, adjoint, adjoint_arg):
        return self.operator._solve(x, adjoint, adjoint_arg)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return self.operator._matmul(rhs, adjoint, adjoint_arg)

    def _determinant(self):
        return 1.0 / self.operator.determinant()

    def _log_abs_determinant(self):
        return -self.operator.log_abs_determinant()

    def _inverse(self):
        return self.operator

    def _adjoint(self):
        return LinearOperatorInversion(self.operator.adjoint())


class LinearOperatorComposition(LinearOperator):
    """The product ``A1 @ A2 @ ... @ An`` of operators, applied right to left."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        operators = list(operators)
        if not operators:
            raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
        dtypes = {op.dtype for op in operators}
        if len(dtypes) > 1:
            found = [(op.name, op.dtype) for op in operators]
            raise TypeError(f"Expected all operators to have the same dtype.  Found {found}")
        self._operators = operators
        if all(op.is_non_singular for op in operators):
            if is_non_singular is False:
                raise ValueError("The composition of non-singular operators is always non-singular.")
            is_non_singular = True
        super().__init__(operators[0].dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or "_o_".join(op.name for op in operators), parameters)

    @property
    def operators(self):
        return list(self._operators)

    def _shape(self):
        batch = []
        for op in self._operators:
            batch = broadcast_batch(batch, op.batch_shape.as_list())
        return batch + [self._operators[0].shape[-2], self._operators[-1].shape[-1]]

    def _matmul(self, x, adjoint, adjoint_arg):
        ordered = self._operators if adjoint else self._operators[::-1]
        result = ordered[0]._matmul(x, adjoint, adjoint_arg)
        for op in ordered[1:]:
            result = op._matmul(result, adjoint, False)
        return result

    def _solve(self, rhs, adjoint, adjoint_arg):
        ordered = self._operators[::-1] if adjoint else self._operators
        result = ordered[0]._solve(rhs, adjoint, adjoint_arg)
        for op in ordered[1:]:
            result = op._solve(result, adjoint, False)
        return result

    def _to_dense(self):
        dense = self._operators[0].to_dense()
        for op in self._operators[1:]:
            dense = op._matmul(dense, True, True)
            dense = tf.linalg.adjoint(dense)
        return dense

    def _determinant(self):
        result = self._operators[0].determinant()
        for op in self._operators[1:]:
            result = result * op.determinant()
        return result

    def _log_abs_determinant(self):
        result = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            result = result + op.log_abs_determinant()
        return result


NAMESPACES = {"linalg": ["LinearOperator", "LinearOperatorAdjoint", "LinearOperatorInversion",
                         "LinearOperatorComposition"]}
TENSOR_METHODS = {}
