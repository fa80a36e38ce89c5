"""DataParallel on a machine without GPUs: torch then keeps the module and calls it directly."""

from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Wraps ``module`` (``self.module``; state_dict keys gain the ``module.`` prefix) and forwards to it.

    torch splits the batch over GPUs; with none available (as here) it keeps no devices and runs the module on the
    whole input, which is what this does.

    Parameters
    ----------
    module : Module
    device_ids, output_device, dim : optional
        Accepted for torch's signature (no GPUs: ``device_ids`` stays empty).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
