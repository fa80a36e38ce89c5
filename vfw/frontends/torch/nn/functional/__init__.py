"""torch.nn.functional: the layers as functions; one family per private module, each with ``__all__``."""

from vfw.frontends.torch.nn.functional import (
    _activation,
    _attention,
    _conv,
    _distance,
    _dropout,
    _linear,
    _linear_cross_entropy,
    _loss,
    _loss_classification,
    _loss_ctc,
    _loss_embedding,
    _normalization,
    _pooling,
    _sparse,
    _vision,
)

_FAMILIES = (_activation, _attention, _conv, _distance, _dropout, _linear, _loss, _loss_classification, _loss_ctc,
             _loss_embedding, _normalization, _pooling, _sparse, _vision, _linear_cross_entropy)
__all__ = [name for family in _FAMILIES for name in family.__all__]
globals().update({name: getattr(family, name) for family in _FAMILIES for name in family.__all__})
