"""``torch.nn.parallel.replicate`` / ``parallel_apply`` / ``data_parallel`` on one CPU device.

With one device there is nothing to copy to: a replica is the module itself (so gradients reach its parameters
as they reach the originals' through torch's broadcast copies), ``parallel_apply`` runs the modules one after
another, and ``data_parallel`` runs the module on the whole input.
"""

from vfw.frontends.torch._tensor import Tensor

__all__ = ["data_parallel", "parallel_apply", "replicate"]


def replicate(network, devices, detach=False):
    """list[Module]: ``network`` once per entry of ``devices`` (the module itself on vfw's one device)."""
    return [network for _ in devices]


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """Run ``modules[i](*inputs[i], **kwargs_tup[i])`` for each ``i``; a non-sequence input is one argument.

    Returns
    -------
    list
        The outputs, in order; an exception of a module call propagates.

    Raises
    ------
    AssertionError
        When the numbers of modules, inputs, keyword dicts or devices differ, as torch.
    """
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of inputs "
                             f"{len(inputs)}")
    if kwargs_tup is None:
        kwargs_tup = ({},) * len(modules)
    elif len(modules) != len(kwargs_tup):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of kwargs "
                             f"{len(kwargs_tup)}")
    if devices is not None and len(modules) != len(devices):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of devices "
                             f"{len(devices)}")
    outputs = []
    for module, arguments, kwargs in zip(modules, inputs, kwargs_tup):
        arguments = arguments if isinstance(arguments, (list, tuple)) else (arguments,)
        outputs.append(module(*arguments, **kwargs))
    return outputs


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional ``DataParallel``: ``module(*inputs, **module_kwargs)`` (one device holds the whole batch).

    Parameters
    ----------
    module : Module
    inputs : Tensor or tuple
        The positional arguments (a single tensor is one argument).
    device_ids, output_device : accepted
    dim : int
        The batch dimension (one replica: the batch stays whole).
    module_kwargs : dict, optional
    """
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if isinstance(inputs, Tensor) or inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))
