"""InstanceNorm1d/2d/3d."""

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch.nn.functional import _normalization as F
from vfw.frontends.torch.nn.modules.batchnorm import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    """Instance normalization: each channel of each instance over its spatial dims.

    Parameters are ``_NormBase``'s, with ``affine=False`` and ``track_running_stats=False`` by default.  With
    running statistics tracked, eval mode normalizes with them.  Unbatched inputs (no ``N`` dim) are accepted.
    """

    _spatial_dims = None  # set by each subclass

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input):
        batched = self._spatial_dims + 2
        if input.dim() not in (batched - 1, batched):
            raise ValueError(f"expected {batched - 1}D or {batched}D input (got {input.dim()}D input)")

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               0.0 if self.momentum is None else self.momentum, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # Checkpoints without a version predate track_running_stats=False as the default: their running
        # statistics are reported and dropped, as torch does.
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            keys = [prefix + name for name in ("running_mean", "running_var") if prefix + name in state_dict]
            if keys:
                klass = type(self).__name__
                names = " and ".join(f'"{k}"' for k in keys)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {klass} with track_running_stats=False. If "
                    f"state_dict is a checkpoint saved before 0.4.0, this may be expected because {klass} does not "
                    "track running stats by default since 0.4.0. "
                    "Please remove these keys from state_dict. If the running stats are actually needed, instead set "
                    f"track_running_stats=True in {klass} to enable them. See the documentation of {klass} for "
                    "details.")
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._spatial_dims - 1
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.size(feature_dim)}.")
            warn_for_user(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False")
        if feature_dim == 0:  # unbatched
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of sequences (see ``_InstanceNorm``).

    Shape: input ``(N, C, L)`` or ``(C, L)``, output the same.
    """

    _spatial_dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of images (see ``_InstanceNorm``).

    Shape: input ``(N, C, H, W)`` or ``(C, H, W)``, output the same.
    """

    _spatial_dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of volumes (see ``_InstanceNorm``).

    Shape: input ``(N, C, D, H, W)`` or ``(C, D, H, W)``, output the same.
    """

    _spatial_dims = 3
