"""tf.linalg convolution-like operators: Circulant (1-D, 2-D, 3-D blocks; products through FFTs of the
spectrum, as TF) and Toeplitz (through its dense matrix)."""

import vfw.frontends.tensorflow as tf  # attributes are read at call time, after the package loaded
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._linear_operator import LinearOperator, as_param

_FORWARD = {1: "fft", 2: "fft2d", 3: "fft3d"}
_INVERSE = {1: "ifft", 2: "ifft2d", 3: "ifft3d"}


def _as_complex(x, dtype):
    """``x`` as complex ``dtype``; real values go through tf.complex, which carries gradients (Cast does not)."""
    if not x.dtype.is_complex:
        x = tf.complex(x, tf.zeros_like(x))
    return tf.cast(x, dtype)


class _BaseCirculant(LinearOperator):
    """A circulant matrix (block circulant with circulant blocks for depth 2 and 3) given by its spectrum,
    the FFT of its convolution kernel; ``spectrum`` has shape ``batch + block_shape``."""

    block_depth = 1

    def __init__(self, spectrum, input_output_dtype=_dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True, name=None):
        parameters = dict(spectrum=spectrum, input_output_dtype=input_output_dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        if not is_square:
            raise ValueError("A circulant operator is always square.")
        self._spectrum = as_param(spectrum)
        allowed = (_dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128)
        if self._spectrum.dtype not in allowed:
            raise TypeError(f"Argument `spectrum` must have dtype in [tf.float32, tf.float64, tf.complex64, "
                            f"tf.complex128]. Received: {self._spectrum.dtype!r}.")
        if self._spectrum.shape.rank is not None and self._spectrum.shape.rank < self.block_depth:
            raise ValueError(f"Argument `spectrum` must have at least {self.block_depth} dimensions. Received: "
                             f"{self._spectrum.shape}.")
        if not self._spectrum.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real spectrum always corresponds to a self-adjoint operator.")
            is_self_adjoint = True
        super().__init__(input_output_dtype, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name or type(self).__name__, parameters)

    @property
    def spectrum(self):
        return tf.convert_to_tensor(self._spectrum)

    def _complex_spectrum(self):
        spectrum = self.spectrum
        if spectrum.dtype.is_complex:
            return spectrum
        return _as_complex(spectrum, _dtypes.complex128 if spectrum.dtype == _dtypes.float64 else _dtypes.complex64)

    @property
    def block_shape(self):
        return tf.TensorShape(self._spectrum.shape.as_list()[-self.block_depth:])

    def block_shape_tensor(self):
        return tf.constant(self.block_shape.as_list(), tf.int32)

    def _shape(self):
        dims = self._spectrum.shape.as_list()
        size = 1
        for d in dims[-self.block_depth:]:
            size *= d
        return dims[:-self.block_depth] + [size, size]

    def _to_output(self, y):
        return tf.cast(y if self.dtype.is_complex else tf.math.real(y), self.dtype)

    def _apply_spectrum(self, x, adjoint, adjoint_arg, divide):
        """``IFFT(spectrum^(+-1) * FFT(x))`` over the block axes of each column of ``x``."""
        x = tf.linalg.adjoint(x) if adjoint_arg else x
        spectrum = self._complex_spectrum()
        spectrum = tf.math.conj(spectrum) if adjoint else spectrum
        x = _as_complex(x, spectrum.dtype)
        dims = x.shape.as_list()
        columns = tf.linalg.matrix_transpose(x)
        blocks = tf.reshape(columns, dims[:-2] + [dims[-1]] + self.block_shape.as_list())
        transformed = getattr(tf.signal, _FORWARD[self.block_depth])(blocks)
        spectrum = tf.expand_dims(spectrum, -self.block_depth - 1)
        transformed = transformed / spectrum if divide else transformed * spectrum
        y = getattr(tf.signal, _INVERSE[self.block_depth])(transformed)
        y = tf.reshape(y, y.shape.as_list()[:-self.block_depth] + [dims[-2]])
        return self._to_output(tf.linalg.matrix_transpose(y))

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._apply_spectrum(x, adjoint, adjoint_arg, False)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return self._apply_spectrum(rhs, adjoint, adjoint_arg, True)

    def _flat_spectrum(self):
        spectrum = self._complex_spectrum()
        return tf.reshape(spectrum, self.batch_shape.as_list() + [self._shape()[-1]])

    def convolution_kernel(self, name="convolution_kernel"):
        kernel = getattr(tf.signal, _INVERSE[self.block_depth])(self._complex_spectrum())
        return self._to_output(kernel)

    def _diag_part(self):
        diag_value = tf.reduce_mean(self._flat_spectrum(), axis=-1, keepdims=True)
        return self._to_output(diag_value * tf.ones(self._shape()[:-1], diag_value.dtype))

    def trace(self, name="trace"):
        return self._to_output(tf.reduce_sum(self._flat_spectrum(), axis=-1))

    def _determinant(self):
        return self._to_output(tf.reduce_prod(self._flat_spectrum(), axis=-1))

    def _log_abs_determinant(self):
        log_abs = tf.reduce_sum(tf.math.log(tf.abs(self._flat_spectrum())), axis=-1)
        return tf.cast(log_abs, self.dtype)

    def _eigvals(self):
        return self._to_output(self._flat_spectrum())

    def _with_spectrum(self, spectrum, **hints):
        return type(self)(spectrum, input_output_dtype=self.dtype, **hints)

    def _adjoint(self):
        return self._with_spectrum(tf.math.conj(self._complex_spectrum()), is_non_singular=self.is_non_singular,
                                   is_self_adjoint=self.is_self_adjoint,
                                   is_positive_definite=self.is_positive_definite)

    def _inverse(self):
        return self._with_spectrum(1.0 / self.spectrum, is_non_singular=self.is_non_singular,
                                   is_self_adjoint=self.is_self_adjoint,
                                   is_positive_definite=self.is_positive_definite)

    def _cholesky(self):
        return self._with_spectrum(tf.sqrt(self.spectrum), is_non_singular=True, is_self_adjoint=True,
                                   is_positive_definite=True)

    def _compose_left(self, right):
        if type(right) is type(self):
            return self._with_spectrum(self.spectrum * right.spectrum, is_non_singular=(
                True if self.is_non_singular and right.is_non_singular else None))
        return None


class LinearOperatorCirculant(_BaseCirculant):
    """A circulant ``[N, N]`` matrix from the spectrum (FFT of its first column), shape ``[..., N]``."""

    block_depth = 1


class LinearOperatorCirculant2D(_BaseCirculant):
    """A block circulant matrix with circulant blocks, from a spectrum of shape ``[..., N0, N1]``."""

    block_depth = 2


class LinearOperatorCirculant3D(_BaseCirculant):
    """A doubly nested block circulant matrix from a spectrum of shape ``[..., N0, N1, N2]``."""

    block_depth = 3


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column ``col`` and first row ``row`` (``row[0]`` is ignored)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorToeplitz"):
        parameters = dict(col=col, row=row, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._col = as_param(col)
        self._row = as_param(row, dtype=self._col.dtype)
        if is_square is False:
            raise ValueError("Only square Toeplitz operators currently supported.")
        super().__init__(self._col.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         parameters)

    @property
    def col(self):
        return tf.convert_to_tensor(self._col)

    @property
    def row(self):
        return tf.convert_to_tensor(self._row)

    def _shape(self):
        batch = tf.broadcast_static_shape(self._col.shape[:-1], self._row.shape[:-1]).as_list()
        n = self._col.shape[-1]
        return batch + [n, n]

    def _to_dense(self):
        col, row = self.col, self.row
        batch = self._shape()[:-2]
        n = self._shape()[-1]
        col = tf.broadcast_to(col, batch + [n])
        row = tf.broadcast_to(row, batch + [n])
        # entry (i, j) is diagonals[n - 1 + i - j], with the row reversed before the column
        diagonals = tf.concat([tf.reverse(row[..., 1:], axis=[-1]), col], axis=-1)
        steps = tf.range(n)
        index = n - 1 + steps[:, None] - steps[None, :]
        return tf.gather(diagonals, index, axis=-1, batch_dims=0)


NAMESPACES = {"linalg": ["LinearOperatorCirculant", "LinearOperatorCirculant2D", "LinearOperatorCirculant3D",
                         "LinearOperatorToeplitz"]}
TENSOR_METHODS = {}
