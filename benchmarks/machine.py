"""A description of the machine and libraries a benchmark run measured, for its JSON and README."""

import ctypes
import os
import platform
import sys
from importlib import metadata

# Distributions whose versions the report records (those not installed read None).
_PACKAGES = ("numpy", "torch", "tensorflow-cpu", "tensorflow", "keras", "onnx", "onnxruntime", "mpi4py")
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "TF_NUM_INTRAOP_THREADS",
                     "TF_NUM_INTEROP_THREADS", "OMP_WAIT_POLICY")


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _openblas_threads():
    """Threads of the OpenBLAS numpy loaded, asked through its own ``*get_num_threads*`` (Linux), or None."""
    try:
        with open("/proc/self/maps") as f:
            mapped = [line.split()[-1] for line in f if len(line.split()) >= 6]
    except OSError:
        return None
    paths = {path for path in mapped if "openblas" in os.path.basename(path).lower() and ".so" in path}
    for path in sorted(paths):
        library = ctypes.CDLL(path)
        for symbol in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_", "openblas_get_num_threads"):
            getter = getattr(library, symbol, None)
            if getter is not None:
                getter.restype = ctypes.c_int
                return getter()
    return None


def _blas():
    import numpy

    try:
        blas = numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]
        library = f"{blas['name']} {blas.get('version', '')}".strip()
    except (TypeError, KeyError):  # numpy < 1.25 has no dict form
        library = "unknown"
    return {"library": library, "threads": _openblas_threads()}


def _framework_threads():
    """Intra-op threads of the frameworks this process has loaded (imports nothing)."""
    threads = {}
    if "torch" in sys.modules:
        threads["torch"] = sys.modules["torch"].get_num_threads()
    if "tensorflow" in sys.modules:
        threading = sys.modules["tensorflow"].config.threading
        threads["tensorflow_intra_op"] = threading.get_intra_op_parallelism_threads() or "default"
        threads["tensorflow_inter_op"] = threading.get_inter_op_parallelism_threads() or "default"
    return threads


def describe():
    """The machine, the BLAS numpy uses and its threads, thread settings, and library versions.

    Returns
    -------
    dict
        JSON-serialisable.
    """
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": affinity,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "blas": _blas(),
        "thread_environment": {name: os.environ.get(name) for name in _THREAD_VARIABLES},
        "framework_threads": _framework_threads(),
        "versions": {name: _version(name) for name in _PACKAGES},
        "load_average_at_end": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }
