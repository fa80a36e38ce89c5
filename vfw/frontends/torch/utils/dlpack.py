"""torch.utils.dlpack: exchange tensors with other libraries through DLPack capsules."""

from vfw.frontends.torch._buffers import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]
