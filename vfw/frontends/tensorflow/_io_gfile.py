"""``tf.io.gfile``: TF's file API over the local file system (``os``, ``shutil``, ``glob``).

TF routes these functions through its file-system registry (``gs://``, ``ram://``...); vfw serves local paths only.
Results and errors follow TF 2.21's local file system: ``listdir``/``glob``/``walk`` list entries in the
directory's own order (as ``readdir``), failures raise TF's ``tf.errors`` classes with TF's messages
(``NotFoundError`` "path; No such file or directory", ``AlreadyExistsError`` "file already exists"...).
``GFile`` opens its file on first use, reads bytes and decodes them as UTF-8 unless the mode has ``b``, and
creates (or truncates) the file it writes on the first ``write``.
"""

import errno
import glob as _glob
import os
import shutil

from vfw.frontends.tensorflow import errors

__all__ = ["GFile", "copy", "exists", "get_registered_schemes", "glob", "isdir", "join", "listdir", "makedirs",
           "mkdir", "remove", "rename", "rmtree", "stat", "walk"]

_MODES = ("r", "w", "a", "r+", "w+", "a+")


def _path(path):
    """``path`` (str, bytes or os.PathLike) as a str."""
    path = os.fspath(path)
    return path.decode() if isinstance(path, bytes) else path


def _os_error(error, path):
    """TF's ``tf.errors`` exception for the ``OSError`` ``error`` raised on ``path``."""
    kinds = {errno.ENOENT: errors.NotFoundError, errno.EEXIST: errors.AlreadyExistsError,
             errno.EISDIR: errors.FailedPreconditionError, errno.ENOTDIR: errors.FailedPreconditionError,
             errno.EACCES: errors.PermissionDeniedError, errno.EPERM: errors.PermissionDeniedError,
             errno.EINVAL: errors.InvalidArgumentError}
    kind = kinds.get(error.errno, errors.UnknownError)
    return kind(None, None, f"{path}; {os.strerror(error.errno) if error.errno else error}")


def _not_found(path):
    return errors.NotFoundError(None, None, f"{path}; No such file or directory")


# -- queries -----------------------------------------------------------------------------------------------------
def exists(path):
    """Whether ``path`` (a file or a directory) exists."""
    return os.path.exists(_path(path))


def isdir(path):
    """Whether ``path`` is a directory."""
    return os.path.isdir(_path(path))


def get_registered_schemes():
    """The URI schemes TF registers file systems for (vfw serves local paths, the ``""`` and ``file`` schemes)."""
    return ["ram", "file", "", "gs"]


def listdir(path):
    """The names of the entries of the directory ``path``, in the directory's order (not sorted).

    Raises
    ------
    NotFoundError
        When ``path`` is not a directory.
    """
    path = _path(path)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


def glob(pattern):
    """The paths matching ``pattern`` (``*``, ``?``, ``[...]`` in any component; a list of patterns joins their
    matches), in directory order.  As TF, a relative pattern with a wildcard in its first component gives paths
    starting with ``./``."""
    if isinstance(pattern, (list, tuple)):
        return [match for item in pattern for match in glob(item)]
    pattern = _path(pattern)
    matches = _glob.glob(pattern, include_hidden=True)
    first = pattern.split(os.sep, 1)[0]
    if not os.path.isabs(pattern) and _glob.has_magic(first):
        matches = [os.path.join(".", match) for match in matches]
    return matches


class _FileStatistics:
    """What ``stat`` returns: ``length`` (bytes), ``mtime_nsec`` (whole seconds, in nanoseconds, as TF's local
    file system) and ``is_directory``."""

    def __init__(self, length, mtime_nsec, is_directory):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory


def stat(path):
    """The ``FileStatistics`` of ``path``.

    Raises
    ------
    NotFoundError
        When ``path`` does not exist.
    """
    path = _path(path)
    try:
        info = os.stat(path)
    except OSError as error:
        raise _os_error(error, path) from None
    return _FileStatistics(info.st_size, int(info.st_mtime) * 10 ** 9, os.path.isdir(path))


