"""The base class of Keras initializers."""


class Initializer:
    """Base class of initializers: ``initializer(shape, dtype=None)`` returns the initial value.

    Subclasses implement ``__call__``; ``get_config`` returns the constructor arguments, so the
    default ``from_config`` (``cls(**config)``) rebuilds them.
    """

    def __call__(self, shape, dtype=None):
        """A tensor of ``shape`` and ``dtype`` (``floatx()`` when None)."""
        raise NotImplementedError("Initializer subclasses must implement the `__call__()` method.")

    def get_config(self):
        """The JSON-serializable constructor arguments."""
        return {}

    @classmethod
    def from_config(cls, config):
        """An initializer from ``get_config()``'s dict."""
        return cls(**config)

    def clone(self):
        """A new initializer with the same configuration."""
        return self.__class__.from_config(self.get_config())
