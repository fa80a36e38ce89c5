"""``tf.io.decode_csv``: CSV records (a string tensor of any shape) parsed into one tensor per column.

Each column's dtype and default come from ``record_defaults`` (float32, float64, int32, int64 or string; an empty
default makes the column required).  Fields are split on ``field_delim`` with RFC 4180 quoting when
``use_quote_delim`` (``""`` inside a quoted field is a quote); a field that is empty or equals ``na_value`` takes
its column's default.  Malformed records raise TF's InvalidArgumentError.  The parsing runs through ``host``, so a
``Dataset.map`` or ``tf.function`` trace parses every element it is run on.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._io_ops import _on_stand_ins

_ALLOWED = ("float32", "float64", "int32", "int64", "string")
_INT_RANGES = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}


def _split_fields(record, delim, quoted, index):
    """The fields of one record (bytes), honouring double quotes when ``quoted``."""
    if not quoted or b'"' not in record:
        return record.split(delim)
    fields, current, position, in_quotes = [], bytearray(), 0, False
    while position < len(record):
        char = record[position:position + 1]
        if in_quotes:
            if char == b'"' and record[position + 1:position + 2] == b'"':
                current += b'"'
                position += 1
            elif char == b'"':
                in_quotes = False
            else:
                current += char
        elif char == b'"' and not current:
            in_quotes = True
        elif char == delim:
            fields.append(bytes(current))
            current = bytearray()
        else:
            current += char
        position += 1
    if in_quotes:
        raise op_error(f"Quoted field has to end with quote followed by delim or end of record {index}", "DecodeCSV")
    fields.append(bytes(current))
    return fields


def _parsed(text, dtype, column, index):
    """``text`` (bytes) as a value of ``dtype``, TF's InvalidArgumentError when it is not one."""
    if dtype == "string":
        return text
    try:
        if dtype in _INT_RANGES:
            value = int(text)
            low, high = _INT_RANGES[dtype]
            if not low <= value <= high:
                raise ValueError
            return value
        return float(text)
    except ValueError:
        raise op_error(f"Field {column} in record {index} is not a valid {dtype}: {text.decode(errors='replace')}",
                       "DecodeCSV") from None


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """A list of tensors, one per column, each of ``records``' shape.

    Parameters
    ----------
    records : string tensor of any shape
        One CSV line per element.
    record_defaults : list of tensors or lists
        Per output column a default of 0 or 1 elements; its dtype is the column's dtype.
    field_delim : str
        One-character field separator.
    use_quote_delim : bool
        Whether double quotes group fields (RFC 4180).
    na_value : str
        A field value treated as missing.
    select_cols : list of int, optional
        Sorted indices of the columns to return (``record_defaults`` has one entry per selected column).
    """
    records = convert_to_tensor(records, dtype=_dtypes.string, name="records")
    defaults = [convert_to_tensor(d, name="record_defaults") for d in record_defaults]
    if len(field_delim) != 1:
        raise op_error("field_delim should be only 1 char", "DecodeCSV")
    for default in defaults:
        if default.dtype.name not in _ALLOWED:
            raise TypeError(f"Value passed to parameter 'record_defaults' has DataType {default.dtype.name} not in "
                            f"list of allowed values: float32, float64, int32, int64, string")
        if default.shape.rank is not None and default.shape.rank > 1 or default.shape.num_elements() > 1:
            raise op_error("Shape of a default must be a length-0 or length-1 vector, or a scalar.", "DecodeCSV")
    if select_cols is not None and list(select_cols) != sorted(set(select_cols)):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols is not None and len(select_cols) != len(defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    delim, na = field_delim.encode(), na_value.encode()
    dtypes = [d.dtype.name for d in defaults]
    numpy_dtypes = [object if t == "string" else np.dtype(t) for t in dtypes]

    def parse_or_stand_in(lines, *default_arrays):
        try:
            return parse(lines, *default_arrays)
        except errors.OpError:
            if not _on_stand_ins():  # a tf.data function's stand-in element finds the output spec only
                raise
            return tuple(np.zeros(lines.shape, t) if t is not object else np.full(lines.shape, b"", object)
                         for t in numpy_dtypes)

    def parse(lines, *default_arrays):
        flat = lines.reshape(-1)
        columns = [np.empty(flat.shape, numpy_dtype) for numpy_dtype in numpy_dtypes]
        for index, line in enumerate(flat):
            fields = _split_fields(line, delim, use_quote_delim, index)
            wanted = select_cols if select_cols is not None else range(len(defaults))
            if select_cols is None and len(fields) != len(defaults) or select_cols is not None and \
                    len(fields) <= select_cols[-1]:
                raise op_error(f"Expect {len(defaults)} fields but have {len(fields)} in record {index}", "DecodeCSV")
            for column, source in enumerate(wanted):
                text = fields[source]
                if text == b"" or text == na:
                    if default_arrays[column].size == 0:
                        raise op_error(f"Field {column} is required but missing in record {index}!", "DecodeCSV")
                    columns[column][index] = default_arrays[column].reshape(-1)[0]
                else:
                    columns[column][index] = _parsed(text, dtypes[column], column, index)
        return tuple(c.reshape(lines.shape) for c in columns)

    outputs = host(parse_or_stand_in, records, *defaults)
    return list(outputs) if isinstance(outputs, tuple) else [outputs]


NAMESPACES = {"io": ["decode_csv"]}
