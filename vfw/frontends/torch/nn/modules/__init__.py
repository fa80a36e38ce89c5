"""torch.nn.modules: one module family per file; each lists its public classes in ``__all__``."""

from vfw.frontends.torch.nn.modules import (
    _linear_cross_entropy,
    activation,
    adaptive,
    attention,
    batchnorm,
    channelshuffle,
    container,
    conv,
    data_parallel,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    lazy,
    linear,
    loss,
    module,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)

FAMILIES = (module, container, activation, attention, batchnorm, channelshuffle, conv, distance, dropout, flatten,
            fold, instancenorm, linear, loss, normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer,
            upsampling, lazy, adaptive, data_parallel, _linear_cross_entropy)
__all__ = [name for family in FAMILIES for name in family.__all__]
globals().update({name: getattr(family, name) for family in FAMILIES for name in family.__all__})
