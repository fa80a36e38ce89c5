"""torch.backends: what each backend reports on a machine without it (vfw runs on numpy)."""

from vfw.frontends.torch.backends import cuda, cudnn, mkldnn, mps, openmp  # noqa: F401
