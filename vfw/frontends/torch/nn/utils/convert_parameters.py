"""torch.nn.utils.parameters_to_vector / vector_to_parameters."""

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _config, _joining

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one vector (differentiable).

    Parameters
    ----------
    parameters : iterable of Tensor

    Returns
    -------
    Tensor
        1-d, of length the total number of elements.
    """
    return _joining.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Make each parameter's data the next slice of ``vec`` (the parameters then share ``vec``'s memory).

    Parameters
    ----------
    vec : Tensor
        1-d, as :func:`parameters_to_vector` returns.
    parameters : iterable of Tensor
    """
    if not isinstance(vec, CoreTensor):
        raise TypeError(f"expected torch.Tensor, but got: {_config.typename(vec)}")
    start = 0
    for param in parameters:
        count = param.numel()
        param.data = vec[start:start + count].view_as(param).data
        start += count
