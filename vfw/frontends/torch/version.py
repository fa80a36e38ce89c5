"""torch.version: the torch release whose API vfw.torch follows, and no CUDA/HIP."""

__version__ = "2.13.0+vfw"
cuda = None
hip = None
debug = False
git_version = "vfw"
