"""``torch.utils.benchmark``: timing Python statements (``Timer``), the measurements (``Measurement``) and
tables comparing them (``Compare``)."""

from vfw.frontends.torch import _type_names
from vfw.frontends.torch.utils.benchmark.utils.common import (
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)
from vfw.frontends.torch.utils.benchmark.utils.compare import Colorize, Compare
from vfw.frontends.torch.utils.benchmark.utils.timer import Language, Timer, timer

__all__ = [
    "Colorize", "Compare", "Language", "Measurement", "TaskSpec", "Timer", "ordered_unique", "select_unit",
    "set_torch_threads", "timer", "trim_sigfig", "unit_to_english",
]

# loaded after vfw.torch renamed its classes (torch does not import torch.utils.benchmark either): rename these now
_type_names.install()
