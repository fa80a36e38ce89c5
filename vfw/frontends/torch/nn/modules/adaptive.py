"""AdaptiveLogSoftmaxWithLoss: a softmax over many classes, frequent ones in a head, rare ones in clusters."""

from collections import namedtuple

from vfw.frontends.torch._joining import cat
from vfw.frontends.torch.nn.functional import _activation
from vfw.frontends.torch.nn.modules.container import ModuleList, Sequential
from vfw.frontends.torch.nn.modules.linear import Linear
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax approximation (Grave et al., 2016), as ``torch.nn.AdaptiveLogSoftmaxWithLoss``.

    Classes below ``cutoffs[0]`` are scored by the head, together with one logit per tail cluster; class ``c`` of
    cluster ``i`` (``cutoffs[i] <= c < cutoffs[i + 1]``) gets the cluster's head log-probability plus its own
    log-probability within the cluster, from a projection to ``in_features // div_value ** (i + 1)`` features.

    Parameters
    ----------
    in_features : int
    n_classes : int
    cutoffs : sequence of int
        Increasing, unique, each in ``[1, n_classes - 1]``.
    div_value : float
        Shrinks each cluster's projection (default 4).
    head_bias : bool
        Whether the head has a bias (default False).
    device, dtype : optional

    Returns (forward)
    -----------------
    ``(output, loss)``: each target's log-probability ``(N,)`` (``()`` unbatched) and the mean negative one.
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1 \
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        factory = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory),
                                        Linear(hidden, size, bias=False, **factory)))

    def reset_parameters(self):
        """Draw the head's and every projection's weights again, in that order (``__init__`` keeps the weights the
        layers drew when built)."""
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def forward(self, input_, target_):
        target_dim = target_.dim()
        if target_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        elif target_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_dim > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        output = input.new_zeros(target.size(0))
        head_column = target.clone()  # the head logit each row reads: its class, or its cluster's logit
        covered = 0
        bounds = [0] + self.cutoffs
        for i, (low, high) in enumerate(zip(bounds, bounds[1:])):
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().squeeze(1)
            if rows.numel() == 0:
                continue
            covered += rows.numel()
            if i == 0:
                continue
            head_column.index_fill_(0, rows, self.shortlist_size + i - 1)
            cluster_logprob = _activation.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
            within = cluster_logprob.gather(1, (target[mask] - low).unsqueeze(1)).squeeze(1)
            output = output.index_copy(0, rows, within)
        if covered != target.size(0):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logprob = _activation.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, head_column.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head_logprob = _activation.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i, projection in enumerate(self.tail):
            cluster_logprob = _activation.log_softmax(projection(input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return cat(parts, 1)

    def log_prob(self, input):
        """Log-probabilities of every class: ``(N, n_classes)``."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row: ``(N,)`` (the full distribution only for rows the head does not
        settle)."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return self._full_log_prob(input, head_output).argmax(dim=1)
        output[outside] = self._full_log_prob(input[outside], head_output[outside]).argmax(dim=1)
        return output
