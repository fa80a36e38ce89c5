"""What the combined table compares, and the targets the issues set: one table for every entry.

``COMPARISONS`` says, per benchmark entry, which of its table's time columns is vfw's and which
is the reference's.  An entry missing there (a new one) is read by :func:`comparisons_for` from
its header's ratio column (``"vfw/ort"`` pairs the columns starting with ``vfw`` and ``ort``).

``TARGETS`` holds every target stated in the issues.  A target applies to the rows of one entry
whose case name matches ``case`` (a regular expression, searched) and whose reference is
``reference`` (None: any reference); the first match wins.  Ratios are always vfw time over
reference time, so lower is better and every target is an upper limit.
"""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Comparison:
    """Two time columns of one entry's table: vfw's and the reference's (``reference`` names it)."""

    vfw_column: str
    reference_column: str
    reference: str


@dataclass(frozen=True)
class Target:
    """An upper limit on a case's ratio (``kind="ratio"``) or on its time above the reference
    (``kind="overhead"``, in seconds), as issue ``issue`` states it."""

    entry: str
    reference: str | None
    case: str
    limit: float
    issue: int
    kind: str = "ratio"

    def describe(self):
        """The target as the combined table prints it, e.g. ``<= 1.2x`` or ``<= +1.5 us``."""
        return f"<= {self.limit:.3g}x" if self.kind == "ratio" else f"<= +{format_seconds(self.limit)}"

    def met_by(self, vfw_time, reference_time):
        """Whether the measured times (seconds) meet the target."""
        if self.kind == "ratio":
            return vfw_time / reference_time <= self.limit
        return vfw_time - reference_time <= self.limit


def _same(vfw_column, reference_column, reference):
    return [Comparison(vfw_column, reference_column, reference)]


COMPARISONS = {
    "eager_overhead": [Comparison("engine Op us", "numpy us", "numpy"),
                       Comparison("engine Op us", "torch us", "torch")],
    "autograd_step": _same("engine us", "torch us", "torch"),
    "graph_mode": [Comparison("traced us", "eager us", "vfw eager"), Comparison("traced us", "torch us", "torch")],
    "torch_frontend": _same("vfw.torch us", "torch us", "torch"),
    "torch_training": _same("vfw.torch ms", "torch ms", "torch"),
    "tf_conv": _same("vfw ms", "tf ms", "TF"),
    "tf_function": _same("vfw ms", "tf ms", "TF"),
    "tf_frontend": _same("vfw.tensorflow us", "TF eager us", "TF"),
    "tf_data": _same("vfw ms", "tf ms", "TF"),
    "keras_fit": _same("vfw s/epoch", "tf s/epoch", "TF"),
    "onnx_runtime": _same("vfw ms", "ort ms", "onnxruntime"),
    # the case names say the baseline: one process or torch for the MLP step, mpi4py for all_reduce
    "distributed": _same("vfw ms", "baseline ms", "1 process / torch / mpi4py"),
}

_ONNX_CNNS = r"(?i)cnn|alexnet|densenet|inception|resnet|shufflenet|squeezenet|vgg|zfnet"

TARGETS = [
    Target("eager_overhead", "numpy", r"16x16", 1.5e-6, issue=2, kind="overhead"),
    Target("autograd_step", "torch", r"^\(x\*y\)\.sum\(\)", 1.0, issue=3),
    Target("autograd_step", "torch", r"^MLP", 1.2, issue=3),
    Target("graph_mode", "vfw eager", r"elementwise chain", 1 / 3, issue=4),  # traced >= 3x faster than eager
    Target("graph_mode", "vfw eager", r"^MLP", 1.0, issue=4),
    Target("graph_mode", "torch", r"^MLP", 1.1, issue=4),
    Target("torch_frontend", "torch", r"^(x \+ y|x \* y|torch\.add\(x, y\)|x \* 2\.0|relu\(x\))$", 1.0, issue=5),
    Target("torch_frontend", "torch", r"", 1.5, issue=5),
    Target("torch_training", "torch", r"^MLP", 1.2, issue=6),
    Target("torch_training", "torch", r"^(CNN|LSTM)", 2.0, issue=6),
    Target("tf_frontend", "TF", r"", 0.2, issue=7),
    Target("tf_function", "TF", r"^MLP", 2.0, issue=7),
    Target("keras_fit", "TF", r"^(MLP|CNN)", 2.0, issue=8),
    Target("onnx_runtime", "onnxruntime", r"MLP", 1.5, issue=9),
    Target("onnx_runtime", "onnxruntime", _ONNX_CNNS, 2.0, issue=9),
    Target("distributed", None, r"^MLP .* vs 1$", 1 / 0.85, issue=11),  # 2 processes: scaling efficiency >= 85%
    Target("distributed", None, r"(?i)all.?reduce", 1.1, issue=11),  # overhead over raw mpi4py <= 10%
]

# Reference names as the combined table prints them, from the short names headers use.
_REFERENCE_NAMES = {"tf": "TF", "tensorflow": "TF", "ort": "onnxruntime", "onnxruntime": "onnxruntime",
                    "torch": "torch", "numpy": "numpy", "np": "numpy", "mpi4py": "mpi4py"}
_SECONDS_PER_UNIT = {"us": 1e-6, "ms": 1e-3, "s": 1.0}


def format_seconds(seconds):
    """``2.5e-05`` -> ``"25 us"``: 4 significant digits in the unit that fits."""
    unit = "us" if seconds < 1e-3 else "ms" if seconds < 1 else "s"
    return f"{seconds / _SECONDS_PER_UNIT[unit]:.4g} {unit}"


def target_for(entry, case, reference):
    """The first target of ``TARGETS`` for this row, or None."""
    for target in TARGETS:
        if (target.entry == entry and target.reference in (None, reference)
                and re.search(target.case, case) is not None):
            return target
    return None


def seconds_per_unit(column):
    """Seconds per unit of the time unit a column header ends with (``"vfw ms"`` -> 1e-3,
    ``"tf s/epoch"`` -> 1), or None for a column that is not a time."""
    unit = column.split()[-1].split("/")[0] if column.split() else ""
    return _SECONDS_PER_UNIT.get(unit)


def _columns_starting(columns, prefix, suffix):
    """The columns starting with ``prefix``; those also containing ``suffix`` if that is more than one."""
    hits = [c for c in columns if c.lower().startswith(prefix)]
    return [c for c in hits if suffix in c] if len(hits) > 1 and suffix else hits


def comparisons_for(entry, header):
    """The comparisons of ``entry``'s table: from ``COMPARISONS``, else read from its ratio columns.

    A header ``"A/B ..."`` whose ``A`` and ``B`` each start exactly one time column (``"A ... ms"``)
    pairs those columns; ``B`` names the reference.
    """
    if entry in COMPARISONS:
        return COMPARISONS[entry]
    time_columns = [h for h in header if seconds_per_unit(h) is not None]
    found = []
    for column in header:
        match = re.match(r"^([^\s/]+)/([^\s/]+)\b(.*)$", column)
        if match is None or seconds_per_unit(column) is not None:
            continue
        numerator, denominator, suffix = match.group(1).lower(), match.group(2).lower(), match.group(3).strip()
        vfw_columns = _columns_starting(time_columns, numerator, suffix)
        reference_columns = _columns_starting(time_columns, denominator, suffix)
        if len(vfw_columns) == 1 and len(reference_columns) == 1:
            found.append(Comparison(vfw_columns[0], reference_columns[0],
                                    _REFERENCE_NAMES.get(denominator, match.group(2))))
    return found
