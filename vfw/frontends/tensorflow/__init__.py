"""vfw.tensorflow: TensorFlow 2's API over the vfw engine (``import vfw.tensorflow as tf``).

Op families live one per module (``_math_ops``, ``_array_ops``...); each lists which of its
functions appear in which TF namespace (``NAMESPACES``) and its Tensor methods
(``TENSOR_METHODS``). This module gathers the top-level namespace; ``tf.math``, ``tf.nn``...
are the modules of the same names.
"""

from vfw.frontends.tensorflow import (  # noqa: F401
    _families,
    _tensor,
    _type_names,
    audio,  # noqa: F401
    autodiff,  # noqa: F401
    autograph,
    bitwise,  # noqa: F401
    config,
    debugging,
    dtypes,
    errors,
    image,
    io,
    linalg,
    lookup,
    math,
    nest,
    nn,
    ragged,
    random,
    saved_model,
    sets,
    signal,
    sparse,
    strings,
    summary,
    sysconfig,  # noqa: F401
    train,
    version,  # noqa: F401
)
from vfw.frontends.tensorflow._dtypes import (  # noqa: F401
    DType,
    as_dtype,
    bfloat16,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint32,
    quint8,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from vfw.frontends.tensorflow._shape import TensorShape  # noqa: F401
from vfw.frontends.tensorflow._tensor import TensorBase as Tensor  # noqa: F401 (tf.Tensor: eager values subclass it)

newaxis = None
__version__ = version.VERSION

globals().update(_families.names("tf"))
_families.install(Tensor)
_type_names.install()  # TF's names for the classes (``type(x)`` prints as under TF), once all are defined


def __getattr__(name):
    # tf.keras, tf.data, tf.distribute, tf.experimental, tf.test, tf.compat and tf.raw_ops load on first use: they
    # import the ops above, and plain tf code needs none of them.
    if name in ("keras", "data", "distribute", "experimental", "test", "compat", "profiler", "raw_ops"):
        import importlib
        return importlib.import_module(f"vfw.frontends.tensorflow.{name}")
    if name in ("initializers", "losses", "metrics", "optimizers"):  # TF's lazy aliases of the tf.keras namespaces
        import importlib
        return importlib.import_module(f"vfw.frontends.tensorflow.keras.{name}")
    raise AttributeError(f"module 'tensorflow' has no attribute '{name}'")
