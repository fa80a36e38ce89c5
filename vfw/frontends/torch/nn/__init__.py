"""torch.nn: modules, parameters, ``functional``, ``init`` and ``utils``."""

from vfw.frontends.torch.nn import functional, init, modules, parameter, utils  # noqa: F401
from vfw.frontends.torch.nn.parameter import Buffer, Parameter, UninitializedParameter  # noqa: F401

globals().update({name: getattr(modules, name) for name in modules.__all__})
