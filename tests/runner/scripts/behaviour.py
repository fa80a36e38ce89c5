"""What a script sees of its interpreter; run by plain python and by the runner, which must agree."""

import json
import os
import pickle
import sys


class Record:
    """A class defined in __main__ (pickling finds it through sys.modules['__main__'])."""


def fail(kind):
    if kind == "raise":
        try:
            {}["key"]
        except KeyError as error:
            raise ValueError("a chained failure") from error
    if kind == "exit":
        sys.exit(int(sys.argv[2]))
    if kind == "exit-message":
        sys.exit("leaving with a message")
    if kind == "interrupt":
        raise KeyboardInterrupt


print(json.dumps({
    "argv": sys.argv, "name": __name__, "file": __file__, "path0": sys.path[0], "cwd": os.getcwd(),
    "main_is_module": sys.modules["__main__"].__dict__ is globals(),
    "unpickled": type(pickle.loads(pickle.dumps(Record()))).__qualname__,
    "package": __package__, "spec": __spec__ and __spec__.name,
}), flush=True)
if len(sys.argv) > 1:
    fail(sys.argv[1])
