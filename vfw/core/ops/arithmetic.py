"""Elementwise arithmetic: Add, Sub, Mul, ... (ONNX multidirectional broadcasting)."""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.ops._common import broadcast_infer, ufunc_kernel
from vfw.core.registry import defop

for _name, _ufunc in (("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply)):
    defop(_name, inputs="A:T B:T", outputs="C:T", types={"T": dt.NUMERIC}, infer=broadcast_infer)(
        ufunc_kernel(_ufunc)
    )
