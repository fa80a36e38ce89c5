"""tf.signal's N-dimensional transforms ``fftnd``/``ifftnd``/``rfftnd``/``irfftnd`` (and, in ``_fftnd_raw_ops``,
the raw ops ``tf.fftnd``...).

TF 2.21 registers no CPU kernel for ``FFTND``/``IFFTND``/``RFFTND``/``IRFFTND`` (only GPU ones), so on
the CPU every call that passes the Python-level checks fails with NotFoundError "Could not find
device for node".  These functions do TF's checks in TF's order (the input conversion, the dtype
attribute, the ValueError of the real transforms) and then raise that NotFoundError, as TF does on
a machine without a GPU; the 1-3 dimensional transforms (``fft2d``, ``rfft3d``...) compute.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, kernel_type_name, op_error

_COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))
_REAL = (np.dtype(np.float32), np.dtype(np.float64))
_REAL_OF = dict(zip(_COMPLEX, _REAL))
_COMPLEX_OF = dict(zip(_REAL, _COMPLEX))


def _type_attr_error(tf_op, attr, dtype, allowed):
    return op_error(f"Value for attr '{attr}' of {kernel_type_name(_dtypes.of_array(np.empty(0, dtype)))} is not in "
                    f"the list of allowed values: {allowed}\n\t; NodeDef: {{{{node {tf_op}}}}}", tf_op)


def _no_kernel(tf_op, attrs):
    """TF's NotFoundError for an op without a CPU kernel; ``attrs`` maps attribute names to numpy dtypes."""
    text = ", ".join(f"{name}=DT_{kernel_type_name(_dtypes.of_array(np.empty(0, d))).upper()}"
                     for name, d in attrs.items())
    return op_error(f"Could not find device for node: {{{{node {tf_op}}}}} = {tf_op}[{text}]\nAll kernels registered "
                    f"for op {tf_op}:\n  <no registered kernels>\n", tf_op, errors.NotFoundError)


def complex_input(tf_op, x, with_real=False):
    """TF's error for ``x`` given to a complex-input op without a CPU kernel (InvalidArgumentError for a real
    dtype, else NotFoundError naming ``Tcomplex``, and ``Treal`` when ``with_real``)."""
    if x.array.dtype not in _COMPLEX:
        raise _type_attr_error(tf_op, "Tcomplex", x.array.dtype, "complex64, complex128")
    attrs = {"Tcomplex": x.array.dtype}
    if with_real:
        attrs["Treal"] = _REAL_OF[x.array.dtype]
    return _no_kernel(tf_op, attrs)


def real_input(tf_op, x):
    """TF's error for ``x`` given to a real-input op without a CPU kernel."""
    if x.array.dtype not in _REAL:
        raise _type_attr_error(tf_op, "Treal", x.array.dtype, "float, double")
    return _no_kernel(tf_op, {"Tcomplex": _COMPLEX_OF[x.array.dtype], "Treal": x.array.dtype})


def _rank_check(x, axes):
    rank = 0 if axes is None else np.asarray(axes.array if hasattr(axes, "array") else axes).size
    if x.array.ndim < rank:  # TF's static shape check: the input has every axis named
        raise ValueError(f"Shape {tuple(x.array.shape)} must have rank at least {rank}")


def _complex_transform(tf_op):
    def transform(input_tensor, fft_length=None, axes=None, norm=None, name=None):
        x = convert_to_tensor(input_tensor, dtype_hint=_dtypes.complex64)
        _rank_check(x, axes)
        raise complex_input(tf_op, x)

    transform.__name__ = transform.__qualname__ = tf_op.lower()
    transform.__doc__ = (f"The {'inverse ' if tf_op[0] == 'I' else ''}N-dimensional DFT over ``axes``: TF 2.21 has no "
                         "CPU kernel for it (NotFoundError after TF's dtype check).")
    return transform


def _real_transform(tf_op, inverse):
    wanted = "tf.complex64 or tf.complex128" if inverse else "tf.float32 or tf.float64"

    def transform(input_tensor, fft_length=None, axes=None, norm=None, name=None):
        x = convert_to_tensor(input_tensor, dtype_hint=_dtypes.complex64 if inverse else _dtypes.float32)
        if x.array.dtype not in (_COMPLEX if inverse else _REAL):
            raise ValueError(f"{tf_op[:-2]} requires {wanted} inputs, got: {x}")
        _rank_check(x, axes)
        raise complex_input(tf_op, x, with_real=True) if inverse else real_input(tf_op, x)

    transform.__name__ = transform.__qualname__ = tf_op.lower()
    transform.__doc__ = (f"The {'inverse ' if inverse else ''}N-dimensional real DFT over ``axes``: TF 2.21 has no "
                         "CPU kernel for it (NotFoundError after TF's dtype check).")
    return transform


fftnd = _complex_transform("FFTND")
ifftnd = _complex_transform("IFFTND")
rfftnd = _real_transform("RFFTND", False)
irfftnd = _real_transform("IRFFTND", True)

NAMESPACES = {"signal": ["fftnd", "ifftnd", "rfftnd", "irfftnd"]}
TENSOR_METHODS = {}
