"""tf.linalg operators built from blocks or other operators: BlockDiag, BlockLowerTriangular, Kronecker,
LowRankUpdate."""

import vfw.frontends.tensorflow as tf  # attributes are read at call time, after the package loaded
from vfw.frontends.tensorflow._linear_operator import LinearOperator, as_param, broadcast_batch


def _check_operators(operators):
    if not operators:
        raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
    if len({op.dtype for op in operators}) > 1:
        found = [(op.name, op.dtype) for op in operators]
        raise TypeError(f"Expected all operators to have the same dtype.  Found {found}")


def _all_hint(operators, hint, user_value, message):
    """TF's rule: a hint all the parts share holds for the whole; the user may not deny it."""
    if all(getattr(op, hint) for op in operators):
        if user_value is False:
            raise ValueError(message)
        return True
    return user_value


def _batch_of(operators):
    batch = []
    for op in operators:
        batch = broadcast_batch(batch, op.batch_shape.as_list())
    return batch


def _broadcast_dense(dense, batch):
    dims = dense.shape.as_list()
    return dense if dims[:-2] == batch else tf.broadcast_to(dense, batch + dims[-2:])


def _block_matrix(rows, batch, dtype):
    """Dense ``batch + [M, N]`` matrix from a grid of dense blocks (None: zeros of the right size)."""
    heights = [next(b for b in row if b is not None).shape[-2] for row in rows]
    widths = [next(rows[i][j] for i in range(len(rows)) if rows[i][j] is not None).shape[-1]
              for j in range(len(rows[0]))]
    lines = []
    for row, height in zip(rows, heights):
        parts = [tf.zeros(batch + [height, width], dtype) if block is None else _broadcast_dense(block, batch)
                 for block, width in zip(row, widths)]
        lines.append(tf.concat(parts, axis=-1))
    return tf.concat(lines, axis=-2)


