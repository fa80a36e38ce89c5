"""torch.utils.tensorboard: ``SummaryWriter`` (event files through ``vfw.io.tensorboard``)."""

from vfw.frontends.torch import _type_names
from vfw.frontends.torch.utils.tensorboard.writer import SummaryWriter  # noqa: F401

_type_names.install()  # imported on demand, after vfw.torch renamed its classes: name this package's too
