"""``OptimizedModule``: what ``torch.compile`` returns for a module.

torch wraps the module rather than returning it: the original is the submodule ``_orig_mod`` (so a compiled
model's ``state_dict`` keys start with ``_orig_mod.``), a call runs the original's ``__call__`` (its hooks
included) as compiled code, and other attributes are read from and written to the original.  vfw runs the call
eagerly with ``torch.compiler.is_compiling()`` True, as it does for compiled functions.
"""

from vfw.frontends.torch.compiler import compiled_function
from vfw.frontends.torch.nn.modules.module import Module


class OptimizedModule(Module):
    """A module compiled by ``torch.compile(module)``: ``_orig_mod`` is the module itself.

    Parameters
    ----------
    mod : torch.nn.Module
        The module compiled; ``forward`` calls it (``mod.__call__``), other attributes are ``mod``'s.
    """

    _opt_mod_attributes = frozenset({"_orig_mod", "forward", "_torchdynamo_orig_callable", "__dict__"})

    def __init__(self, mod):
        super().__init__()
        del self.__dict__["training"]  # read from the original, as torch does (train()/eval() set both)
        self._orig_mod = mod
        self.forward = compiled_function(mod.__call__)
        self._torchdynamo_orig_callable = mod.__call__

    def __getattr__(self, name):
        if name == "_orig_mod":
            return Module.__getattr__(self, name)
        try:
            return Module.__getattr__(self, name)
        except AttributeError:
            return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        if name in self._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)