class LinearOperatorBlockDiag(LinearOperator):
    """The block-diagonal matrix with the given operators on its diagonal."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        operators = list(operators)
        _check_operators(operators)
        self._operators = operators
        is_non_singular = _all_hint(operators, "is_non_singular", is_non_singular,
                                    "The direct sum of non-singular operators is always non-singular.")
        is_self_adjoint = _all_hint(operators, "is_self_adjoint", is_self_adjoint,
                                    "The direct sum of self-adjoint operators is always self-adjoint.")
        is_positive_definite = _all_hint(operators, "is_positive_definite", is_positive_definite,
                                         "The direct sum of positive definite operators is always positive definite.")
        super().__init__(operators[0].dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or "_ds_".join(op.name for op in operators), parameters)

    @property
    def operators(self):
        return list(self._operators)

    def _shape(self):
        rows = sum(op.shape[-2] for op in self._operators)
        cols = sum(op.shape[-1] for op in self._operators)
        return _batch_of(self._operators) + [rows, cols]

    def _to_dense(self):
        n = len(self._operators)
        grid = [[op.to_dense() if i == j else None for j, op in enumerate(self._operators)] for i in range(n)]
        return _block_matrix(grid, _batch_of(self._operators), self.dtype)

    def _blockwise(self, x, adjoint, adjoint_arg, apply):
        x = tf.linalg.adjoint(x) if adjoint_arg else x
        sizes = [op.shape[-2] if adjoint else op.shape[-1] for op in self._operators]
        pieces = tf.split(x, sizes, axis=-2)
        results = [apply(op, piece) for op, piece in zip(self._operators, pieces)]
        batch = broadcast_batch(_batch_of(self._operators), x.shape.as_list()[:-2])
        return tf.concat([_broadcast_dense(r, batch) for r in results], axis=-2)

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._blockwise(x, adjoint, adjoint_arg, lambda op, piece: op._matmul(piece, adjoint, False))

    def _solve(self, rhs, adjoint, adjoint_arg):
        return self._blockwise(rhs, adjoint, adjoint_arg, lambda op, piece: op._solve(piece, adjoint, False))

    def _diag_part(self):
        batch = _batch_of(self._operators)
        parts = [op.diag_part() for op in self._operators]
        return tf.concat([tf.broadcast_to(p, batch + p.shape.as_list()[-1:]) for p in parts], axis=-1)

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

    def _eigvals(self):
        return tf.concat([op.eigvals() for op in self._operators], axis=-1)

    def _adjoint(self):
        return LinearOperatorBlockDiag([op.adjoint() for op in self._operators])

    def _inverse(self):
        return LinearOperatorBlockDiag([op.inverse() for op in self._operators])

    def _cholesky(self):
        return LinearOperatorBlockDiag([op.cholesky() for op in self._operators])

    def _compose_left(self, right):
        if isinstance(right, LinearOperatorBlockDiag) and len(right._operators) == len(self._operators) and all(
                a.domain_dimension == b.range_dimension for a, b in zip(self._operators, right._operators)):
            return LinearOperatorBlockDiag([a.matmul(b) for a, b in zip(self._operators, right._operators)])
        return None


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """The block lower-triangular matrix whose row ``i`` holds the ``i + 1`` operators ``operators[i]``."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorBlockLowerTriangular"):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        operators = [list(row) for row in operators]
        _check_operators([op for row in operators for op in row])
        for i, row in enumerate(operators):
            if len(row) != i + 1:
                raise ValueError(f"Argument `operators[{i}]` must contain `{i + 1}` blocks. Received: {len(row)} "
                                 "blocks.")
        self._operators = operators
        diagonal = [row[-1] for row in operators]
        is_non_singular = _all_hint(diagonal, "is_non_singular", is_non_singular,
                                    "A blockwise lower-triangular operator with non-singular operators on the main "
                                    "diagonal is always non-singular.")
        super().__init__(operators[0][0].dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name, parameters)

    @property
    def operators(self):
        return [list(row) for row in self._operators]

    def _diagonal(self):
        return [row[-1] for row in self._operators]

    def _shape(self):
        diagonal = self._diagonal()
        rows = sum(op.shape[-2] for op in diagonal)
        cols = sum(op.shape[-1] for op in diagonal)
        return _batch_of([op for row in self._operators for op in row]) + [rows, cols]

    def _to_dense(self):
        n = len(self._operators)
        grid = [[row[j].to_dense() if j < len(row) else None for j in range(n)] for row in self._operators]
        return _block_matrix(grid, self.batch_shape.as_list(), self.dtype)

    def _determinant(self):
        result = self._diagonal()[0].determinant()
        for op in self._diagonal()[1:]:
            result = result * op.determinant()
        return result

    def _log_abs_determinant(self):
        result = self._diagonal()[0].log_abs_determinant()
        for op in self._diagonal()[1:]:
            result = result + op.log_abs_determinant()
        return result


def _kron(a, b):
    """Kronecker product of dense ``[..., m, n]`` and ``[..., p, q]`` (batch broadcast)."""
    m, n = a.shape.as_list()[-2:]
    p, q = b.shape.as_list()[-2:]
    product = a[..., :, None, :, None] * b[..., None, :, None, :]
    return tf.reshape(product, product.shape.as_list()[:-4] + [m * p, n * q])


