"""TFRecord framing: each record is its length (uint64, little-endian), the masked CRC-32C of those 8 bytes
(uint32), the data, and the masked CRC-32C of the data.  TensorBoard event files are TFRecord files of ``Event``
protos; ``tf.io.TFRecordWriter`` and ``tf.data.TFRecordDataset`` use the same checksum."""

import numpy as np


def _crc_table():
    # CRC-32C (Castagnoli), reflected polynomial 0x82F63B78: the table of each byte's remainder.
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0x82F63B78), table >> 1).astype(np.uint32)
    return table.tolist()


_CRC_TABLE = _crc_table()


def masked_crc32c(data):
    """TFRecord's checksum: CRC-32C of ``data`` rotated right by 15 bits plus 0xa282ead8 (mod 2**32)."""
    crc = 0xFFFFFFFF
    table = _CRC_TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    crc ^= 0xFFFFFFFF
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(data):
    """The bytes of one record holding ``data`` (bytes)."""
    length = len(data).to_bytes(8, "little")
    return b"".join([length, masked_crc32c(length).to_bytes(4, "little"), data,
                     masked_crc32c(data).to_bytes(4, "little")])
