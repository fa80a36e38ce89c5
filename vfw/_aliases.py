"""Public names of the frontends: ``vfw.torch`` is ``vfw.frontends.torch``.

A meta-path finder maps every ``vfw.torch...`` / ``vfw.tensorflow...`` import
onto the module of the real name, so both names give the same module objects
(one class identity) and ``import vfw.torch.nn.functional as F`` works, while
``import vfw`` stays light (a frontend loads on first use).
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

ALIASES = {"vfw.torch": "vfw.frontends.torch", "vfw.tensorflow": "vfw.frontends.tensorflow"}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # The import system returns whatever sits in sys.modules under the name afterwards.
        sys.modules[module.__name__] = importlib.import_module(self.target)
        # Submodules the target already loaded get their alias now: a later alias import then
        # finds them in sys.modules, so the import system does not rebind the package attribute
        # of the same name (torch.autograd.gradcheck is a function beside a module).
        prefix, alias = self.target + ".", module.__name__ + "."
        for name, sub in list(sys.modules.items()):
            if name.startswith(prefix):
                sys.modules.setdefault(alias + name[len(prefix):], sub)


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        for alias, real in ALIASES.items():
            if name == alias or name.startswith(alias + "."):
                real_name = real + name[len(alias):]
                if importlib.util.find_spec(real_name) is None:
                    return None
                return importlib.machinery.ModuleSpec(name, _AliasLoader(real_name))
        return None


def install():
    """Register the finder once (idempotent)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
