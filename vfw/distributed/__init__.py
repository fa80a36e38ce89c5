"""``vfw.distributed``: the engine's process group over MPI (:mod:`vfw.core.distributed`) and its launcher.

``python -m vfw.distributed.run --nproc N script.py`` starts ``N`` processes (through ``mpirun``/``mpiexec``);
see :mod:`vfw.distributed.run`.
"""

from vfw.core.distributed import *  # noqa: F401,F403
from vfw.core.distributed import __all__  # noqa: F401
