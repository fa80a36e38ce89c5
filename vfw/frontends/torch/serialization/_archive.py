"""The zip container of torch's checkpoints: an aligned uncompressed writer and record readers.

torch stores every record uncompressed with its data at a multiple of 64 bytes (so storages can
be memory-mapped), padding each local header's extra field. Reading goes through ``zipfile``.
"""

import struct
import zipfile
import zlib

import numpy as np

ALIGNMENT = 64
_ZIP64_LIMIT = 0xFFFFFFFF  # sizes and offsets from here on go in zip64 extra fields
_IN_ZIP64 = 0xFFFFFFFF  # what a 32-bit field holds when its value is in a zip64 field
_PADDING_ID = 0x4246  # the extra-field id torch pads with ('FB')
_DOS_DATE = 0x21  # 1980-01-01: a fixed timestamp makes saves reproducible
_UTF8_NAMES = 0x800


class ArchiveWriter:
    """Writes records ``prefix/name`` into a zip stream sequentially (no seeking needed).

    Parameters
    ----------
    stream : binary file
        Where the archive goes (written from its current position).
    prefix : str
        The archive's top folder (torch uses the file name without extension, or 'archive').
    """

    def __init__(self, stream, prefix):
        self.stream = stream
        self.prefix = prefix
        self.position = 0
        self.entries = []  # (name bytes, crc, size, local header offset)

    def _write(self, data):
        self.stream.write(data)
        self.position += memoryview(data).nbytes

    def add(self, name, data):
        """Write one record; ``data`` is bytes or a contiguous uint8 array."""
        view = memoryview(data).cast("B")
        name_bytes = f"{self.prefix}/{name}".encode()
        size, crc, offset = view.nbytes, zlib.crc32(view), self.position
        zip64 = struct.pack("<HHQQ", 1, 16, size, size) if size >= _ZIP64_LIMIT else b""
        header_size = 30 + len(name_bytes) + len(zip64) + 4
        padding = -(offset + header_size) % ALIGNMENT
        extra = zip64 + struct.pack("<HH", _PADDING_ID, padding) + b"Z" * padding
        stored = _IN_ZIP64 if zip64 else size
        self._write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 45 if zip64 else 20, _UTF8_NAMES, 0, 0, _DOS_DATE,
                                crc, stored, stored, len(name_bytes), len(extra)) + name_bytes + extra)
        self._write(view)
        self.entries.append((name_bytes, crc, size, offset))

    def finish(self):
        """Write the central directory (zip64 records when sizes, offsets or counts need them)."""
        start = self.position
        for name_bytes, crc, size, offset in self.entries:
            wide_size, wide_offset = size >= _ZIP64_LIMIT, offset >= _ZIP64_LIMIT
            wide = [size, size] * wide_size + [offset] * wide_offset
            extra = struct.pack(f"<HH{len(wide)}Q", 1, 8 * len(wide), *wide) if wide else b""
            version = 45 if wide else 20
            stored = _IN_ZIP64 if wide_size else size
            self._write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, version, version, _UTF8_NAMES, 0, 0,
                                    _DOS_DATE, crc, stored, stored, len(name_bytes), len(extra), 0, 0, 0, 0,
                                    _IN_ZIP64 if wide_offset else offset) + name_bytes + extra)
        count, directory_size = len(self.entries), self.position - start
        zip64 = count >= 0xFFFF or start >= _ZIP64_LIMIT or directory_size >= _ZIP64_LIMIT
        if zip64:
            record = self.position
            self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, directory_size, start))
            self._write(struct.pack("<IIQI", 0x07064B50, 0, record, 1))
        entries = 0xFFFF if zip64 else count
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, entries, entries, _IN_ZIP64 if zip64 else
                                directory_size, _IN_ZIP64 if zip64 else start, 0))


class ArchiveReader:
    """The records of a checkpoint zip (whatever its top folder is called).

    Parameters
    ----------
    stream : binary file
        A seekable stream positioned anywhere in the archive.
    mapped : numpy.memmap, optional
        The whole file mapped copy-on-write: storages become views of it instead of reads.
    """

    def __init__(self, stream, mapped=None):
        self.stream = stream
        self.mapped = mapped
        try:
            self.zip = zipfile.ZipFile(stream)
        except zipfile.BadZipFile as e:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: {e}. The checkpoint file may be "
                               "corrupted or truncated.") from None
        names = self.zip.namelist()
        pickles = [n for n in names if n.count("/") == 1 and n.endswith("/data.pkl")]
        self.prefix = pickles[0][:-len("data.pkl")] if pickles else None
        self.names = set(names)

    def has(self, name):
        return self.prefix is not None and self.prefix + name in self.names

    def read(self, name):
        """bytes: one small record."""
        return self.zip.read(self.prefix + name)

    def storage_bytes(self, name):
        """A writable flat uint8 array holding one record's bytes."""
        info = self.zip.getinfo(self.prefix + name)
        if info.compress_type != zipfile.ZIP_STORED:  # recompressed by some other tool
            return np.frombuffer(bytearray(self.zip.read(info)), np.uint8)
        self.stream.seek(info.header_offset)
        header = self.stream.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise RuntimeError(f"PytorchStreamReader failed reading record {info.filename}: bad local header")
        name_size, extra_size = struct.unpack("<HH", header[26:30])
        start = info.header_offset + 30 + name_size + extra_size
        if self.mapped is not None:
            if start + info.file_size > self.mapped.size:
                raise RuntimeError(f"PytorchStreamReader failed reading record {info.filename}: file truncated")
            return np.frombuffer(memoryview(self.mapped)[start:start + info.file_size], np.uint8)
        data = np.empty(info.file_size, np.uint8)
        self.stream.seek(start)
        if read_into(self.stream, data) != info.file_size:
            raise RuntimeError(f"PytorchStreamReader failed reading record {info.filename}: file truncated")
        return data


def read_into(stream, array):
    """Fill a uint8 array from ``stream``; returns the number of bytes read (less only at end of file)."""
    view, done = memoryview(array), 0
    while done < array.size:
        n = stream.readinto(view[done:]) if hasattr(stream, "readinto") else _read_chunk(stream, view[done:])
        if not n:
            break
        done += n
    return done


def _read_chunk(stream, view):
    chunk = stream.read(view.nbytes)
    view[:len(chunk)] = chunk
    return len(chunk)
