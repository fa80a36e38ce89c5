"""tf.dtypes: DType objects and conversions."""

from vfw.frontends.tensorflow import _families
from vfw.frontends.tensorflow._dtypes import (  # noqa: F401
    ALL,
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

globals().update(_families.names("dtypes"))
del ALL
