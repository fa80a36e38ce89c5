"""torch.nn: modules, parameters, ``functional``, ``init`` and ``utils``."""

from vfw.frontends.torch.nn import attention, functional, init, modules, parallel, parameter, utils  # noqa: F401
from vfw.frontends.torch.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401,E501

globals().update({name: getattr(modules, name) for name in modules.__all__})