class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product ``A1 (x) A2 (x) ...`` of operators."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        operators = list(operators)
        _check_operators(operators)
        self._operators = operators
        is_non_singular = _all_hint(operators, "is_non_singular", is_non_singular,
                                    "The Kronecker product of non-singular operators is always non-singular.")
        is_self_adjoint = _all_hint(operators, "is_self_adjoint", is_self_adjoint,
                                    "The Kronecker product of self-adjoint operators is always self-adjoint.")
        is_positive_definite = _all_hint(operators, "is_positive_definite", is_positive_definite,
                                         "The Kronecker product of positive-definite operators is always "
                                         "positive-definite.")
        super().__init__(operators[0].dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or "_x_".join(op.name for op in operators), parameters)

    @property
    def operators(self):
        return list(self._operators)

    def _shape(self):
        rows = cols = 1
        for op in self._operators:
            rows, cols = rows * op.shape[-2], cols * op.shape[-1]
        return _batch_of(self._operators) + [rows, cols]

    def _to_dense(self):
        dense = self._operators[0].to_dense()
        for op in self._operators[1:]:
            dense = _kron(dense, op.to_dense())
        return dense

    def _determinant(self):
        size = self._shape()[-1]
        result = None
        for op in self._operators:
            factor = op.determinant() ** (size // op.shape[-1])
            result = factor if result is None else result * factor
        return result

    def _log_abs_determinant(self):
        size = self._shape()[-1]
        result = None
        for op in self._operators:
            term = op.log_abs_determinant() * (size // op.shape[-1])
            result = term if result is None else result + term
        return result

    def _diag_part(self):
        diag = self._operators[0].diag_part()
        for op in self._operators[1:]:
            other = op.diag_part()
            product = diag[..., :, None] * other[..., None, :]
            diag = tf.reshape(product, product.shape.as_list()[:-2] + [-1])
        return diag

    def trace(self, name="trace"):
        result = self._operators[0].trace()
        for op in self._operators[1:]:
            result = result * op.trace()
        return result

    def _adjoint(self):
        return LinearOperatorKronecker([op.adjoint() for op in self._operators])

    def _inverse(self):
        return LinearOperatorKronecker([op.inverse() for op in self._operators])

    def _cholesky(self):
        return LinearOperatorKronecker([op.cholesky() for op in self._operators], is_non_singular=True,
                                       is_square=True)


class LinearOperatorLowRankUpdate(LinearOperator):
    """``base_operator + U diag(diag_update) V^H`` (``V = U`` when ``v`` is None)."""

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        parameters = dict(base_operator=base_operator, u=u, diag_update=diag_update, v=v,
                          is_diag_update_positive=is_diag_update_positive, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        self.base_operator = base_operator
        self._u = as_param(u, dtype=base_operator.dtype)
        self._v = None if v is None else as_param(v, dtype=base_operator.dtype)
        self._diag_update = None if diag_update is None else as_param(diag_update, dtype=base_operator.dtype)
        self._is_diag_update_positive = is_diag_update_positive
        symmetric = v is None
        if symmetric and base_operator.is_self_adjoint:
            if is_self_adjoint is False:
                raise ValueError("A = L + UDU^H, with L self-adjoint and D real diagonal. Since UDU^H is "
                                 "self-adjoint, this must be a self-adjoint operator.")
            is_self_adjoint = True
        if symmetric and base_operator.is_positive_definite and (diag_update is None or is_diag_update_positive):
            if is_positive_definite is False:
                raise ValueError("A = L + UDU^H, with L positive definite and D positive definite, this must be a "
                                 "positive definite operator.")
            is_positive_definite = True
        super().__init__(base_operator.dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name, parameters)

    @property
    def u(self):
        return tf.convert_to_tensor(self._u)

    @property
    def v(self):
        return self.u if self._v is None else tf.convert_to_tensor(self._v)

    @property
    def diag_update(self):
        return None if self._diag_update is None else tf.convert_to_tensor(self._diag_update)

    @property
    def is_diag_update_positive(self):
        return self._is_diag_update_positive

    def _shape(self):
        batch = broadcast_batch(self.base_operator.batch_shape.as_list(), self._u.shape.as_list()[:-2])
        return batch + self.base_operator.shape.as_list()[-2:]

    def _to_dense(self):
        u = self.u
        if self._diag_update is not None:
            u = u * self.diag_update[..., None, :]
        update = tf.linalg.matmul(u, self.v, adjoint_b=True)
        return self.base_operator.to_dense() + update


NAMESPACES = {"linalg": ["LinearOperatorBlockDiag", "LinearOperatorBlockLowerTriangular", "LinearOperatorKronecker",
                         "LinearOperatorLowRankUpdate"]}
TENSOR_METHODS = {}
