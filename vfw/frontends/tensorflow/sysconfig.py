"""tf.sysconfig: build information of a CPU-only build (vfw has no CUDA, ROCm or TensorRT, and no C++ headers or
libraries to compile custom ops against: the include/lib paths name this package's folder)."""

import collections
import os

CXX11_ABI_FLAG = 1
CXX_VERSION = 201703
MONOLITHIC_BUILD = 0

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def get_build_info():
    """An OrderedDict of the build's properties: ``is_cuda_build``, ``is_rocm_build``, ``is_tensorrt_build``
    (all False: CPU only)."""
    return collections.OrderedDict([("is_cuda_build", False), ("is_rocm_build", False),
                                    ("is_tensorrt_build", False)])


def get_include():
    """The directory TF keeps its C++ headers in (vfw has none: its package directory)."""
    return os.path.join(_PACKAGE, "include")


def get_lib():
    """The directory of the package's libraries."""
    return _PACKAGE


def get_compile_flags():
    """Compiler flags for building custom ops, as TF lists them."""
    return [f"-I{get_include()}", f"-D_GLIBCXX_USE_CXX11_ABI={CXX11_ABI_FLAG}", "--std=c++17",
            "-DEIGEN_MAX_ALIGN_BYTES=64"]


def get_link_flags():
    """Linker flags for building custom ops, as TF lists them."""
    return [f"-L{get_lib()}", "-l:libtensorflow_framework.so.2"]
