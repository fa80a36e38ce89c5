"""How tensors print: torch's ``repr`` format and ``torch.set_printoptions``.

The layout rules (derived from torch 2.13's output):

* Floats share one notation per tensor, chosen from the finite non-zero values of
  what is shown: whole numbers print as ``1.``, otherwise fixed ``1.5000``
  (``precision`` digits); scientific ``1.0000e+10`` when the largest magnitude
  exceeds 1e8 or 1000x the smallest, or (non-whole values) the smallest is below 1e-4.
  Values are right-aligned to the widest finite non-zero value.
* Rows wrap to ``linewidth``; nested dimensions indent one more column and are
  separated by one blank line per extra dimension.
* Over ``threshold`` elements, only ``edgeitems`` at each end of every long
  dimension are shown, around ``...``.
* Suffixes (``size=``, ``dtype=`` when not implied by the values, ``grad_fn=`` /
  ``requires_grad=True``) follow, moving to a new line when they would pass ``linewidth``.
"""

import contextlib
import math

import numpy as np

from vfw.frontends.torch import _dtype

__all__ = ["set_printoptions"]  # get_printoptions is only torch._tensor_str.get_printoptions

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}
_NAMES = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")
_PREFIX = "tensor("


class _PrintOptions:
    """The current print options (one process-wide set, as torch's ``torch._tensor_str.PRINT_OPTS``)."""

    __slots__ = _NAMES

    def __init__(self):
        self.precision, self.threshold, self.edgeitems, self.linewidth = _PROFILES["default"]
        self.sci_mode = None


