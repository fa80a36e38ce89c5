"""torch.nn.utils: gradient clipping, parameter/vector conversion and ``rnn`` sequence packing."""

from vfw.frontends.torch.nn.utils import rnn  # noqa: F401
from vfw.frontends.torch.nn.utils.clip_grad import (  # noqa: F401
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from vfw.frontends.torch.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
