"""``NextAfter(A, B)`` (not an ONNX operator): the next representable value after ``A`` in the direction of
``B``, elementwise in the inputs' float dtype (``B`` itself where ``A == B``; NaN if either is NaN).

Inputs broadcast and share one float dtype; numpy's ``nextafter`` steps in that dtype (float16, bfloat16,
float32 and float64 each have their own spacing).  Not differentiable (the result is piecewise constant in
``B`` and a step away from ``A``; neither framework defines a gradient).
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.ops._common import broadcast_infer, ufunc_kernel
from vfw.core.registry import defop

_factory = ufunc_kernel(np.nextafter)
_factory.__doc__ = "The next representable value after A towards B."
defop("NextAfter", inputs="A:T B:T", outputs="C:T", types={"T": dt.FLOATS}, infer=broadcast_infer)(_factory)

not_differentiable("NextAfter")