PRINT_OPTS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Set how tensors print.

    Parameters
    ----------
    precision : int, optional
        Digits after the decimal point of floats (default 4).
    threshold : int, optional
        Element count above which tensors are summarized with ``...`` (default 1000).
    edgeitems : int, optional
        Items shown at each end of a summarized dimension (default 3).
    linewidth : int, optional
        Characters per line before wrapping (default 80).
    profile : {'default', 'short', 'full'}, optional
        Preset for the four options above; explicit options override it.
    sci_mode : bool or None
        Force (True) or forbid (False) scientific notation; None chooses automatically.
        Always applied, so omitting it restores automatic choice.
    """
    opts = PRINT_OPTS
    if profile in _PROFILES:  # torch ignores unknown profile names
        opts.precision, opts.threshold, opts.edgeitems, opts.linewidth = _PROFILES[profile]
    if precision is not None:
        opts.precision = precision
    if threshold is not None:
        opts.threshold = threshold
    if edgeitems is not None:
        opts.edgeitems = edgeitems
    if linewidth is not None:
        opts.linewidth = linewidth
    opts.sci_mode = sci_mode


def get_printoptions():
    """dict: the current print options (``precision``, ``threshold``, ``edgeitems``, ``linewidth``, ``sci_mode``)."""
    return {name: getattr(PRINT_OPTS, name) for name in _NAMES}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager: ``set_printoptions(**kwargs)`` inside the block, the previous options after it."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# -- element formats ---------------------------------------------------------------------
def _whole(v):
    # Whole-number notation: "3." (no dot after nan/inf).
    s = f"{v:.0f}"
    return s + "." if math.isfinite(v) else s


def _float_format(values, precision, sci_mode):
    """Choose the notation for float ``values`` (float64 ndarray): returns ``(format, width)``."""
    shown = values[np.isfinite(values) & (values != 0)]
    if shown.size == 0:
        return _whole, 1
    mags = np.abs(shown)
    lo, hi = float(mags.min()), float(mags.max())
    wide = hi / lo > 1000.0 or hi > 1.0e8
    if bool(np.all(shown == np.ceil(shown))):
        sci = wide if sci_mode is None else sci_mode
        fmt = f"{{:.{precision}e}}".format if sci else _whole
    else:
        sci = (wide or lo < 1.0e-4) if sci_mode is None else sci_mode
        fmt = (f"{{:.{precision}e}}" if sci else f"{{:.{precision}f}}").format
    # String length grows with the (rounded) magnitude, or with the exponent's digits: the extreme
    # magnitudes of each sign are the only candidates for the widest string.
    candidates = []
    for part in (shown[shown > 0], shown[shown < 0]):
        if part.size:
            candidates += [float(part.min()), float(part.max())]
    width = max(len(fmt(v)) for v in candidates)
    return fmt, width


def _strings(values):
    """Each value of ``values`` (a numpy array) as torch prints it, and the alignment width."""
    kind = values.dtype.kind
    if kind == "c":
        real, imag = values.real.astype(np.float64), values.imag.astype(np.float64)
        opts = (PRINT_OPTS.precision, PRINT_OPTS.sci_mode)
        rfmt, rwidth = _float_format(real, *opts)
        ifmt, iwidth = _float_format(imag, *opts)
        out = []
        for r, i in zip(real.ravel().tolist(), imag.ravel().tolist()):
            im = ifmt(i)
            out.append(rfmt(r).rjust(rwidth) + (im if im[0] == "-" else "+" + im) + "j")
        return out, rwidth + iwidth + 1
    if kind in "iub":
        flat = values.ravel().tolist()
        out = [str(v) for v in flat]
        width = max(map(len, out))
        return [s.rjust(width) for s in out], width
    floats = values.astype(np.float64)
    fmt, width = _float_format(floats, PRINT_OPTS.precision, PRINT_OPTS.sci_mode)
    return [fmt(v).rjust(width) for v in floats.ravel().tolist()], width


# -- layout ------------------------------------------------------------------------------
def _summarized(array, edge):
    """The shown part of ``array`` (``edge`` items at each end of long dimensions) and which dimensions were cut."""
    cut = []
    for axis, n in enumerate(array.shape):
        if n > 2 * edge:
            keep = np.r_[0:edge, n - edge:n]
            array = array.take(keep, axis=axis)
            cut.append(True)
        else:
            cut.append(False)
    return array, cut


def _block(strs, cut, edge, indent, width, linewidth):
    """Bracketed text of an object array of element strings (ndim >= 1), starting at column ``indent``."""
    if strs.ndim == 1:
        items = list(strs)
        if cut[0]:
            items.insert(edge, " ...")
        per_line = max(1, (linewidth - indent) // (width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = [_block(sub, cut[1:], edge, indent + 1, width, linewidth) for sub in strs]
    if cut[0]:
        parts.insert(edge, "...")
    return "[" + ("," + "\n" * (strs.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _implied_dtypes():
    # Dtypes the values themselves imply, so that repr leaves out dtype=.
    default = _dtype.get_default_dtype()
    complex_default = _dtype.complex128 if default is _dtype.float64 else _dtype.complex64
    return (default, _dtype.int64, _dtype.bool, complex_default)


def tensor_repr(t, part_column=None):
    """``repr(t)`` as torch writes it: ``tensor([...], dtype=..., requires_grad=True)``.

    ``part_column``: the text is a part of a sparse tensor's repr (its indices or values) starting at that
    column: lines wrap and indent from there, with no dtype or autograd suffix and ``size=`` for every empty
    tensor.
    """
    array = t.array
    dtype = _dtype._FROM_NP[array.dtype]
    edge, linewidth = PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth
    indent = len(_PREFIX) + (part_column or 0)
    suffixes = []
    if getattr(t, "_meta", False):  # no values: torch shows the device and the size
        body = "..."
        suffixes += ["device='meta'", f"size={tuple(array.shape)}"]
        show_dtype = dtype is not _dtype.get_default_dtype()
    elif array.size == 0:
        body = "[]"
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
        # No values to imply a dtype: only the default float goes without saying.
        show_dtype = dtype is not _dtype.get_default_dtype()
    else:
        summarize = array.size > PRINT_OPTS.threshold
        if edge == 0:
            suffixes.append(f"size={tuple(array.shape)}")
        if summarize and edge == 0 and array.ndim:
            body = "[...]"
        else:
            shown, cut = _summarized(array, edge) if summarize else (array, [False] * array.ndim)
            strs, width = _strings(shown)
            if array.ndim == 0:
                body = strs[0]
            else:
                grid = np.empty(len(strs), dtype=object)
                grid[:] = strs
                body = _block(grid.reshape(shown.shape), cut, edge, indent, width, linewidth)
        show_dtype = dtype not in _implied_dtypes()
    if part_column is not None:
        sized = array.size == 0 and array.ndim == 1
        return _with_suffixes(_PREFIX + body, [f"size={tuple(array.shape)}"] if sized else suffixes, indent,
                              linewidth) + ")"
    if show_dtype:
        suffixes.append(f"dtype={dtype!r}")
    grad_fn = t.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(grad_fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(_PREFIX + body, suffixes, indent, linewidth) + ")"


def _with_suffixes(text, suffixes, indent, linewidth, column=None):
    """Append ``, suffix`` items, starting a new line (at ``indent``) for one that would pass ``linewidth``.

    ``column``: where ``text``'s last line ends when it ends with a suffix that began a line (sparse reprs).
    """
    # As torch: a suffix after the tensor's own text gets two columns less room than one after a wrap.
    if column is None:
        column = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if column + len(suffix) + 2 > linewidth:
            text += ",\n" + " " * indent + suffix
            column = indent + len(suffix)
        else:
            text += ", " + suffix
            column += len(suffix) + 2
    return text
