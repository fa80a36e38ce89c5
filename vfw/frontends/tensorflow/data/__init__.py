"""tf.data: input pipelines (``tf.data.Dataset``) with TensorFlow 2.21's elements, specs, cardinalities, errors
and seeded orders.

Where to look: ``_dataset`` (the Dataset class, how elements flow, the gathered fast path of
batches of slices), ``_functional`` (how user functions run), ``_ordering`` with ``_seeds``
(shuffle draws TF's exact order for a seed), ``_randomness`` (random ops inside functions).

Differences from TF 2.21 (each documented where it arises):

- user functions (``map``, ``filter``...) run eagerly per element after two traced runs on
  stand-in elements when the transformation is made: their Python side effects run for every
  element, and output dims that depend on values in ways the stand-ins do not show may stay
  known in the spec (``_functional``); random ops without a seed inside them draw reproducible
  numbers other than TF's (``_randomness``);
- elements are produced on demand on one thread: ``num_parallel_calls``, ``prefetch``, options
  and ``deterministic`` are accepted and change nothing; ``cache(filename)`` caches in memory;
- reading a dataset inside a ``tf.function`` raises NotImplementedError (TF turns the loop into
  dataset ops); ``batch`` refuses elements holding datasets; ``sample_from_datasets`` takes
  constant weights only; ``ignore_errors`` drops the failing element of a function, not the
  batch that contains it; no ragged or sparse datasets; ``save``/``load``/``snapshot`` use
  vfw's own directory format (``_persistence``), not TF's.
"""

from vfw.frontends.tensorflow import _type_names
from vfw.frontends.tensorflow.data import experimental  # noqa: F401
from vfw.frontends.tensorflow.data._dataset import AUTOTUNE, Dataset
from vfw.frontends.tensorflow.data._dataset import INFINITE as INFINITE_CARDINALITY
from vfw.frontends.tensorflow.data._dataset import UNKNOWN as UNKNOWN_CARDINALITY
from vfw.frontends.tensorflow.data._experimental_ops import IteratorSpec
from vfw.frontends.tensorflow.data._files import TextLineDataset, TFRecordDataset
from vfw.frontends.tensorflow.data._fixed_length import FixedLengthRecordDataset
from vfw.frontends.tensorflow.data._iterator import Iterator, NumpyIterator
from vfw.frontends.tensorflow.data._options import Options, ThreadingOptions
from vfw.frontends.tensorflow.data._structure import DatasetSpec

__all__ = ["AUTOTUNE", "Dataset", "DatasetSpec", "FixedLengthRecordDataset", "INFINITE_CARDINALITY", "Iterator",
           "IteratorSpec", "NumpyIterator", "Options",
           "TFRecordDataset", "TextLineDataset", "ThreadingOptions", "UNKNOWN_CARDINALITY", "experimental"]

_type_names.install("data")  # TF's names for tf.data's classes, as tf's own
