"""Public names of the frontends: ``vfw.torch`` is ``vfw.frontends.torch``.

A meta-path finder maps every ``vfw.torch...`` / ``vfw.tensorflow...`` import
onto the module of the real name, so both names give the same module objects
(one class identity) and ``import vfw.torch.nn.functional as F`` works, while
``import vfw`` stays light (a frontend loads on first use).  The same finder,
given other names, serves ``torch``/``tensorflow``/``keras`` (see ``vfw._serving``).
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

ALIASES = {"vfw.torch": "vfw.frontends.torch", "vfw.tensorflow": "vfw.frontends.tensorflow"}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target, finder):
        self.target = target
        self.finder = finder

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # The import system returns whatever sits in sys.modules under the name afterwards.
        sys.modules[module.__name__] = importlib.import_module(self.target)
        self.finder.register_loaded()


class AliasFinder(importlib.abc.MetaPathFinder):
    """Imports ``alias[.sub...]`` as the module ``real[.sub...]`` for each ``alias: real`` of ``aliases``."""

    def __init__(self, aliases):
        self.aliases = dict(aliases)

    def real_name(self, name):
        """The real module name behind ``name``, or None when no alias covers it."""
        for alias, real in self.aliases.items():
            if name == alias or name.startswith(alias + "."):
                return real + name[len(alias):]
        return None

    def find_spec(self, name, path=None, target=None):
        real_name = self.real_name(name)
        if real_name is None:
            return None
        try:
            spec = importlib.util.find_spec(real_name)
        except ModuleNotFoundError:  # a parent is a plain module, not a package
            spec = None
        if spec is None:
            return self.not_found(name, real_name)
        return importlib.machinery.ModuleSpec(name, _AliasLoader(real_name, self))

    def not_found(self, name, real_name):
        """What ``find_spec`` gives for an alias whose real module does not exist (None: not found)."""
        return None

    def register_loaded(self):
        """Give every loaded real module its alias names in ``sys.modules``.

        A later alias import then finds them there, so the import system does not rebind the package
        attribute of the same name (torch.autograd.gradcheck is a function beside a module).
        """
        for alias, real in self.aliases.items():
            prefix = real + "."
            for name, module in list(sys.modules.items()):
                if name == real or name.startswith(prefix):
                    sys.modules.setdefault(alias + name[len(real):], module)


def install():
    """Register the finder once (idempotent)."""
    if not any(type(f) is AliasFinder and f.aliases == ALIASES for f in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder(ALIASES))
