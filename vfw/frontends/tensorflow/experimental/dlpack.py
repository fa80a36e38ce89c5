"""tf.experimental.dlpack: zero-copy exchange of tensors with other frameworks through DLPack capsules.

The capsules are numpy's (legacy, unversioned ``"dltensor"`` capsules, as TF's): a vfw tensor's array is
exported as it is, and an imported capsule becomes a numpy view of the producer's memory.  numpy has no
bfloat16 type, so bfloat16 arrays travel as 16-bit unsigned integers whose DLPack type code is rewritten.
"""

import ctypes

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes

_CAPSULE_NAME = b"dltensor"
_DTYPE_CODE_OFFSET = 20  # DLTensor: data pointer (8 bytes), device (2 x int32), ndim (int32), then the dtype code
_DL_UINT, _DL_BFLOAT = 1, 4

_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_type = type(np.arange(1).__dlpack__())


def _dtype_code(capsule):
    """The DLPack type-code byte of the DLTensor in an unconsumed capsule (read and written in place)."""
    return ctypes.c_uint8.from_address(_capsule_pointer(capsule, _CAPSULE_NAME) + _DTYPE_CODE_OFFSET)


def to_dlpack(tf_tensor):
    """A DLPack capsule sharing the memory of ``tf_tensor`` (consumable once, e.g. by ``torch.from_dlpack``).

    Parameters
    ----------
    tf_tensor : tf.Tensor
        An eager tensor of a numeric or bool dtype.

    Raises
    ------
    tf.errors.InvalidArgumentError
        When ``tf_tensor`` is no tensor (a variable, a Python or numpy value), or holds strings.
    """
    if not isinstance(tf_tensor, CoreTensor) or hasattr(tf_tensor, "_as_tensor"):  # variables too, as TF
        raise _dispatch.op_error("The argument to `to_dlpack` must be a TF tensor, not Python object")
    array = tf_tensor.array
    dtype = _dtypes.of_array(array)
    if dtype == _dtypes.string:
        raise _dispatch.op_error("to_dlpack: string tensors cannot be exported through DLPack (no DLPack type "
                                 "holds strings)")
    if not array.flags.writeable:  # numpy exports writable memory only to unversioned capsules
        array = array.copy()
    if dtype == _dtypes.bfloat16:
        capsule = array.view(np.uint16).__dlpack__()
        _dtype_code(capsule).value = _DL_BFLOAT
        return capsule
    return array.__dlpack__()


class _Producer:
    """What ``np.from_dlpack`` consumes: a capsule and the CPU device it must lie on."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def from_dlpack(dlcapsule):
    """The tensor viewing the memory of a DLPack capsule (e.g. ``torch.utils.dlpack.to_dlpack(t)``'s): no copy.

    Parameters
    ----------
    dlcapsule : PyCapsule
        An unconsumed ``"dltensor"`` capsule of a dense, row-major CPU array.

    Raises
    ------
    TypeError
        When ``dlcapsule`` is no capsule.
    tf.errors.InvalidArgumentError
        When the capsule was consumed already, has strides other than row-major, lies on another device or
        holds a type TF has no dtype for.
    """
    if type(dlcapsule) is not _capsule_type:
        raise TypeError(f"TFE_FromDlpackCapsule(): incompatible function arguments. The following argument types "
                        f"are supported:\n    1. (arg0: capsule, arg1: object) -> object\n\nInvoked with: "
                        f"{dlcapsule!r}")
    if not _capsule_is_valid(dlcapsule, _CAPSULE_NAME):
        raise _dispatch.op_error('DLPack tensor must be a capsule with name "dltensor", got "%s". Note that a '
                                 'DLPack tensor may be consumed at most once.used_dltensor')
    code = _dtype_code(dlcapsule)
    bfloat = code.value == _DL_BFLOAT
    if bfloat:
        code.value = _DL_UINT
    try:
        array = np.from_dlpack(_Producer(dlcapsule))
    except (BufferError, TypeError, ValueError, RuntimeError) as error:
        raise _dispatch.op_error(f"from_dlpack: {error}") from None
    if bfloat:
        array = array.view(_dtypes.bfloat16.np)
    if not array.flags.c_contiguous:
        raise _dispatch.op_error("Invalid strides array from DLPack")
    return _dispatch.wrap(array)
