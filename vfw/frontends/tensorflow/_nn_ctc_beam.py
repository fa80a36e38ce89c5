"""The prefix beam search of tf.nn.ctc_beam_search_decoder, step by step as TF 2.21's CPU kernel runs it.

A beam entry is a label prefix (a node of a prefix tree) with two pairs of log-probabilities,
``(blank, label, total)`` at the previous frame (``old``) and the current one (``new``): of the
prefix's alignments ending in a blank, ending in its last label, and of either.  At each frame
(the log-softmax of the logits; the last class is the blank):

1. every prefix in the beam (best first) extends its alignments: ``label`` takes in the parent's
   probability (its blank part when the last two labels repeat) and the frame's label probability;
   ``blank`` is the old total times the blank probability;
2. every prefix whose old total is still a candidate (the beam is not full or it beats the beam's
   worst) grows one child per non-blank class not already in the beam, whose probability is the
   class probability times the prefix's old total (old blank part when the class repeats the
   last label); a child that beats the worst entry of a full beam evicts it (its probabilities are
   forgotten), others are dropped.

The search is sequential by nature (each decision depends on the beam left by the previous one), so it
runs in Python over frames, beam entries and classes; the frames' log-softmax is computed once with numpy.
Probabilities are combined in double precision (TF combines float32 inputs in float32), so scores
agree with TF's to float32 rounding and the paths are TF's unless two candidates tie to that precision.
"""

import math

import numpy as np

from vfw.frontends.tensorflow._dispatch import op_error

_LOG_ZERO = -math.inf


def _log_sum_exp(a, b):
    if a == _LOG_ZERO:
        return b
    if b == _LOG_ZERO:
        return a
    return a + math.log1p(math.exp(b - a)) if a > b else b + math.log1p(math.exp(a - b))


class _Entry:
    """A prefix of the search: its last label, parent, children by label, and old/new probabilities."""

    __slots__ = ("parent", "label", "children", "old", "new")

    def __init__(self, parent, label):
        self.parent, self.label, self.children = parent, label, {}
        self.old = [_LOG_ZERO, _LOG_ZERO, _LOG_ZERO]  # blank, label, total
        self.new = [_LOG_ZERO, _LOG_ZERO, _LOG_ZERO]

    def active(self):
        return self.new[2] != _LOG_ZERO

    def child(self, label):
        found = self.children.get(label)
        if found is None:
            found = self.children[label] = _Entry(self, label)
        return found

    def labels(self):
        out = []
        entry = self
        while entry.parent is not None:
            out.append(entry.label)
            entry = entry.parent
        return out[::-1]


class _Beam:
    """The entries of the beam (at most ``width``), with TF's candidate test and eviction of the worst."""

    def __init__(self, width):
        self.width, self.entries = width, []

    def worst(self):
        return min(self.entries, key=lambda e: e.new[2])

    def is_candidate(self, total):
        return total > _LOG_ZERO and (len(self.entries) < self.width or total > self.worst().new[2])

    def take_sorted(self):
        """The entries, best first (the beam is emptied)."""
        entries = sorted(self.entries, key=lambda e: -e.new[2])
        self.entries = []
        return entries


def _step(beam, log_probs, blank):
    branches = beam.take_sorted()
    for b in branches:
        b.old = list(b.new)
    for b in branches:
        if b.parent is not None:
            parent = b.parent
            if parent.active():
                previous = parent.old[0] if b.label == parent.label else parent.old[2]
                b.new[1] = _log_sum_exp(b.new[1], previous)
            b.new[1] += log_probs[b.label]
        b.new[0] = b.old[2] + log_probs[blank]
        b.new[2] = _log_sum_exp(b.new[0], b.new[1])
        beam.entries.append(b)
    for b in branches:
        if not beam.is_candidate(b.old[2]):
            continue
        for label in range(blank):
            c = b.child(label)
            if c.active():
                continue
            previous = b.old[0] if label == b.label else b.old[2]
            c.new = [_LOG_ZERO, log_probs[label] + previous, log_probs[label] + previous]
            if beam.is_candidate(c.new[2]):
                if len(beam.entries) == beam.width:
                    worst = beam.worst()
                    worst.new = [_LOG_ZERO, _LOG_ZERO, _LOG_ZERO]
                    beam.entries.remove(worst)
                beam.entries.append(c)
            else:
                c.old = [_LOG_ZERO, _LOG_ZERO, _LOG_ZERO]
                c.new = [_LOG_ZERO, _LOG_ZERO, _LOG_ZERO]


def _log_softmax(logits):
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def beam_search(logits, lengths, width, top_paths):
    """The best ``top_paths`` label sequences of each batch entry and their log-probabilities.

    Parameters
    ----------
    logits : numpy.ndarray
        ``(max_time, batch, num_classes)`` float; the last class is the blank.
    lengths : numpy.ndarray
        ``(batch,)`` frames of each entry.
    width, top_paths : int

    Returns
    -------
    tuple
        ``(paths, scores)``: ``paths[b][k]`` the ``k``-th best sequence of entry ``b`` (a list of int),
        ``scores`` float64 ``(batch, top_paths)``.
    """
    log_probs = _log_softmax(logits).astype(np.float64)
    batch, blank = logits.shape[1], logits.shape[2] - 1
    paths, scores = [], np.zeros((batch, top_paths))
    for b in range(batch):
        root = _Entry(None, -1)
        root.new = [0.0, _LOG_ZERO, 0.0]
        beam = _Beam(width)
        beam.entries.append(root)
        for t in range(int(lengths[b])):
            _step(beam, log_probs[t, b].tolist(), blank)
        best = beam.take_sorted()
        if len(best) < top_paths:
            raise op_error("Less leaves in the beam search than requested.", "CTCBeamSearchDecoder")
        paths.append([e.labels() for e in best[:top_paths]])
        scores[b] = [e.new[2] for e in best[:top_paths]]
    return paths, scores
