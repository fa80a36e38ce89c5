"""``torch.autograd.graph``: the saved-tensor hook contexts and ``increment_version``.

vfw's engine keeps the tensors a backward needs itself and has no pack/unpack points, so ``saved_tensors_hooks``
with user hooks is refused (NotImplementedError on entry) rather than silently never calling them. ``save_on_cpu``
moves saved tensors to the CPU, where vfw's tensors already live: it changes nothing and is accepted.
``disable_saved_tensors_hooks`` makes entering any saved-tensor hook context raise its message, as in torch.
"""

from vfw.frontends.torch import _dispatch

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "increment_version"]

_disabled_messages = []  # the messages of the open disable_saved_tensors_hooks blocks, innermost last


class saved_tensors_hooks:  # noqa: N801  (torch's name)
    """Context manager installing ``pack_hook``/``unpack_hook`` for the tensors saved for backward.

    Parameters
    ----------
    pack_hook : callable
        ``pack_hook(tensor) -> object`` when an op saves ``tensor``.
    unpack_hook : callable
        ``unpack_hook(object) -> Tensor`` when backward needs it back.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def _check_enabled(self):
        if _disabled_messages:
            raise RuntimeError(_disabled_messages[-1])

    def __enter__(self):
        self._check_enabled()
        raise NotImplementedError("torch.autograd.graph.saved_tensors_hooks: vfw's autograd engine keeps saved "
                                  "tensors itself and cannot call pack/unpack hooks")

    def __exit__(self, *exc_info):
        return False


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """Keep the tensors saved for backward in CPU memory (``pin_memory`` accepted): vfw's tensors are there."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda tensor: tensor, lambda tensor: tensor)
        self.pin_memory = pin_memory
        self.device_type = device_type

    def __enter__(self):
        self._check_enabled()
        return self


class disable_saved_tensors_hooks:  # noqa: N801
    """Inside the block, entering a saved-tensor hook context raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _disabled_messages.append(self.error_message)
        return self

    def __exit__(self, *exc_info):
        _disabled_messages.pop()
        return False


def increment_version(tensor):
    """Bump the version counter of ``tensor`` (or of each tensor of a sequence), as an in-place write does."""
    for t in (tensor,) if isinstance(tensor, _dispatch.Tensor) else tensor:
        _dispatch.bump_version(t)
