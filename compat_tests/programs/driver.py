"""Runs training programs and prints their losses as one JSON line: ``{"program.py": [loss, ...], ...}`` (and
``"__modules__"``: the name of the module each of ``import torch`` / ``import tensorflow`` gave).

``python driver.py a.py b.py`` runs them on whatever ``import torch`` / ``import tensorflow`` finds
(the real frameworks); ``python -m vfw run --as torch driver.py a.py b.py`` runs the same files on
vfw.  Every program defines ``main()`` returning its list of float losses (and strings, such as reprs, which must
match exactly); one process runs them all so that the frameworks are imported once.
"""

import json
import os
import runpy
import sys
import types


def main(paths):
    losses = {}
    for path in paths:
        program = runpy.run_path(path, run_name="program")
        # Importable under its own name, as a script run on its own is as __main__: pickling its classes
        # (torch.save of a checkpoint holding a user dataclass) looks them up there.
        sys.modules["program"] = types.ModuleType("program")
        sys.modules["program"].__dict__.update(program)
        losses[os.path.basename(path)] = [v if isinstance(v, str) else float(v) for v in program["main"]()]
        if "tensorflow" in sys.modules:
            # each program starts from Keras' fresh global state (layer-name counters...), as a script run on its
            # own would: one process runs them all only to import the framework once
            sys.modules["tensorflow"].keras.backend.clear_session()
    # Which modules served the imports: the caller checks that vfw ran where it should.
    losses["__modules__"] = {name: sys.modules[name].__name__
                             for name in ("torch", "tensorflow") if name in sys.modules}
    print(json.dumps(losses))


if __name__ == "__main__":
    main(sys.argv[1:])