def walk(top, topdown=True, onerror=None):
    """``(directory, subdirectory names, file names)`` for ``top`` and every directory under it, parents first
    (``topdown``) or last; nothing for a missing ``top`` (``onerror`` is called with the error)."""
    top = _path(top)
    try:
        names = listdir(top)
    except errors.NotFoundError as error:
        if onerror is not None:
            onerror(error)
        return
    subdirs = [name for name in names if os.path.isdir(os.path.join(top, name))]
    files = [name for name in names if name not in subdirs]
    if topdown:
        yield top, subdirs, files
    for name in subdirs:
        yield from walk(os.path.join(top, name), topdown, onerror)
    if not topdown:
        yield top, subdirs, files


def join(path, *paths):
    """``path`` and ``paths`` joined with ``/`` (``os.path.join``'s rules for local paths)."""
    return os.path.join(path, *paths)


# -- changes -----------------------------------------------------------------------------------------------------
def mkdir(path):
    """Creates the directory ``path`` (nothing when it exists; NotFoundError when its parent is missing)."""
    path = _path(path)
    if os.path.isdir(path):
        return
    try:
        os.mkdir(path)
    except OSError as error:
        raise _os_error(error, path) from None


def makedirs(path):
    """Creates the directory ``path`` and its missing parents.

    Raises
    ------
    FailedPreconditionError
        When a part of ``path`` is a file.
    """
    path = _path(path)
    parent = path
    while parent and not os.path.exists(parent):
        parent = os.path.dirname(parent.rstrip(os.sep))
    if parent and not os.path.isdir(parent):
        raise errors.FailedPreconditionError(None, None, f"{parent} is not a directory")
    os.makedirs(path, exist_ok=True)


def remove(path):
    """Deletes the file ``path`` (NotFoundError when missing, FailedPreconditionError for a directory)."""
    path = _path(path)
    try:
        if os.path.isdir(path):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        os.remove(path)
    except OSError as error:
        raise _os_error(error, path) from None


def rmtree(path):
    """Deletes the directory ``path`` and everything under it (a file ``path`` too).

    Raises
    ------
    NotFoundError
        When ``path`` does not exist.
    """
    path = _path(path)
    if not os.path.lexists(path):
        raise errors.NotFoundError(None, None, f"{path} not found")
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.remove(path)


def _source_and_target(src, dst, overwrite):
    """``(src, dst)`` as paths, checked as TF's rename and copy do: ``dst`` first (AlreadyExistsError unless
    ``overwrite``), then ``src`` (NotFoundError)."""
    src, dst = _path(src), _path(dst)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    if not os.path.exists(src):
        raise _not_found(src)
    return src, dst


def rename(src, dst, overwrite=False):
    """Moves ``src`` (a file or a directory) to ``dst``.

    Raises
    ------
    NotFoundError
        When ``src`` does not exist.
    AlreadyExistsError
        When ``dst`` exists and ``overwrite`` is False.
    """
    src, dst = _source_and_target(src, dst, overwrite)
    try:
        if os.path.isdir(dst) and not os.path.isdir(src):
            os.rmdir(dst)  # TF's local file system replaces an empty directory by a file
        os.replace(src, dst)
    except OSError as error:
        raise _os_error(error, dst) from None


def copy(src, dst, overwrite=False):
    """Copies the file ``src`` to ``dst``.

    Raises
    ------
    NotFoundError
        When ``src`` does not exist.
    InvalidArgumentError
        When ``src`` is a directory.
    AlreadyExistsError
        When ``dst`` exists and ``overwrite`` is False.
    """
    src, dst = _source_and_target(src, dst, overwrite)
    try:
        if os.path.isdir(src):  # TF creates the target, then fails to copy a directory's bytes into it
            open(dst, "wb").close()
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))
        shutil.copyfile(src, dst)
    except OSError as error:
        raise _os_error(error, dst) from None


