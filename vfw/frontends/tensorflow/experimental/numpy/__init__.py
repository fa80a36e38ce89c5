"""tf.experimental.numpy (``import vfw.tensorflow.experimental.numpy as tnp``): NumPy's API on tf.Tensor.

Functions take arrays, tensors and Python values, promote them with NumPy's rules (float64/int64
for Python values, as TF NumPy) and compute with vfw.tensorflow's ops, returning tf.Tensors
(``tnp.ndarray`` is ``tf.Tensor``).
"""

import math as _math_constants

import numpy as _np

from vfw.frontends.tensorflow._tensor import TensorBase as ndarray  # noqa: F401, N813 (TF NumPy's name)
from vfw.frontends.tensorflow.experimental.numpy import random  # noqa: F401
from vfw.frontends.tensorflow.experimental.numpy._behavior import (  # noqa: F401
    disable_numpy_behavior as _disable_numpy_behavior,
)
from vfw.frontends.tensorflow.experimental.numpy._behavior import (  # noqa: F401
    experimental_enable_numpy_behavior,
)
from vfw.frontends.tensorflow.experimental.numpy._creation import (  # noqa: F401
    arange,
    array,
    asanyarray,
    ascontiguousarray,
    copy,
    diag,
    diag_indices,
    diagflat,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    geomspace,
    identity,
    ix_,
    linspace,
    logspace,
    meshgrid,
    ones,
    ones_like,
    tri,
    tril,
    triu,
    vander,
    zeros,
    zeros_like,
)
from vfw.frontends.tensorflow.experimental.numpy._linalg import (  # noqa: F401
    cross,
    diagonal,
    dot,
    einsum,
    finfo,
    inner,
    iscomplex,
    iscomplexobj,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    isreal,
    isrealobj,
    issubdtype,
    kron,
    matmul,
    outer,
    polyval,
    tensordot,
    trace,
    vdot,
)
from vfw.frontends.tensorflow.experimental.numpy._math import (  # noqa: F401
    FUNCTIONS as _ELEMENTWISE,
)
from vfw.frontends.tensorflow.experimental.numpy._math import (  # noqa: F401
    angle,
    around,
    clip,
    divmod,
    gcd,
    heaviside,
    hypot,
    imag,
    lcm,
    logaddexp,
    logaddexp2,
    rad2deg,
    real,
    sign,
    signbit,
    true_divide,
)
from vfw.frontends.tensorflow.experimental.numpy._promotion import (  # noqa: F401
    asarray,
    promote_types,
    result_type,
)
from vfw.frontends.tensorflow.experimental.numpy._reductions import (  # noqa: F401
    all,
    allclose,
    amax,
    amin,
    any,
    argmax,
    argmin,
    argsort,
    array_equal,
    average,
    count_nonzero,
    cumprod,
    cumsum,
    isclose,
    max,
    mean,
    min,
    nanmean,
    nanprod,
    nansum,
    nonzero,
    prod,
    ptp,
    select,
    sort,
    std,
    sum,
    var,
    where,
)
from vfw.frontends.tensorflow.experimental.numpy._shapes import (  # noqa: F401
    append,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_arrays,
    broadcast_to,
    compress,
    concatenate,
    diff,
    dsplit,
    dstack,
    expand_dims,
    flatten,
    flip,
    fliplr,
    flipud,
    hsplit,
    hstack,
    isscalar,
    moveaxis,
    ndim,
    pad,
    ravel,
    repeat,
    reshape,
    roll,
    rot90,
    shape,
    size,
    split,
    squeeze,
    stack,
    swapaxes,
    take,
    take_along_axis,
    tile,
    transpose,
    vsplit,
    vstack,
)

globals().update(_ELEMENTWISE)
divide = true_divide
round = around

# NumPy's scalar types and constants, as TF NumPy exports them.
bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
int_, float_, complex_ = _np.int64, _np.float64, _np.complex128
object_, string_, unicode_ = _np.object_, _np.bytes_, _np.str_
inexact = _np.inexact
iinfo = _np.iinfo
e, pi, inf = _math_constants.e, _math_constants.pi, _math_constants.inf
newaxis = None
