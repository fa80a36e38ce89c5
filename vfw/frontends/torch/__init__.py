"""vfw.torch: the PyTorch API over the vfw engine (``import vfw.torch as torch``).

Function families live one per module (``_creation``, ``_pointwise``, ...); each
lists its public functions in ``__all__`` and its Tensor methods in
``TENSOR_METHODS``. This module gathers them into the ``torch`` namespace.
"""

from vfw.frontends.torch import (  # noqa: F401
    _api_extras,
    _creation,
    _dtype,
    _foreach,
    _functional_rnn,
    _methods,
    _nn_native,
    _nn_ops,
    _symbolic,
    accelerator,
    autograd,
    backends,
    cuda,
    distributed,
    fft,
    jit,
    linalg,  # noqa: F401
    nn,
    onnx,
    optim,
    random,
    serialization,
    special,
    testing,
    utils,
    version,
)
from vfw.frontends.torch._config import (  # noqa: F401
    are_deterministic_algorithms_enabled,
    channels_last,
    channels_last_3d,
    compile,
    contiguous_format,
    e,
    get_default_device,
    get_float32_matmul_precision,
    get_num_interop_threads,
    get_num_threads,
    inf,
    is_deterministic_algorithms_warn_only_enabled,
    layout,
    memory_format,
    nan,
    newaxis,
    pi,
    preserve_format,
    set_default_device,
    set_float32_matmul_precision,
    set_num_interop_threads,
    set_num_threads,
    sparse_coo,
    strided,
    typename,
    use_deterministic_algorithms,
)
from vfw.frontends.torch._device import device  # noqa: F401
from vfw.frontends.torch._dtype import (  # noqa: F401
    bfloat16,
    bool,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    set_default_dtype,
    short,
    uint8,
    uint16,
    uint32,
    uint64,
)
from vfw.frontends.torch._legacy_types import (  # noqa: F401
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from vfw.frontends.torch._size import Size  # noqa: F401
from vfw.frontends.torch._tensor import Tensor  # noqa: F401
from vfw.frontends.torch.autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: F401
from vfw.frontends.torch.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from vfw.frontends.torch.serialization import load, save  # noqa: F401

__version__ = version.__version__

for _module in (*_methods.FAMILIES, _nn_ops, _nn_native, _api_extras, _functional_rnn, _foreach, _symbolic):
    globals().update({_name: getattr(_module, _name) for _name in _module.__all__})
_methods.install(Tensor)
del _module

from vfw.frontends.torch import _quantized  # noqa: E402
from vfw.frontends.torch._fake_quantize import *  # noqa: E402,F401,F403
from vfw.frontends.torch._quantized import *  # noqa: E402,F401,F403

_quantized.install(globals())  # cat/stack/relu/reshape... also take quantized tensors

from vfw.frontends.torch import (  # noqa: E402,F401
    _C,
    _autocast,
    _cuda_amp,
    _dynamo,
    amp,
    compiler,
    cpu,
    distributions,
    export,
    func,
    futures,
    hub,
    library,
    mps,
    multiprocessing,
    overrides,
    profiler,
    signal,
    sparse,
    storage,
    types,
    xpu,
)
from vfw.frontends.torch._autocast import *  # noqa: E402,F401,F403
from vfw.frontends.torch._ops import ops  # noqa: E402,F401
from vfw.frontends.torch._sparse import sparse_coo_tensor  # noqa: E402,F401
from vfw.frontends.torch._sparse_csr import sparse_csr, sparse_csr_tensor  # noqa: E402,F401
from vfw.frontends.torch._sparse_ops import hspmm, smm  # noqa: E402,F401
from vfw.frontends.torch._sparse_ops import mm as spmm  # noqa: E402,F401
from vfw.frontends.torch.amp import GradScaler, autocast  # noqa: E402,F401
from vfw.frontends.torch.func import vmap  # noqa: E402,F401
from vfw.frontends.torch.overrides import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: E402,F401

overrides.enable_protocol(Tensor)  # Tensor.__torch_function__; the dispatching wrappers wait for a first user

_autocast.install()  # last: wraps the functions on torch's autocast lists wherever they are bound

from vfw.frontends.torch import _type_names, ao, fx, quantization  # noqa: E402,F401
from vfw.frontends.torch.fx._symbolic_trace import _assert  # noqa: E402,F401  (torch._assert)

_type_names.install()  # after autocast's, which finds classes by their vfw module: classes get torch's names