# -- files -------------------------------------------------------------------------------------------------------
class GFile:
    """A file of the local file system with TF's ``GFile`` API.

    Parameters
    ----------
    name : str, bytes or os.PathLike
        The file's path.
    mode : str
        ``"r"``, ``"w"``, ``"a"``, ``"r+"``, ``"w+"`` or ``"a+"``, with ``"b"`` for bytes (str otherwise, UTF-8).

    Raises
    ------
    InvalidArgumentError
        For another mode.
    """

    def __init__(self, name, mode="r"):
        self.__reader = None
        self.__writer = None
        self.__name = _path(name)
        self.__mode = mode
        plain = mode.replace("b", "")
        if plain not in _MODES:
            raise errors.InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self.__binary = "b" in mode
        self.__readable = "r" in plain or "+" in plain
        self.__writable = plain != "r"

    @property
    def name(self):
        return self.__name

    @property
    def mode(self):
        return self.__mode

    # the open files, made on first use
    def __read_file(self):
        if not self.__readable:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        if self.__reader is None:
            try:
                if os.path.isdir(self.__name):
                    raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
                self.__reader = open(self.__name, "rb")  # noqa: SIM115  (closed by close())
            except OSError as error:
                raise _os_error(error, self.__name) from None
        return self.__reader

    def __write_file(self):
        if not self.__writable:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
        if self.__writer is None:
            try:
                self.__writer = open(self.__name, "ab" if "a" in self.__mode else "wb")  # noqa: SIM115
            except OSError as error:
                raise _os_error(error, self.__name) from None
        return self.__writer

    def __text(self, data):
        return data if self.__binary else data.decode("utf-8")

    # -- reading -----------------------------------------------------------------------------------------------
    def size(self):
        """The file's length in bytes, as the file system has it."""
        return stat(self.__name).length

    def read(self, n=-1):
        """The next ``n`` bytes (all the rest for -1), as str unless the mode has ``b``.

        Raises
        ------
        InvalidArgumentError
            For ``n`` below -1.
        """
        if n < -1:
            raise errors.InvalidArgumentError(None, None, f"Can't read a negative number of bytes: {n}")
        return self.__text(self.__read_file().read(n))

    def readline(self):
        """The next line with its ``\\n`` (empty at the end of the file)."""
        return self.__text(self.__read_file().readline())

    def readlines(self):
        """All the remaining lines."""
        return [self.__text(line) for line in self.__read_file().readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def seekable(self):
        return True

    def seek(self, offset=None, whence=0, position=None):
        """Moves the read position to ``offset`` from the start (``whence`` 0), the current position (1) or the
        end (2).

        Raises
        ------
        InvalidArgumentError
            For a negative position or another ``whence``.
        OutOfRangeError
            For a position past the end of the file.
        """
        offset = position if offset is None else offset
        reader = self.__read_file()
        if whence not in (0, 1, 2):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid whence argument: {whence}. Valid values are 0, 1, or 2.")
        target = offset + (0, reader.tell(), self.size())[whence]
        if target < 0:
            raise errors.InvalidArgumentError(None, None, f"Seeking to a negative position: {target}")
        if target > self.size():
            raise errors.OutOfRangeError(None, None, "reached end of file")
        reader.seek(target)

    def tell(self):
        """The read position, or for a file being written the bytes written so far."""
        if self.__writable and not self.__readable:
            return self.__writer.tell() if self.__writer is not None else 0
        return self.__read_file().tell()

    # -- writing -----------------------------------------------------------------------------------------------
    def write(self, file_content):
        """Appends ``file_content`` (str, written as UTF-8, or bytes) to the file.

        Raises
        ------
        TypeError
            For another type.
        PermissionDeniedError
            When the mode is ``"r"``.
        """
        if isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        elif not isinstance(file_content, (bytes, bytearray, memoryview)):
            raise TypeError(f"Expected binary or unicode string, got {file_content!r}")
        self.__write_file().write(file_content)

    def flush(self):
        """Writes what was written so far to the file system."""
        if self.__writer is not None:
            self.__writer.flush()

    def close(self):
        """Closes the file (a later read opens it again from the start)."""
        for handle in (self.__reader, self.__writer):
            if handle is not None:
                handle.close()
        self.__reader = self.__writer = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __del__(self):
        self.close()
