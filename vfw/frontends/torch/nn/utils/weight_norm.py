"""``torch.nn.utils.weight_norm`` / ``spectral_norm`` (the hook-based forms): a module's weight recomputed
before every forward from the parameters that replace it.

``weight_norm`` splits ``weight`` into a direction ``weight_v`` and a magnitude ``weight_g`` (the norm over all
dims but ``dim``): ``weight = weight_v * weight_g / ||weight_v||``.  ``spectral_norm`` divides ``weight_orig`` by
an estimate of its largest singular value, refined by power iteration on the buffers ``weight_u``/``weight_v``
in training mode.  The new parameters are appended after the module's others, as torch re-registers them.
"""

import vfw.frontends.torch as torch
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch.nn.parameter import Parameter

__all__ = ["remove_spectral_norm", "remove_weight_norm", "spectral_norm", "weight_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dim but ``dim``, kept as size-1 dims (over everything when None or -1,
    torch's spelling of "no dim")."""
    if dim is None or dim == -1:
        return v.norm()
    dims = [d for d in range(v.dim()) if d != dim % v.dim()]
    return v.norm(2, dim=dims, keepdim=True) if dims else v.abs()


class _WeightNormHook:
    label = "weight_norm"

    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute_weight(self, module):
        g, v = getattr(module, self.name + "_g"), getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def _hook_of(module, kind, name):
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            return key, hook
    raise ValueError(f"{kind.label} of '{name}' not found in {module}")


def weight_norm(module, name="weight", dim=0):
    """Reparameterize ``module.<name>`` as ``<name>_g * <name>_v / ||<name>_v||``.

    Parameters
    ----------
    module : Module
    name : str
        The parameter to split.
    dim : int or None
        The dim kept by the norm (None: one norm of the whole tensor).

    Returns
    -------
    Module
        ``module`` itself.
    """
    warn_for_user("`torch.nn.utils.weight_norm` is deprecated in favor of `torch.nn.utils.parametrizations."
                  "weight_norm`.", FutureWarning)
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, _WeightNormHook) and hook.name == name:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    weight = getattr(module, name)
    hook = _WeightNormHook(name, dim)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, dim).data))
    module.register_parameter(name + "_v", Parameter(weight.data))
    setattr(module, name, hook.compute_weight(module))
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo :func:`weight_norm`: ``<name>`` becomes a parameter holding the current weight again."""
    key, hook = _hook_of(module, _WeightNormHook, name)
    weight = hook.compute_weight(module)
    delattr(module, name)
    del module._parameters[name + "_g"]
    del module._parameters[name + "_v"]
    module.register_parameter(name, Parameter(weight.data))
    del module._forward_pre_hooks[key]
    return module


class _SpectralNormHook:
    label = "spectral_norm"

    def __init__(self, name, n_power_iterations, dim, eps):
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def matrix(self, weight):
        """``weight`` with ``dim`` first, flattened to (size of dim, rest)."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        matrix = self.matrix(weight)
        if power_iteration:
            with torch.no_grad():
                for _ in range(self.n_power_iterations):
                    # The buffers are refined in place, so the estimate carries over between forwards.
                    v.copy_(torch.nn.functional.normalize(torch.mv(matrix.t(), u), dim=0, eps=self.eps))
                    u.copy_(torch.nn.functional.normalize(torch.mv(matrix, v), dim=0, eps=self.eps))
                if self.n_power_iterations > 0:
                    u, v = u.clone(), v.clone()  # the graph keeps this step's vectors, not the buffers
        sigma = torch.dot(u, torch.mv(matrix, v))
        return weight / sigma

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, power_iteration=module.training))


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration before each forward.

    Parameters
    ----------
    module : Module
    name : str
        The parameter to normalize (kept as ``<name>_orig``).
    n_power_iterations : int
        Power iterations per training forward.
    eps : float
        Floor of the norms in the normalizations.
    dim : int, optional
        The output dim (default 0; 1 for transposed convolutions).

    Returns
    -------
    Module
        ``module`` itself.
    """
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, _SpectralNormHook) and hook.name == name:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
    if n_power_iterations <= 0:
        raise ValueError(f"Expected n_power_iterations to be positive, but got n_power_iterations="
                         f"{n_power_iterations}")
    if dim is None:
        transposed = (torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d, torch.nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    hook = _SpectralNormHook(name, n_power_iterations, dim, eps)
    weight = module._parameters[name]
    with torch.no_grad():
        rows, cols = hook.matrix(weight).shape
        u = torch.nn.functional.normalize(weight.new_empty(rows).normal_(0, 1), dim=0, eps=eps)
        v = torch.nn.functional.normalize(weight.new_empty(cols).normal_(0, 1), dim=0, eps=eps)
    del module._parameters[name]
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.data)
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(hook)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo :func:`spectral_norm`: ``<name>`` becomes a parameter holding the normalized weight."""
    key, hook = _hook_of(module, _SpectralNormHook, name)
    with torch.no_grad():
        weight = hook.compute_weight(module, power_iteration=False)
    delattr(module, name)
    del module._parameters[name + "_orig"]
    del module._buffers[name + "_u"]
    del module._buffers[name + "_v"]
    module.register_parameter(name, Parameter(weight.detach()))
    del module._forward_pre_hooks[key]
    return module
