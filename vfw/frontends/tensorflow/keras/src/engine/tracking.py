"""Automatic tracking of the state a layer holds in its attributes.

A ``Tracker`` sorts objects into stores by kind (``"trainable_variables"``, ``"layers"``...): a layer
tracks every value it assigns to an attribute, and lists, dicts and sets assigned to attributes are
replaced by tracking versions (``TrackedList``...) so that objects appended later are tracked too.
Once locked (a built layer), adding to a store raises the tracker's message.

Kinds of tracked objects are told by predicates (see ``Layer``'s tracker); other modules' classes
join a kind by a class attribute ``_keras_tracked_as`` (``"metrics"``, ``"seed_generators"``).
"""

import contextlib
import threading


class _TrackingState(threading.local):
    def __init__(self):
        self.enabled = True


_state = _TrackingState()


@contextlib.contextmanager
def no_tracking():
    """Inside the block, attribute assignments track nothing."""
    saved = _state.enabled
    _state.enabled = False
    try:
        yield
    finally:
        _state.enabled = saved


def tracked_kind(obj):
    """The ``_keras_tracked_as`` kind an object's class declares, or None."""
    return getattr(type(obj), "_keras_tracked_as", None)


class Tracker:
    """Sorts tracked objects into stores.

    Parameters
    ----------
    config : dict
        ``{store_name: (predicate, list)}``: an object goes to the first store whose predicate
        accepts it.
    exclusions : dict, optional
        ``{store_name: [other_store, ...]}``: an object already in one of the other stores is not
        added to ``store_name``.
    """

    def __init__(self, config, exclusions=None):
        self.config = config
        self.stored_ids = {name: set() for name in config}
        self.exclusions = exclusions or {}
        self.locked = False
        self.lock_message = None

    def track(self, value):
        """Track ``value`` (or the objects inside a container); returns what to store in the attribute."""
        if not _state.enabled:
            return value
        for store, (accepts, _) in self.config.items():
            if accepts(value):
                if any(id(value) in self.stored_ids[other] for other in self.exclusions.get(store, ())):
                    return value
                if id(value) not in self.stored_ids[store]:
                    self.add_to_store(store, value)
                return value
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return type(value)(**{k: self.track(v) for k, v in value._asdict().items()})
        if isinstance(value, tuple):
            return type(value)(self.track(v) for v in value)
        if isinstance(value, list) and not isinstance(value, TrackedList):
            return TrackedList(value, self)
        if isinstance(value, dict) and not isinstance(value, TrackedDict):
            return TrackedDict(value, self)
        if isinstance(value, set) and not isinstance(value, TrackedSet):
            return TrackedSet(value, self)
        return value

    def untrack(self, value):
        """Remove ``value`` from every store."""
        for store, ids in self.stored_ids.items():
            if id(value) in ids:
                ids.remove(id(value))
                items = self.config[store][1]
                for i, item in enumerate(items):
                    if item is value:
                        del items[i]
                        break

    def add_to_store(self, store, value):
        if self.locked:
            raise ValueError(self.lock_message)
        self.config[store][1].append(value)
        self.stored_ids[store].add(id(value))

    def lock(self, message=None):
        self.locked = True
        if message is not None:
            self.lock_message = message

    def unlock(self):
        self.locked = False


class TrackedList(list):
    """A list attribute of a layer: items added to it are tracked, items removed untracked."""

    def __init__(self, values=None, tracker=None):
        self.tracker = tracker
        values = list(values or ())
        if tracker is not None:
            values = [tracker.track(v) for v in values]
        super().__init__(values)

    def append(self, value):
        super().append(self._track(value))

    def insert(self, index, value):
        super().insert(index, self._track(value))

    def extend(self, values):
        super().extend([self._track(v) for v in values])

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            value = [self._track(v) for v in value]
        else:
            value = self._track(value)
        super().__setitem__(index, value)

    def remove(self, value):
        self._untrack(value)
        super().remove(value)

    def pop(self, index=-1):
        value = super().pop(index)
        self._untrack(value)
        return value

    def clear(self):
        for value in self:
            self._untrack(value)
        super().clear()

    def __delitem__(self, index):
        removed = self[index] if isinstance(index, slice) else [self[index]]
        super().__delitem__(index)
        for value in removed:
            self._untrack(value)

    def _track(self, value):
        return value if self.tracker is None else self.tracker.track(value)

    def _untrack(self, value):
        if self.tracker is not None:
            self.tracker.untrack(value)


class TrackedDict(dict):
    """A dict attribute of a layer: values set in it are tracked, values removed untracked."""

    def __init__(self, values=None, tracker=None):
        self.tracker = tracker
        values = dict(values or {})
        if tracker is not None:
            values = {k: tracker.track(v) for k, v in values.items()}
        super().__init__(values)

    def __setitem__(self, key, value):
        if self.tracker is not None:
            value = self.tracker.track(value)
        super().__setitem__(key, value)

    def update(self, *args, **kwargs):
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key, *default):
        value = super().pop(key, *default)
        if self.tracker is not None:
            self.tracker.untrack(value)
        return value

    def __delitem__(self, key):
        value = self[key]
        super().__delitem__(key)
        if self.tracker is not None:
            self.tracker.untrack(value)

    def clear(self):
        for value in self.values():
            if self.tracker is not None:
                self.tracker.untrack(value)
        super().clear()


class TrackedSet(set):
    """A set attribute of a layer: items added are tracked, items removed untracked."""

    def __init__(self, values=None, tracker=None):
        self.tracker = tracker
        values = set(values or ())
        if tracker is not None:
            values = {tracker.track(v) for v in values}
        super().__init__(values)

    def add(self, value):
        if self.tracker is not None:
            value = self.tracker.track(value)
        super().add(value)

    def update(self, values):
        for value in values:
            self.add(value)

    def remove(self, value):
        if self.tracker is not None:
            self.tracker.untrack(value)
        super().remove(value)

    def discard(self, value):
        if value in self:
            self.remove(value)
