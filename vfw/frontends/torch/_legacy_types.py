"""Legacy typed tensor constructors: ``torch.FloatTensor``, ``torch.LongTensor``, ...

Each is ``torch.Tensor`` with a fixed dtype: ``torch.FloatTensor([1, 2])`` copies data,
``torch.LongTensor(2, 3)`` makes an uninitialised tensor of that size, and
``isinstance(t, torch.FloatTensor)`` checks the dtype, as in torch.
"""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _device, _dispatch
from vfw.frontends.torch._tensor import _TYPE_NAMES, Tensor


class _LegacyType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.array.dtype == cls.np_dtype

    def __call__(cls, *args, device=None):
        _device.check(device)
        if len(args) == 1 and isinstance(args[0], CoreTensor):  # an alias of a tensor of this very dtype
            if args[0].array.dtype != cls.np_dtype:
                raise TypeError(f"torch.{cls.__name__}(): expected a tensor of dtype {cls.np_dtype.name}, got "
                                f"{args[0].array.dtype.name}")
            return _dispatch.wrap(args[0].array)
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            return _dispatch.wrap(_dispatch.array_from(args[0], cls.np_dtype))
        return _dispatch.wrap(np.empty(_dispatch.dims_of(args), cls.np_dtype))

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


_TYPES = {name.removeprefix("torch."): _LegacyType(name.removeprefix("torch."), (), {"np_dtype": d})
          for d, name in _TYPE_NAMES.items()}
FloatTensor = _TYPES["FloatTensor"]
DoubleTensor = _TYPES["DoubleTensor"]
HalfTensor = _TYPES["HalfTensor"]
BFloat16Tensor = _TYPES["BFloat16Tensor"]
LongTensor = _TYPES["LongTensor"]
IntTensor = _TYPES["IntTensor"]
ShortTensor = _TYPES["ShortTensor"]
CharTensor = _TYPES["CharTensor"]
ByteTensor = _TYPES["ByteTensor"]
BoolTensor = _TYPES["BoolTensor"]

__all__ = list(_TYPES)
