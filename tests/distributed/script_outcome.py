"""What a call in a multi-process script gave, in a form its JSON output compares across vfw and real torch."""

import warnings


def outcome(fn):
    """``["ok", repr(result), warnings]`` or ``[exception type, message]``."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn()
        return ["ok", repr(result), [str(w.message) for w in caught]]
    except Exception as e:  # noqa: BLE001 - the exception's type and text are what is compared
        return [type(e).__name__, str(e)]
