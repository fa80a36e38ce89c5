"""Torch's public names of vfw.torch's functions (``torch.relu``, ``torch.nn.functional.gelu``...).

Graph printing and generated code name call_function targets by the path users reach them through; a
function bound in several namespaces takes the first of ``NAMESPACES`` (``torch.conv2d`` before
``torch.nn.functional.conv2d``, as torch prints).
"""

import importlib
import keyword
import re

# (module path in vfw, torch's spelling)
NAMESPACES = (
    ("vfw.frontends.torch", "torch"),
    ("vfw.frontends.torch.nn.functional", "torch.nn.functional"),
    ("vfw.frontends.torch.special", "torch.special"),
    ("vfw.frontends.torch.linalg", "torch.linalg"),
    ("vfw.frontends.torch.fft", "torch.fft"),
)

# torch.nn.functional functions torch implements in C: printed under torch's C module or torch's top level
C_NN_FUNCTIONS = ("avg_pool2d", "avg_pool3d", "gelu", "linear", "logsigmoid", "one_hot", "scaled_dot_product_attention",
                  "softplus", "softshrink")
SHARED_WITH_TORCH = ("adaptive_avg_pool1d", "avg_pool1d", "bilinear", "conv1d", "conv2d", "conv3d",
                     "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_similarity", "hardshrink",
                     "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu")
# bound in both namespaces in vfw, printed as torch's top-level function (F's are deprecated aliases)
TOP_LEVEL_FIRST = ("sigmoid", "tanh")

_table = None


def namespace_functions():
    """``(module, torch_prefix, name, function)`` for every public function of the namespaces."""
    found = []
    for module_name, prefix in NAMESPACES:
        module = importlib.import_module(module_name)
        for name, value in list(vars(module).items()):
            if not name.startswith("__") and callable(value) and not isinstance(value, type):
                found.append((module, prefix, name, value))
    return found


def _build_table():
    table = {}
    for _module, prefix, name, value in namespace_functions():
        if prefix == "torch.nn.functional" and name in C_NN_FUNCTIONS:
            prefix = "torch._C._nn"
        elif prefix == "torch.nn.functional" and name in SHARED_WITH_TORCH:
            prefix = "torch"
        elif prefix == "torch.nn.functional" and name not in TOP_LEVEL_FIRST \
                and table.get(id(value), (None, ""))[1] == f"torch.{name}":
            # One vfw function where torch has two (torch.max_pool2d, F.max_pool2d): F's is what models call.
            del table[id(value)]
        table.setdefault(id(value), (value, f"{prefix}.{name}"))
    from vfw.frontends.torch.fx._symbolic_trace import _assert_is_none  # (that module imports this one)

    table[id(_assert_is_none)] = (_assert_is_none, "torch.fx._symbolic_trace._assert_is_none")
    return table


def refresh():
    """Take in the functions now bound in the namespaces (kept: graphs may hold functions rebound since)."""
    global _table
    current = _build_table()
    _table = current if _table is None else {**current, **_table}


def public_name(target):
    """``torch.<path>`` for a function of vfw.torch's namespaces, else None."""
    if _table is None:
        refresh()
    entry = _table.get(id(target))
    return entry[1] if entry is not None and entry[0] is target else None


def _snake_case(text):
    """``fooBar`` -> ``foo_bar`` (torch's node names from camel-case targets)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", text).lower()


def target_to_name(target):
    """The candidate node name for ``target``: its ``__name__`` or text, magic ``__x__`` stripped, snake case."""
    text = target.__name__ if callable(target) and not isinstance(target, str) else str(target)
    if text.startswith("__") and text.endswith("__") and len(text) > 4:
        text = text[2:-2]
    return _snake_case(text)


_SUFFIX = re.compile(r"(.*)_(\d+)$")
_ILLEGAL = set(keyword.kwlist) | set(dir(__import__("builtins"))) | {"inf", "nan", "NoneType", "torch"}


class Namespace:
    """Unique Python identifiers: ``add``, ``add_1``, ``add_2``...; builtins and keywords get a suffix."""

    def __init__(self):
        self._used = set()
        self._base_count = {}

    def create_name(self, candidate):
        """Reserve and return a fresh identifier derived from ``candidate``."""
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        match = _SUFFIX.match(candidate)
        base, num = (candidate, None) if match is None else (match.group(1), int(match.group(2)))
        if num is None:
            num = self._base_count.get(base, 0)
        while candidate in self._used or candidate in _ILLEGAL:
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._base_count[base] = num
        return candidate

    def release(self, name):
        """Free ``name`` (its node was erased)."""
        self._used.discard(name)
