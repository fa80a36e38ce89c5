"""Candidate sampling: tf.random's (and tf.nn's) candidate samplers and tf.nn.compute_accidental_hits.

A sampler op draws ``num_sampled`` classes in ``[0, range_max)`` and estimates how often each true
and sampled class is expected among the draws.  TF 2.21's CPU kernels are reproduced to the bit:

* A kernel is seeded as the stateful random ops are (``_random_ops.get_seed``; eager kernels are
  cached by op and attributes, so calls with the same attributes continue one stream) and reserves
  ``512 * num_sampled`` Philox blocks per call, reading the 32-bit words of its blocks one by one.
* Uniform: a class is two words as a 64-bit integer (low word first) modulo ``range_max``; log-uniform:
  ``floor(exp(u * log(range_max + 1))) - 1`` for a uniform double ``u`` of two words; fixed unigram:
  Walker's alias table of the weights, a float of one word against the bucket ``word % n`` of the
  next; learned unigram: ``word % total`` (words below ``2**32 % total`` rejected unless the total
  is a power of two) located in the running sums of the counts, which start at 1 and grow by the
  true classes of each call after it draws.
* With ``unique=True`` draws repeat until ``num_sampled`` distinct classes came up in
  ``num_tries`` draws; the expected count of a class of probability ``p`` is then
  ``-expm1f(num_tries * log1pf(-p))`` (the C library's float functions), else ``p * num_sampled``.
"""

import collections
import ctypes
import ctypes.util
import functools
import math

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow import _philox as philox
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._random_common import Stream, tracing
from vfw.frontends.tensorflow._random_ops import _state as _seed_state
from vfw.frontends.tensorflow._random_ops import get_seed

F32 = np.dtype(np.float32)
_BLOCKS_PER_SAMPLE = 512  # a sampler kernel reserves 2048 words per sampled class
_FLT_MAX = np.finfo(np.float32).max


def _result_type(op_name, fields):
    result = collections.namedtuple(op_name, fields)
    result.__module__ = "tensorflow.python.ops.gen_candidate_sampling_ops"
    return result


_SAMPLER_FIELDS = ("sampled_candidates", "true_expected_count", "sampled_expected_count")
UniformCandidateSampler = _result_type("UniformCandidateSampler", _SAMPLER_FIELDS)
LogUniformCandidateSampler = _result_type("LogUniformCandidateSampler", _SAMPLER_FIELDS)
FixedUnigramCandidateSampler = _result_type("FixedUnigramCandidateSampler", _SAMPLER_FIELDS)
LearnedUnigramCandidateSampler = _result_type("LearnedUnigramCandidateSampler", _SAMPLER_FIELDS)
AllCandidateSampler = _result_type("AllCandidateSampler", _SAMPLER_FIELDS)
ComputeAccidentalHits = _result_type("ComputeAccidentalHits", ("indices", "ids", "weights"))


# -- the distributions: each turns a stream's words into classes and gives class probabilities ---------------------
class _Uniform:
    """Every class of ``[0, range_max)`` equally likely."""

    def __init__(self, range_max):
        self.range = range_max

    def classes(self, w):
        w = w[:w.size - w.size % 2].reshape(-1, 2).astype(np.uint64)
        return ((w[:, 0] | (w[:, 1] << np.uint64(32))) % np.uint64(self.range)).astype(np.int64)

    def probability(self, values):
        return np.full(values.shape, np.float32(1.0 / self.range), F32)


class _LogUniform:
    """Class ``k`` with probability ``log((k + 2) / (k + 1)) / log(range_max + 1)`` (Zipfian)."""

    def __init__(self, range_max):
        self.range = range_max
        self.log_range = math.log1p(range_max)

    def classes(self, w):
        unit = philox.unit_floats(w[:w.size - w.size % 2], philox.F64)
        return (np.exp(unit * self.log_range).astype(np.int64) - 1) % self.range

    def probability(self, values):
        v = values.astype(np.float64)
        return (np.log((v + 2.0) / (v + 1.0)) / self.log_range).astype(F32)


