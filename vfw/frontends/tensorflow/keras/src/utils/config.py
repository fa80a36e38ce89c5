"""``keras.utils.Config``: a dict of settings readable as attributes, which can be frozen."""

import difflib
import json

API = {"utils": ["Config"]}

_FROZEN = "Cannot mutate attribute(s) because the config is frozen."


class Config:
    """Settings (``Config(a=1)``) read and written as attributes or items; ``freeze()`` makes them read-only
    (ValueError on any change until ``unfreeze()``)."""

    def __init__(self, **kwargs):
        object.__setattr__(self, "_config", dict(kwargs))
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self):
        """Whether the config refuses changes."""
        return self._frozen

    def freeze(self):
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self):
        object.__setattr__(self, "_frozen", False)

    def _raise_if_frozen(self):
        if self._frozen:
            raise ValueError(_FROZEN)

    def __getattr__(self, name):
        config = object.__getattribute__(self, "_config")
        if name in config:
            return config[name]
        message = f"Unknown attribute: '{name}'."
        close = difflib.get_close_matches(name, list(config), n=1, cutoff=0.7)  # Keras' threshold
        if close:
            message += f" Did you mean '{close[0]}'?"
        raise AttributeError(message)

    def __setattr__(self, name, value):
        self._raise_if_frozen()
        self._config[name] = value

    def __getitem__(self, key):
        return self._config[key]

    def __setitem__(self, key, value):
        self._raise_if_frozen()
        self._config[key] = value

    def __delitem__(self, key):
        self._raise_if_frozen()
        del self._config[key]

    def __contains__(self, item):
        return item in self._config

    def __len__(self):
        return len(self._config)

    def __iter__(self):
        return iter(self._config)

    def __repr__(self):
        return f"<Config {self._config}>"

    def get(self, key, default=None):
        return self._config.get(key, default)

    def pop(self, *args):
        self._raise_if_frozen()
        return self._config.pop(*args)

    def update(self, *args, **kwargs):
        self._raise_if_frozen()
        self._config.update(*args, **kwargs)

    def keys(self):
        return self._config.keys()

    def values(self):
        return self._config.values()

    def items(self):
        return self._config.items()

    def as_dict(self):
        """A copy of the settings as a plain dict."""
        return dict(self._config)

    def to_json(self):
        """The settings as JSON text."""
        return json.dumps(self._config)
