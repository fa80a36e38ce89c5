"""``tf.data.FixedLengthRecordDataset``: the fixed-size records of binary files."""

import numpy as np

from vfw.frontends.tensorflow import _dispatch, errors
from vfw.frontends.tensorflow.data._dataset import int64_argument
from vfw.frontends.tensorflow.data._files import TextLineDataset, file_content


class FixedLengthRecordDataset(TextLineDataset):
    """``tf.data.FixedLengthRecordDataset(filenames, record_bytes, header_bytes=None, footer_bytes=None,
    buffer_size=None, compression_type=None, num_parallel_reads=None)``: each file's body (without its
    ``header_bytes`` first and ``footer_bytes`` last bytes) cut into scalar strings of ``record_bytes`` bytes.

    Raises
    ------
    InvalidArgumentError
        While iterating, for a file whose body is not a whole number of records (TF's message).
    """

    _tf_name = "FixedLengthRecordDatasetV2"

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None, name=None):
        self._record = int64_argument(record_bytes, "record_bytes")
        self._header = 0 if header_bytes is None else int64_argument(header_bytes, "header_bytes")
        self._footer = 0 if footer_bytes is None else int64_argument(footer_bytes, "footer_bytes")
        if self._record <= 0:
            raise _dispatch.op_error(f"record_bytes must be > 0 but it is {self._record}", self._tf_name)
        if self._header < 0 or self._footer < 0:
            raise _dispatch.op_error("header_bytes and footer_bytes must be >= 0", self._tf_name)
        super().__init__(filenames, compression_type, buffer_size, num_parallel_reads, name)

    def _one_file(self, path):
        content = file_content(path, self._compression)
        body = content[self._header:len(content) - self._footer]
        # TF checks an uncompressed file's size before reading (InvalidArgumentError); a compressed stream's size is
        # found at its end, after the whole records (DataLossError)
        error = errors.DataLossError if self._compression else errors.InvalidArgumentError
        if len(body) % self._record and not self._compression:
            raise self._length_error(path, body, error)
        for start in range(0, len(body) - self._record + 1, self._record):
            yield (np.array(body[start:start + self._record], dtype=object),)
        if len(body) % self._record:
            raise self._length_error(path, body, error)

    def _length_error(self, path, body, error):
        return _dispatch.op_error(
            f"Excluding the header ({self._header} bytes) and footer ({self._footer} bytes), input file \"{path}\" "
            f"has body length {len(body)} bytes, which is not an exact multiple of the record length "
            f"({self._record} bytes).", "IteratorGetNext", error)