class _Alias:
    """Classes drawn with probabilities proportional to float32 ``weights`` by Walker's alias method.

    The table is built as TF's DistributionSampler builds it (small and large buckets paired from the
    back of their lists); building it is a sequential pass over the classes, done once per kernel.
    """

    def __init__(self, weights):
        self.weights = weights
        n = weights.size
        total = float(np.sum(weights.astype(np.float64)))  # TF sums the float weights in double, in order
        scaled = ((weights * np.float32(n)).astype(np.float64) / total).tolist()
        alias = list(range(n))
        low = [i for i, p in enumerate(scaled) if p < 1.0]
        high = [i for i, p in enumerate(scaled) if p >= 1.0]
        while low and high:
            small, large = low.pop(), high.pop()
            alias[small] = large
            scaled[large] -= 1.0 - scaled[small]
            (low if scaled[large] < 1.0 else high).append(large)
        for i in low + high:  # left over by rounding: always themselves
            scaled[i], alias[i] = 1.0, i
        self.keep = np.array(scaled, F32)
        self.alias = np.array(alias, np.int64)

    def classes(self, w):
        w = w[:w.size - w.size % 2].reshape(-1, 2)
        unit = philox.unit_floats(w[:, 0].copy(), F32)
        bucket = (w[:, 1] % np.uint32(self.keep.size)).astype(np.int64)
        return np.where(unit < self.keep[bucket], bucket, self.alias[bucket])


class _FixedUnigram(_Alias):
    """Classes weighted by given unigram counts raised to ``distortion``, with reserved ids of weight 0."""

    def __init__(self, range_max, unigrams, distortion, num_reserved_ids, num_shards, shard):
        self.range = range_max
        owned = lambda ids: ids % num_shards == shard  # noqa: E731  (the classes of this shard)
        reserved = np.zeros(int(np.count_nonzero(owned(np.arange(num_reserved_ids)))), F32)
        ids = reserved.size + np.arange(len(unigrams))
        counts = _powf(np.asarray(unigrams, F32)[owned(ids)], np.float32(distortion))
        self.total = np.cumsum(counts, dtype=F32)[-1] if counts.size else np.float32(0)  # float32, in order
        weights = np.concatenate([reserved, counts])
        if weights.size != range_max:
            raise op_error(f"range is {range_max} must be equal to weights size  {weights.size}",
                           "FixedUnigramCandidateSampler")
        super().__init__(weights)

    def probability(self, values):
        inside = (values >= 0) & (values < self.weights.size)
        found = self.weights[np.where(inside, values, 0)]
        return np.where(inside, found / self.total, np.float32(0)).astype(F32)


class _LearnedUnigram:
    """Classes weighted by how often they were true classes (each count starting at 1)."""

    def __init__(self, range_max):
        self.range = range_max
        self.counts = np.ones(range_max, np.int64)

    def classes(self, w):
        total = int(self.counts.sum())
        if total & (total - 1) == 0:
            picks = w & np.uint32(total - 1)
        else:
            picks = w[w >= np.uint32((2 ** 32 - 1) % total + 1)] % np.uint32(total)
        return np.searchsorted(np.cumsum(self.counts), picks.astype(np.int64), side="right")

    def probability(self, values):
        return (self.counts[values].astype(F32) / np.float32(self.counts.sum())).astype(F32)

    def update(self, true_classes):
        np.add.at(self.counts, true_classes.reshape(-1), 1)


@functools.cache
def _c_library_function(name, arity):
    """The C math library's float function ``name`` (None without a loadable library); looked up at first use,
    as finding the library may run ``ldconfig``."""
    library = ctypes.util.find_library("m")
    function = getattr(ctypes.CDLL(library), name, None) if library else None
    if function is not None:
        function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float] * arity
    return function


def _c_float_function(name, fallback, arity=1):
    """The C library's float function ``name`` (``log1pf``...) over float32 arrays, as TF's kernels call it.

    Its results are not always correctly rounded, and numpy's float32 functions differ from it in the
    last bit now and then, so TF's values need the library's own function (one call per element);
    without a loadable C math library, ``fallback`` (float64, rounded once).
    """
    def apply(*xs):
        function = _c_library_function(name, arity)
        if function is None:
            return fallback(*(np.asarray(x, np.float64) for x in xs)).astype(F32)
        xs = np.broadcast_arrays(*xs)
        return np.array([function(*v) for v in zip(*(x.reshape(-1).tolist() for x in xs))], F32).reshape(xs[0].shape)
    return apply


_log1pf = _c_float_function("log1pf", np.log1p)
_expm1f = _c_float_function("expm1f", np.expm1)
_powf = _c_float_function("powf", np.power, arity=2)


def _expected(p, num_sampled, num_tries):
    """How often a class of float32 probabilities ``p`` is expected among the draws (float32)."""
    if num_tries == num_sampled:
        return (p * np.float32(num_sampled)).astype(F32)
    return -_expm1f(np.float32(num_tries) * _log1pf(-p))


def _draws(distribution, key, counter, num_sampled, unique):
    """``(classes, num_tries)``: the draws of one call from the stream at ``counter``."""
    n_words = 4 * num_sampled
    while True:
        drawn = distribution.classes(philox.words(key, counter, n_words))
        if not unique:
            if drawn.size >= num_sampled:
                return drawn[:num_sampled], num_sampled
        else:
            _, first = np.unique(drawn, return_index=True)
            if first.size >= num_sampled:
                first = np.sort(first)[:num_sampled]
                return drawn[first], int(first[-1]) + 1
        n_words *= 2  # rejections used more words than thought: read on (TF's kernel reads past its reserve too)


