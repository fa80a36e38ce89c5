"""The protocol buffers wire format, as far as ``tf.train.Example`` and ``TensorProto`` need it.

A message is a sequence of fields, each a key ``(field_number << 3) | wire_type`` (a varint) followed by a varint
(wire type 0), 8 bytes (1), a length-prefixed byte string (2: strings, bytes, sub-messages, packed repeated
numbers) or 4 bytes (5).  Varints are little-endian groups of 7 bits, the high bit set on all but the last;
negative int64 values are encoded as their unsigned 64-bit two's complement (10 bytes).
"""

import numpy as np

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5
_MASK64 = (1 << 64) - 1


class DecodeError(Exception):
    """Malformed serialized data (protobuf's ``google.protobuf.message.DecodeError``)."""


def varint(value):
    """The varint bytes of a (possibly negative) int64."""
    value &= _MASK64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field(number, wire_type, payload):
    """One field: its key, then ``payload`` (the raw bytes for fixed types, length-prefixed for LENGTH)."""
    key = varint((number << 3) | wire_type)
    if wire_type == LENGTH:
        return key + varint(len(payload)) + payload
    return key + payload


def _read_varint(data, pos):
    result = shift = 0
    while True:
        if pos >= len(data):
            raise DecodeError("Truncated varint in a protocol buffer")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def fields(data):
    """``[(number, wire_type, value)]`` of a serialized message: ints for varints, bytes otherwise.

    Raises
    ------
    DecodeError
        For truncated or malformed data.
    """
    out, pos = [], 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        number, wire_type = key >> 3, key & 7
        if wire_type == VARINT:
            value, pos = _read_varint(data, pos)
        elif wire_type in (FIXED64, FIXED32):
            width = 8 if wire_type == FIXED64 else 4
            value, pos = bytes(data[pos:pos + width]), pos + width
        elif wire_type == LENGTH:
            length, pos = _read_varint(data, pos)
            value, pos = bytes(data[pos:pos + length]), pos + length
        else:
            raise DecodeError(f"Unsupported protocol buffer wire type {wire_type}")
        if pos > len(data):
            raise DecodeError("Truncated protocol buffer")
        out.append((number, wire_type, value))
    return out


def signed64(value):
    """A varint read back as int64."""
    return value - (1 << 64) if value >= 1 << 63 else value


def packed_varints(payload):
    """The int64 values of a packed repeated varint field."""
    values, pos = [], 0
    while pos < len(payload):
        value, pos = _read_varint(payload, pos)
        values.append(signed64(value))
    return values


def packed_floats(payload):
    """The float32 values of a packed repeated float field."""
    return np.frombuffer(payload, dtype="<f4").tolist()
