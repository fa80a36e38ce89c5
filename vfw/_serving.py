"""Serving vfw's frontends under the real frameworks' names: ``import torch`` gives ``vfw.torch``.

A :class:`ServingFinder` on ``sys.meta_path`` imports ``torch[.sub]`` as ``vfw.frontends.torch[.sub]``
(``tensorflow`` and ``keras`` likewise): the same module objects, each also entered in ``sys.modules``
under its served name.  While a module is served, a missing attribute or submodule raises an error that
names the API and says vfw does not provide it yet.  ``python -m vfw run`` serves for a whole process;
:func:`mock` serves inside a ``with`` block and restores ``sys.modules`` afterwards.
"""

import contextlib
import dis
import sys

from vfw import _child_serving
from vfw._aliases import ALIASES, AliasFinder

# The framework names a user asks for -> the served names and the vfw packages behind them.  Keras 3
# runs on TensorFlow here, so a Keras script's ``import tensorflow`` must meet the same vfw modules.
_TENSORFLOW = {"tensorflow": "vfw.frontends.tensorflow", "keras": "vfw.frontends.tensorflow.keras"}
FRAMEWORKS = {"torch": {"torch": "vfw.frontends.torch"}, "tensorflow": _TENSORFLOW, "keras": _TENSORFLOW}

# Served module name -> the module's own ``__getattr__`` (None when it had none) while a hook replaces it.
_HOOKED = {}


def _public_name(real_name):
    """``vfw.frontends.torch.nn`` -> ``vfw.torch.nn`` (the name users import vfw's module by)."""
    for public, real in ALIASES.items():
        if real_name == real or real_name.startswith(real + "."):
            return public + real_name[len(real):]
    return real_name


def _served_name(real_name):
    """The name an active finder serves module ``real_name`` as (its most specific alias), or None."""
    best = None
    for finder in sys.meta_path:
        if isinstance(finder, ServingFinder):
            for alias, real in finder.aliases.items():
                if (real_name == real or real_name.startswith(real + ".")) and (best is None or len(real) > best[1]):
                    best = (alias + real_name[len(real):], len(real))
    return best and best[0]


def _register_all_loaded():
    for finder in sys.meta_path:
        if isinstance(finder, ServingFinder):
            finder.register_loaded()


def _called_by_from_import(frame):
    """Whether ``frame`` is running a ``from module import name`` statement (its IMPORT_FROM step)."""
    return any(instruction.offset == frame.f_lasti and instruction.opname == "IMPORT_FROM"
               for instruction in dis.get_instructions(frame.f_code))


def _missing_attribute_hook(module, own_getattr):
    """A module ``__getattr__`` that reports names vfw lacks while ``module`` is served."""

    def missing_attribute(name):
        if own_getattr is not None:
            try:
                found = own_getattr(name)
            except AttributeError as error:
                if f"attribute '{name}'" not in str(error):
                    raise  # an error from inside the module's own lookup, not a missing name
            else:
                _register_all_loaded()  # the lookup may have imported submodules (tf.keras loads lazily)
                return found
        served = _served_name(module.__name__) or module.__name__
        if name.startswith("__") and name.endswith("__"):  # protocol probes, not APIs
            raise AttributeError(f"module '{served}' has no attribute '{name}'", name=name, obj=module)
        missing = f"{_public_name(module.__name__)} does not provide it yet"
        if _called_by_from_import(sys._getframe(1)):
            # ``from torch.linalg import foo`` swallows an AttributeError here and raises its own ImportError
            # naming vfw's file; raise that ImportError ourselves, saying why.
            raise ImportError(f"cannot import name '{name}' from '{served}' ({missing})", name=served)
        raise AttributeError(f"module '{served}' has no attribute '{name}' ({missing})", name=name, obj=module)

    return missing_attribute


def _hook(module):
    if module.__name__ not in _HOOKED:
        _HOOKED[module.__name__] = module.__dict__.get("__getattr__")
        module.__getattr__ = _missing_attribute_hook(module, _HOOKED[module.__name__])


def _unhook_unserved():
    for name in [n for n in _HOOKED if _served_name(n) is None]:
        own_getattr = _HOOKED.pop(name)
        module = sys.modules.get(name)
        if module is None:
            continue
        if own_getattr is None:
            del module.__getattr__
        else:
            module.__getattr__ = own_getattr


class ServingFinder(AliasFinder):
    """Serves vfw packages under the names in ``aliases`` (e.g. ``{"torch": "vfw.frontends.torch"}``).

    Unlike the plain alias finder, a served name with no vfw module behind it is an ImportError naming
    the API, so a script never falls through to a real framework installed beside vfw.
    """

    def not_found(self, name, real_name):
        top = name.partition(".")[0]
        provider = _public_name(self.aliases[top])
        raise ModuleNotFoundError(f"{provider} does not provide {name} yet", name=name)

    def register_loaded(self):
        super().register_loaded()
        for alias in self.aliases:
            for name, module in list(sys.modules.items()):
                if (name == alias or name.startswith(alias + ".")) and module is not None:
                    _hook(module)


def frameworks_aliases(frameworks):
    """The served-name -> vfw-package mapping for framework names such as ``("torch", "keras")``."""
    aliases = {}
    for framework in frameworks:
        if framework not in FRAMEWORKS:
            raise ValueError(f"vfw.mock: unknown framework {framework!r}; expected one of {sorted(FRAMEWORKS)}")
        aliases.update(FRAMEWORKS[framework])
    return aliases


def _remove_served_modules(aliases):
    """Take every ``sys.modules`` entry under a served name out; returns them."""
    taken = {}
    for name in list(sys.modules):
        if any(name == alias or name.startswith(alias + ".") for alias in aliases):
            taken[name] = sys.modules.pop(name)
    return taken


def serve(*frameworks):
    """Serve ``frameworks`` (``"torch"``, ``"tensorflow"``, ``"keras"``) for the rest of the process.

    Modules already imported under those names (a real framework, say) leave ``sys.modules``.

    Returns
    -------
    ServingFinder
        The finder now first on ``sys.meta_path``.
    """
    finder = ServingFinder(frameworks_aliases(frameworks))
    _remove_served_modules(finder.aliases)
    sys.meta_path.insert(0, finder)
    finder.register_loaded()
    _child_serving.serve_children(frameworks)  # processes started by spawning are served too
    return finder


@contextlib.contextmanager
def mock(*frameworks):
    """Serve vfw under the real frameworks' names inside a ``with`` block.

    Parameters
    ----------
    *frameworks : str
        ``"torch"``, ``"tensorflow"`` or ``"keras"`` (the last two both serve ``tensorflow`` and ``keras``).

    Examples
    --------
    >>> with vfw.mock("torch"):
    ...     import torch                      # vfw.torch
    ...     from torch import nn              # vfw.torch.nn

    On exit ``sys.modules`` holds again what it held for those names before (a real framework
    imported earlier, or nothing), and the served modules lose their missing-API hooks.  Imports
    are process-wide: other threads importing inside the block get vfw too.
    """
    if not frameworks:
        raise TypeError("vfw.mock() needs at least one framework name: 'torch', 'tensorflow' or 'keras'")
    aliases = frameworks_aliases(frameworks)
    saved = _remove_served_modules(aliases)
    finder = ServingFinder(aliases)
    sys.meta_path.insert(0, finder)
    try:
        finder.register_loaded()
        yield
    finally:
        sys.meta_path.remove(finder)
        _remove_served_modules(aliases)
        sys.modules.update(saved)
        _register_all_loaded()  # an enclosing mock of the same names serves its modules again
        _unhook_unserved()