def _check_attrs(tf_op, **attrs):
    for name, value in attrs.items():
        if value < 1:
            raise op_error(f"Value for attr '{name}' of {value} must be at least minimum 1", tf_op)


def _true_classes(true_classes, num_true, tf_op):
    classes = convert_to_tensor(true_classes, _dtypes.int64)
    if classes.dtype != _dtypes.int64:
        raise op_error(f"cannot compute {tf_op} as input #0(zero-based) was expected to be a int64 tensor but is a "
                       f"{classes.dtype.name} tensor", tf_op)
    if classes.array.ndim != 2:
        raise op_error("true_classes must be a matrix", tf_op)
    if classes.array.shape[1] != num_true:
        raise op_error(f"true_classes must have num_true columns, expected: {classes.array.shape[1]} was: {num_true}",
                       tf_op)
    return classes


def _kernel_state(tf_op, seed, attrs, make_distribution):
    """The stream and distribution of the kernel of ``tf_op`` with ``attrs`` (cached as TF caches eager kernels)."""
    seeds = get_seed(seed)
    if tracing():
        return Stream.of_seeds(*seeds), make_distribution()
    key = ("candidates", tf_op) + attrs + seeds
    found = _seed_state.kernels.get(key)
    if found is None:
        found = _seed_state.kernels[key] = (Stream.of_seeds(*seeds), make_distribution())
    return found


