"""BatchNorm1d/2d/3d and SyncBatchNorm, over the base ``_NormBase`` they share with the instance norms."""

from vfw.frontends.torch import _creation
from vfw.frontends.torch import _dtype as dtypes
from vfw.frontends.torch.nn.functional import _normalization as F
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.modules.normalization import _ones_and_zeros
from vfw.frontends.torch.nn.parameter import Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _NormBase(Module):
    """Parameters and running statistics of a per-channel normalization (batch and instance norms).

    Parameters
    ----------
    num_features : int
        ``C``, the number of channels.
    eps : float
        Added to the variance.
    momentum : float or None
        Weight of the batch statistics in the running update; None: cumulative average over the batches seen.
    affine : bool
        Learn a per-channel ``weight`` (ones) and ``bias`` (zeros).
    track_running_stats : bool
        Keep ``running_mean`` (zeros), ``running_var`` (ones) and ``num_batches_tracked`` (int64 0-d) buffers.
    device, dtype : optional
        Where and in which dtype to create parameters and statistics.
    bias : bool
        Whether an affine layer learns ``bias`` (keyword only).
    """

    # Version 2 added num_batches_tracked: loading an older state_dict supplies it (see _load_from_state_dict).
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_creation.empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(_creation.empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", _creation.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", _creation.tensor(0, dtype=dtypes.long, device=device))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Running mean 0, running variance 1, no batches tracked."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Reset the running statistics, and the affine parameters to weight 1 and bias 0."""
        self.reset_running_stats()
        _ones_and_zeros(self)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            state_dict[key] = self.num_batches_tracked if self.num_batches_tracked is not None \
                else _creation.tensor(0, dtype=dtypes.long)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class _BatchNorm(_NormBase):
    """Batch normalization: batch statistics in training (updating the running ones), running ones in eval."""

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        # Batch statistics in training, and in eval when there are no running ones; the buffers are given
        # when they are updated (training and tracking) or used (eval).
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        pass_buffers = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if pass_buffers else None,
                            self.running_var if pass_buffers else None, self.weight, self.bias, use_batch_stats,
                            factor, self.eps)


def _rank_check(ranks, text):
    """A ``_check_input_dim`` accepting inputs of ``ranks`` (torch's ValueError names them as ``text``)."""

    def check(self, input):
        if input.dim() not in ranks:
            raise ValueError(f"expected {text} input (got {input.dim()}D input)")

    return check


class BatchNorm1d(_BatchNorm):
    """Batch normalization over a batch of vectors or sequences (see ``_NormBase`` for the parameters).

    Shape: input ``(N, C)`` or ``(N, C, L)``, output the same.
    """

    _check_input_dim = _rank_check((2, 3), "2D or 3D")


class BatchNorm2d(_BatchNorm):
    """Batch normalization over a batch of images (see ``_NormBase`` for the parameters).

    Shape: input ``(N, C, H, W)``, output the same.
    """

    _check_input_dim = _rank_check((4,), "4D")


class BatchNorm3d(_BatchNorm):
    """Batch normalization over a batch of volumes (see ``_NormBase`` for the parameters).

    Shape: input ``(N, C, D, H, W)``, output the same.
    """

    _check_input_dim = _rank_check((5,), "5D")


def _distributed_initialized():
    # imported late: torch.distributed imports torch.nn
    from vfw.frontends.torch import distributed

    return distributed.is_initialized()


class SyncBatchNorm(_BatchNorm):
    """Batch normalization of any rank, synchronized across processes in torch; vfw runs in one process, where
    it is BatchNorm over ``(N, C, *)`` inputs.  As torch on CPU, training under an initialized process group
    raises a ValueError (torch synchronizes GPU inputs only).

    Parameters are ``_NormBase``'s, plus ``process_group`` (kept, unused) before ``device``.
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        if self.training and _distributed_initialized():
            # torch syncs the batch statistics only for GPU inputs: a CPU input (vfw's only device) under an
            # initialized process group is refused, after the step count was bumped, as torch does.
            if self.track_running_stats and self.num_batches_tracked is not None:
                self.num_batches_tracked.add_(1)
            raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replace every BatchNorm*d in ``module`` (or ``module`` itself) by a SyncBatchNorm sharing its state.

        Returns
        -------
        Module
            ``module`` with converted children, or a new SyncBatchNorm when ``module`` is a batch norm.
        """
        converted = module
        if isinstance(module, _BatchNorm):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                      module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                converted.weight = module.weight
                converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
