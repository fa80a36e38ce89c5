"""The handle ``Tensor.register_hook`` returns (its ``remove()`` unregisters the hook)."""


class Handle:
    """What ``register_hook`` returns: ``remove()`` unregisters the hook."""

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
