"""torch.nn.utils: gradient clipping, parameter/vector conversion, ``rnn`` sequence packing, weight and spectral
normalization hooks, conv/linear + batch-norm ``fusion``, ``parametrize``, ``parametrizations.weight_norm`` and
``prune``."""

from vfw.frontends.torch.nn.utils import fusion, parametrizations, parametrize, prune, rnn, stateless  # noqa: F401
from vfw.frontends.torch.nn.utils.clip_grad import (  # noqa: F401
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from vfw.frontends.torch.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from vfw.frontends.torch.nn.utils.fusion import (  # noqa: F401
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from vfw.frontends.torch.nn.utils.init import skip_init  # noqa: F401,E402
from vfw.frontends.torch.nn.utils.memory_format import (  # noqa: F401
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
)
from vfw.frontends.torch.nn.utils.weight_norm import (  # noqa: F401
    remove_spectral_norm,
    remove_weight_norm,
    spectral_norm,
    weight_norm,
)
