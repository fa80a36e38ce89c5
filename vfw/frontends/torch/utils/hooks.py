"""torch.utils.hooks: the handle that hook registrations return, and how hooks are stored."""

import itertools
import weakref

_ids = itertools.count()


class RemovableHandle:
    """What ``register_*_hook`` returns: ``remove()`` takes the hook out of its dict(s).

    Parameters
    ----------
    hooks_dict : dict
        The dict the hook is stored in under ``handle.id``.
    extra_dict : dict or list of dict, optional
        Dicts that may hold an entry under the same id (e.g. the "with kwargs" flags).

    Attributes
    ----------
    id : int
        The key of the hook in ``hooks_dict`` (unique per process).
    """

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(_ids)
        extras = [] if extra_dict is None else extra_dict if isinstance(extra_dict, list) else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        """Unregister the hook (a second call does nothing)."""
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(hooks, hook, prepend=False, flags=None, flag=False):
    """Store ``hook`` in the ordered dict ``hooks`` (first if ``prepend``); returns its removable handle.

    ``flags`` are dicts that may hold an entry under the hook's id (removed with it); with
    ``flag`` the entry is set in ``flags`` (a single dict then).
    """
    handle = RemovableHandle(hooks, extra_dict=flags)
    hooks[handle.id] = hook
    if flag:
        flags[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle
