"""CTCLoss: connectionist temporal classification (Graves et al., 2006), and its backward CTCLossGrad.

Not an ONNX operator (ONNX has none); the semantics are PyTorch's ``ctc_loss`` without the reduction:

- ``log_probs`` (T, N, C): log-probabilities of the C classes at each time step (class ``blank`` is the blank);
- ``targets``: label sequences, padded (N, S) or concatenated (sum(target_lengths),);
- ``input_lengths`` (N,): time steps used per sequence (at most T), ``target_lengths`` (N,): labels per sequence;
- outputs ``loss`` (N,), the negative log-likelihood of each target (inf when no alignment exists; 0 then with
  ``zero_infinity``), and ``log_alpha`` (T, N, 2 * max(target_lengths) + 1), the forward variables kept for the
  backward (an auxiliary output: it gets no gradient).

Both recursions run in log space over the extended label sequence (a blank between labels and at both ends),
one vectorized step per time step over every sequence and position at once.  The gradient is PyTorch's:
``exp(log_probs) - exp(log(sum of alpha * beta over the positions of each class) + loss - log_probs)`` for
t < input_length and 0 after, which is the gradient through a log-softmax that produced ``log_probs`` (it
assumes normalized inputs, as PyTorch does).  Half-precision inputs are refused, as PyTorch's CPU kernel does.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.errors import IndexOutOfRangeError, OpAttributeError, ShapeError
from vfw.core.ops._common import execute
from vfw.core.registry import Attr, TensorInfo, defop, describe

_NEG_INF = -np.inf
_ATTRS = {"blank": Attr("int", 0), "zero_infinity": Attr("int", 0)}
_TYPES = {"T": frozenset({dt.float32, dt.float64}), "Tind": dt.INDEX, "Tlen": dt.INDEX}


def _lengths(op, name, lengths, n, at_most=None):
    """Validated int64 lengths of shape (N,)."""
    if lengths.shape != (n,):
        raise ShapeError(f"{op}: {name} {describe(lengths)} must have shape ({n},) (one per sequence)")
    lengths = lengths.astype(np.int64, copy=False)
    if n and lengths.min() < 0:
        raise ShapeError(f"{op}: {name} must be >= 0, got {int(lengths.min())}")
    if at_most is not None and n and lengths.max() > at_most:
        raise ShapeError(f"{op}: {name} must be at most {at_most} (the time steps of log_probs), got "
                         f"{int(lengths.max())}")
    return lengths


class _Alignment:
    """The extended label sequences of a batch and their log-probabilities at every time step.

    Attributes
    ----------
    ext_lp : ndarray (T, N, L)
        ``log_probs`` at the extended labels (L = 2 * max target length + 1); -inf past each sequence's end.
    ext : ndarray (N, L)
        Extended labels: the blank at even positions, the targets at odd ones.
    skip_penalty : ndarray (N, L)
        0 where position s may be reached from s - 2 (a label differing from the label two positions back), -inf
        elsewhere: added to the forward variables of s - 2.
    input_lengths, target_lengths : ndarray (N,) of int64
    """

    def __init__(self, op, log_probs, targets, input_lengths, target_lengths, blank):
        if log_probs.ndim != 3:
            raise ShapeError(f"{op}: log_probs must have shape (T, N, C), got {describe(log_probs)}")
        steps, n, c = log_probs.shape
        if not 0 <= blank < c:
            raise OpAttributeError(f"{op}: blank={blank} must be in the label range [0, {c})")
        self.input_lengths = _lengths(op, "input_lengths", input_lengths, n, steps)
        self.target_lengths = tl = _lengths(op, "target_lengths", target_lengths, n)
        longest = int(tl.max()) if n else 0
        within = np.arange(longest) < tl[:, None]
        if targets.ndim == 2:
            if targets.shape[0] != n or targets.shape[1] < longest:
                raise ShapeError(f"{op}: padded targets {describe(targets)} must have shape (N={n}, S) with S >= "
                                 f"{longest} (the longest target)")
            labels = targets[:, :longest]
        elif targets.ndim == 1:
            total = int(tl.sum())
            if targets.shape[0] != total:
                raise ShapeError(f"{op}: concatenated targets {describe(targets)} must have sum(target_lengths) = "
                                 f"{total} labels")
            starts = np.cumsum(tl) - tl
            labels = targets[np.where(within, starts[:, None] + np.arange(longest), 0)] if total else \
                np.zeros((n, longest), targets.dtype)
        else:
            raise ShapeError(f"{op}: targets must be padded (N, S) or concatenated (sum(target_lengths),), got "
                             f"{describe(targets)}")
        used = labels[within]
        if used.size and (used.min() < 0 or used.max() >= c):
            bad = used[(used < 0) | (used >= c)][0]
            raise IndexOutOfRangeError(f"{op}: target label {int(bad)} is out of range for C={c} classes")
        self.ext = ext = np.full((n, 2 * longest + 1), blank, np.int64)
        ext[:, 1::2] = np.where(within, labels, blank)
        self.skip_penalty = np.full(ext.shape, _NEG_INF, log_probs.dtype)
        self.skip_penalty[:, 2:][ext[:, 2:] != ext[:, :-2]] = 0
        ext_lp = log_probs[:, np.arange(n)[:, None], ext]
        ext_lp[:, np.arange(ext.shape[1]) > 2 * tl[:, None]] = _NEG_INF
        self.ext_lp = ext_lp

    def log_likelihood(self, log_alpha):
        """(N,) log-likelihood of each target from the forward variables (at the last step used)."""
        n = self.ext.shape[0]
        il, tl = self.input_lengths, self.target_lengths
        if n == 0 or log_alpha.shape[0] == 0:  # no sequence, or no time step (every input length is 0)
            return np.where(tl > 0, _NEG_INF, 0.0).astype(log_alpha.dtype)
        rows = np.arange(n)
        last = log_alpha[np.maximum(il - 1, 0), rows]
        end = last[rows, 2 * tl]
        before = np.where(tl > 0, last[rows, np.maximum(2 * tl - 1, 0)], _NEG_INF)
        ll = np.logaddexp(end, before)
        # No time step: the empty target has probability 1, any other 0.
        return np.where(il > 0, ll, np.where(tl > 0, _NEG_INF, 0.0)).astype(log_alpha.dtype, copy=False)


def _recursion_buffers(ext_lp, forward):
    """``(variables, padded)``: the (T, N, L) log-variables as a view of a buffer with two -inf columns on the side
    the recursion reads from (so the neighbours of every position are views, not copies)."""
    steps, n, length = ext_lp.shape
    padded = np.full((steps, n, length + 2), _NEG_INF, ext_lp.dtype)
    return (padded[:, :, 2:] if forward else padded[:, :, :length]), padded


def _step(padded, t, source, skip_penalty, ext_lp_t, scratch):
    """One recursion step into ``padded[t]`` from ``padded[source]`` (t - 1 forward, t + 1 backward):
    ``logsumexp(v[s], v[s -/+ 1], v[s -/+ 2] + skip_penalty) + ext_lp_t``."""
    length = ext_lp_t.shape[1]
    prev = padded[source]
    if source < t:  # forward: positions s, s - 1, s - 2 are columns 2 + s, 1 + s, s of the buffer
        out, same, near, far = padded[t, :, 2:], prev[:, 2:], prev[:, 1:-1], prev[:, :-2]
    else:  # backward: positions s, s + 1, s + 2 are columns s, s + 1, s + 2
        out, same, near, far = padded[t, :, :length], prev[:, :length], prev[:, 1:-1], prev[:, 2:]
    np.add(far, skip_penalty, out=scratch)
    np.logaddexp(same, near, out=out)
    np.logaddexp(out, scratch, out=out)
    out += ext_lp_t


def _infer(attrs, infos):
    lp = infos[0]
    steps, n = (None, None) if lp.shape is None else lp.shape[:2]
    return [TensorInfo((n,), lp.dtype), TensorInfo((steps, n, None), lp.dtype)]


@defop("CTCLoss", inputs="log_probs:T targets:Tind input_lengths:Tlen target_lengths:Tlen",
       outputs="loss:T log_alpha:T", types=_TYPES, attrs=_ATTRS, infer=_infer)
def ctc_loss(blank, zero_infinity):
    """Per-sequence CTC negative log-likelihood of ``targets`` under ``log_probs`` (T, N, C); also log_alpha."""
    op = "CTCLoss"

    def kernel(log_probs, targets, input_lengths, target_lengths, out=None):
        al = _Alignment(op, log_probs, targets, input_lengths, target_lengths, blank)
        ext_lp = al.ext_lp
        log_alpha, padded = _recursion_buffers(ext_lp, forward=True)
        if ext_lp.shape[0]:
            log_alpha[0, :, :2] = ext_lp[0, :, :2]
            scratch = np.empty(ext_lp.shape[1:], ext_lp.dtype)
            for t in range(1, ext_lp.shape[0]):
                _step(padded, t, t - 1, al.skip_penalty, ext_lp[t], scratch)
        loss = np.negative(al.log_likelihood(log_alpha))
        if zero_infinity:
            loss[np.isinf(loss)] = 0
        return loss, log_alpha

    return kernel


@register_gradient("CTCLoss")
def _ctc_loss_grad(node, g_loss, _g_log_alpha):
    """Gradient to log_probs only (targets and lengths are integers; log_alpha is auxiliary)."""
    log_probs, targets, input_lengths, target_lengths = node.inputs
    grad = execute("CTCLossGrad", g_loss, log_probs, targets, input_lengths, target_lengths, node.output(1),
                   **node.attrs)
    return grad, None, None, None


@defop("CTCLossGrad", inputs="dY:T log_probs:T targets:Tind input_lengths:Tlen target_lengths:Tlen log_alpha:T",
       outputs="dlog_probs:T", types=_TYPES, attrs=_ATTRS,
       infer=lambda attrs, infos: [TensorInfo(infos[1].shape, infos[1].dtype)])
def ctc_loss_grad(blank, zero_infinity):
    """CTCLoss's backward (engine op): PyTorch's gradient of the per-sequence loss with respect to log_probs."""
    op = "CTCLossGrad"

    def kernel(dy, log_probs, targets, input_lengths, target_lengths, log_alpha, out=None):
        al = _Alignment(op, log_probs, targets, input_lengths, target_lengths, blank)
        ext_lp, ext = al.ext_lp, al.ext
        steps, n, c = log_probs.shape
        if log_alpha.shape != ext_lp.shape:
            raise ShapeError(f"{op}: log_alpha {describe(log_alpha)} must have shape {ext_lp.shape}")
        if dy.shape != (n,):
            raise ShapeError(f"{op}: dY {describe(dy)} must have shape ({n},)")
        rows = np.arange(n)
        tl2 = 2 * al.target_lengths
        last_step = al.input_lengths - 1
        log_beta, padded = _recursion_buffers(ext_lp, forward=False)
        # Position s reads s + 2 with the penalty of s + 2.
        penalty = np.full(ext.shape, _NEG_INF, log_probs.dtype)
        penalty[:, :-2] = al.skip_penalty[:, 2:]
        scratch = np.empty(ext.shape, log_probs.dtype)
        for t in range(steps - 1, -1, -1):
            if t < steps - 1:
                _step(padded, t, t + 1, penalty, ext_lp[t], scratch)
            ending = rows[last_step == t]  # sequences whose last step is t start their recursion here
            if ending.size:
                log_beta[t, ending] = _NEG_INF
                log_beta[t, ending, tl2[ending]] = ext_lp[t, ending, tl2[ending]]
                has_label = ending[tl2[ending] > 0]
                log_beta[t, has_label, tl2[has_label] - 1] = ext_lp[t, has_label, tl2[has_label] - 1]
        nll = np.negative(al.log_likelihood(log_alpha))
        # log(sum over the positions of each class of alpha * beta), per (t, n): a max-shifted sum by matmul.
        log_ab = log_alpha + log_beta
        top = np.max(log_ab, axis=2, keepdims=True) if log_ab.shape[2] else np.zeros((steps, n, 1), log_ab.dtype)
        top[~np.isfinite(top)] = 0
        np.subtract(log_ab, top, out=log_ab)
        np.exp(log_ab, out=log_ab)
        one_hot = np.zeros((n,) + ext.shape[1:] + (c,), log_probs.dtype)
        np.put_along_axis(one_hot, ext[:, :, None], 1, axis=2)
        per_class = np.matmul(log_ab.transpose(1, 0, 2), one_hot).transpose(1, 0, 2)  # (T, N, C)
        np.log(per_class, out=per_class)
        per_class += top
        per_class += nll[:, None]
        per_class -= log_probs
        np.exp(per_class, out=per_class)
        grad = np.exp(log_probs)
        grad -= per_class
        grad *= dy[:, None]
        unused = np.arange(steps)[:, None] > last_step[None, :]  # steps past each sequence's length
        if zero_infinity:
            unused = unused | np.isinf(nll)[None, :]
        grad[unused] = 0
        return grad

    return kernel


not_differentiable("CTCLossGrad")