def _sample(result_type, true_classes, num_true, num_sampled, unique, range_max, seed, make_distribution,
            attrs=()):
    tf_op = result_type.__name__
    num_true, num_sampled, range_max = int(num_true), int(num_sampled), int(range_max)
    _check_attrs(tf_op, num_true=num_true, num_sampled=num_sampled, range_max=range_max)
    classes = _true_classes(true_classes, num_true, tf_op)
    stream, distribution = _kernel_state(tf_op, seed, (num_true, num_sampled, bool(unique), range_max) + attrs,
                                         make_distribution)
    if unique and num_sampled > range_max:
        raise op_error("Sampler's range is too small.", tf_op)

    def run(true_array):
        outside = (true_array < 0) | (true_array >= range_max)
        if outside.any():
            raise op_error(f"`true_candidate` out of range [0, {range_max}), received {true_array[outside][0]}", tf_op)
        counter = stream.reserve(_BLOCKS_PER_SAMPLE * num_sampled)
        drawn, num_tries = _draws(distribution, stream.key, counter, num_sampled, unique)
        true_expected = _expected(distribution.probability(true_array), num_sampled, num_tries)
        sampled_expected = _expected(distribution.probability(drawn), num_sampled, num_tries)
        if hasattr(distribution, "update"):
            distribution.update(true_array)
        return drawn, true_expected, sampled_expected

    return result_type(*host(run, classes))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Sample ``num_sampled`` classes uniformly from ``[0, range_max)``.

    Parameters
    ----------
    true_classes : int64 Tensor, shape ``(batch_size, num_true)``
    num_true, num_sampled, range_max : int
        At least 1 each (``num_sampled <= range_max`` when ``unique``).
    unique : bool
        Whether the sampled classes are distinct.
    seed : int, optional
        Op seed (with the global seed, as the stateful random ops).

    Returns
    -------
    UniformCandidateSampler
        ``(sampled_candidates, true_expected_count, sampled_expected_count)``: int64 ``(num_sampled,)``,
        float32 ``(batch_size, num_true)`` and float32 ``(num_sampled,)``.
    """
    return _sample(UniformCandidateSampler, true_classes, num_true, num_sampled, unique, range_max, seed,
                   lambda: _Uniform(int(range_max)))


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Sample classes from the log-uniform (Zipfian) distribution over ``[0, range_max)``.

    Class ``k`` has probability ``log((k + 2) / (k + 1)) / log(range_max + 1)``; arguments and results
    as ``uniform_candidate_sampler``.
    """
    return _sample(LogUniformCandidateSampler, true_classes, num_true, num_sampled, unique, range_max, seed,
                   lambda: _LogUniform(int(range_max)))


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Sample classes with probabilities proportional to how often each was a true class so far.

    The counts (all 1 at first) belong to the op's kernel: calls with the same attributes share
    them, each call adding its true classes after drawing.  Arguments and results as
    ``uniform_candidate_sampler``.
    """
    return _sample(LearnedUnigramCandidateSampler, true_classes, num_true, num_sampled, unique, range_max, seed,
                   lambda: _LearnedUnigram(int(range_max)))


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None):
    """Sample classes with probabilities proportional to given unigram counts raised to ``distortion``.

    Parameters
    ----------
    unigrams : sequence of float
        One count per class (after ``num_reserved_ids`` reserved classes of weight 0); of the
        classes, a sampler keeps those with ``id % num_shards == shard``, which must number
        ``range_max``.
    vocab_file : str
        Not supported in vfw (NotImplementedError); give ``unigrams``.

    Other arguments and the results as ``uniform_candidate_sampler``.
    """
    tf_op = "FixedUnigramCandidateSampler"
    unigrams = [float(u) for u in unigrams]
    if vocab_file and unigrams:
        raise op_error("Must only provide one of vocab_file and unigrams.", tf_op)
    if vocab_file:
        raise NotImplementedError("tf.random.fixed_unigram_candidate_sampler: `vocab_file` is not supported in vfw; "
                                  "pass the counts as `unigrams`.")
    if not unigrams:
        raise op_error("Must provide either vocab_file or unigrams.", tf_op)
    attrs = (float(distortion), int(num_reserved_ids), int(num_shards), int(shard), tuple(unigrams))
    return _sample(FixedUnigramCandidateSampler, true_classes, num_true, num_sampled, unique, range_max, seed,
                   lambda: _FixedUnigram(int(range_max), unigrams, *attrs[:4]), attrs)


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """"Sample" every class of ``[0, num_sampled)`` once, each with expected count 1.

    Arguments and results as ``uniform_candidate_sampler`` (``unique`` and ``seed`` change nothing).
    """
    tf_op = "AllCandidateSampler"
    num_true, num_sampled = int(num_true), int(num_sampled)
    _check_attrs(tf_op, num_true=num_true, num_sampled=num_sampled)
    classes = _true_classes(true_classes, num_true, tf_op)
    get_seed(seed)  # an op seed drawn from the global seed is used up, as in TF

    def run(true_array):
        outside = (true_array < 0) | (true_array >= num_sampled)
        if outside.any():
            raise op_error(f"`true_candidate` out of range [0, {num_sampled}), received {true_array[outside][0]}",
                           tf_op)
        return np.arange(num_sampled, dtype=np.int64), np.ones(true_array.shape, F32), np.ones(num_sampled, F32)

    return AllCandidateSampler(*host(run, classes))


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Where sampled candidates are true classes of a row: the entries sampled losses must ignore.

    Parameters
    ----------
    true_classes : int64 Tensor, shape ``(batch_size, num_true)``
    sampled_candidates : int64 Tensor, shape ``(num_sampled,)``
    num_true : int

    Returns
    -------
    ComputeAccidentalHits
        ``(indices, ids, weights)``: for each true class (row by row) that was sampled, its row
        (int32), the last position it was sampled at (int64), and ``-FLT_MAX`` (float32).
    """
    tf_op = "ComputeAccidentalHits"
    num_true = int(num_true)
    true = convert_to_tensor(true_classes, _dtypes.int64)
    sampled = convert_to_tensor(sampled_candidates, _dtypes.int64)
    for position, t in enumerate((true, sampled)):
        if t.dtype != _dtypes.int64:
            raise op_error(f"cannot compute {tf_op} as input #{position}(zero-based) was expected to be a int64 "
                           f"tensor but is a {t.dtype.name} tensor", tf_op)
    if true.array.ndim != 2 or true.array.shape[1] != num_true:
        raise op_error("true_candidates must be a batch_size * num_true matrix", tf_op)
    if sampled.array.ndim != 1:
        raise op_error("sampled_candidates must be a vector, which is typically an output from CandidateSampler",
                       tf_op)
    get_seed(seed)

    def hits(true_array, sampled_array):
        # the last position of each distinct sampled class
        distinct, from_end = np.unique(sampled_array[::-1], return_index=True)
        last = sampled_array.size - 1 - from_end
        flat = true_array.reshape(-1)
        where = np.minimum(np.searchsorted(distinct, flat), max(distinct.size - 1, 0))
        found = np.flatnonzero(distinct[where] == flat) if distinct.size else np.zeros(0, np.int64)
        return ((found // max(num_true, 1)).astype(np.int32), last[where[found]].astype(np.int64),
                np.full(found.size, -_FLT_MAX, F32))

    return ComputeAccidentalHits(*host(hits, true, sampled))


NAMESPACES = {
    "random": ["uniform_candidate_sampler", "log_uniform_candidate_sampler", "fixed_unigram_candidate_sampler",
               "learned_unigram_candidate_sampler", "all_candidate_sampler"],
    "nn": ["fixed_unigram_candidate_sampler", "learned_unigram_candidate_sampler", "all_candidate_sampler",
           "compute_accidental_hits"],
}
