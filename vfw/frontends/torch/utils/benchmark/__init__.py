"""``torch.utils.benchmark``: timing Python statements (``Timer``), the measurements (``Measurement``) and
tables comparing them (``Compare``)."""

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
