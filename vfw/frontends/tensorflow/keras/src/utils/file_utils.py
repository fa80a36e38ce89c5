"""``keras.utils.get_file``: Keras' download cache (``$KERAS_HOME`` or ``~/.keras``) with hash checks and
safe archive extraction.

Files are fetched with ``urllib`` only when missing from the cache, when their hash does not match
``file_hash`` or when ``force_download`` is set, as Keras 3 does. Archives (tar/zip) are extracted
without following members that point outside the extraction folder.
"""

import hashlib
import os
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.utils import io_utils
from vfw.frontends.tensorflow.keras.src.utils.progbar import Progbar

_CHUNK = 65535


def keras_home():
    """Keras' base folder: ``$KERAS_HOME``, else ``~/.keras`` (``/tmp/.keras`` when home is not writable)."""
    if "KERAS_HOME" in os.environ:
        return os.environ["KERAS_HOME"]
    home = os.path.expanduser("~")
    if not os.access(home, os.W_OK):
        home = "/tmp"
    return os.path.join(home, ".keras")


def _hasher(algorithm, file_hash=None):
    """sha256 for ``"sha256"`` or an ``"auto"`` 64-digit hash, md5 otherwise (Keras' rule)."""
    if algorithm == "sha256" or (algorithm == "auto" and file_hash is not None and len(file_hash) == 64):
        return hashlib.sha256()
    return hashlib.md5()


def hash_file(fpath, algorithm="sha256", chunk_size=_CHUNK):
    """Hex digest of the file at ``fpath`` (``algorithm``: "sha256", "md5", "auto" or a hashlib object)."""
    hasher = _hasher(algorithm) if isinstance(algorithm, str) else algorithm
    with open(fpath, "rb") as stream:
        for chunk in iter(lambda: stream.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=_CHUNK):
    """Whether the file at ``fpath`` has the hex digest ``file_hash``."""
    return str(hash_file(fpath, _hasher(algorithm, file_hash), chunk_size)) == str(file_hash)


def _inside(base_dir, name):
    """Whether ``name`` (relative to ``base_dir``) resolves to a path inside ``base_dir``."""
    target = os.path.realpath(os.path.join(base_dir, name))
    try:
        return os.path.commonpath([target, base_dir]) == base_dir
    except ValueError:  # different drives
        return False


def _safe_members(archive, base_dir):
    """The members of an open tar/zip archive that land inside ``base_dir`` (links must point inside too)."""
    base_dir = os.path.realpath(base_dir)
    if isinstance(archive, zipfile.ZipFile):
        members = [(info, info.filename, None) for info in archive.infolist()]
    else:
        members = []
        for info in archive.getmembers():
            link = None
            if info.issym():
                link = os.path.join(os.path.dirname(info.name), info.linkname)
            elif info.islnk():
                link = info.linkname
            members.append((info, info.name, link))
    for info, name, link in members:
        if _inside(base_dir, name) and (link is None or _inside(base_dir, link)):
            yield info
        else:
            warn_for_user(f"Skipping invalid path during archive extraction: '{name}'.")


def extract_archive(file_path, path=".", archive_format="auto"):
    """Extract the tar or zip archive ``file_path`` into ``path``; False when it is neither format.

    ``archive_format``: "auto" (tar then zip), "tar", "zip", a list of them, or None (no extraction).
    """
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else archive_format
    formats = [formats] if isinstance(formats, str) else formats
    file_path, path = os.fspath(file_path), os.fspath(path)
    for kind in formats:
        if kind == "tar":
            opener, matches = tarfile.open, tarfile.is_tarfile
        elif kind == "zip":
            opener, matches = zipfile.ZipFile, zipfile.is_zipfile
        else:
            raise NotImplementedError(kind)
        if not matches(file_path):
            continue
        with opener(file_path) as archive:
            members = list(_safe_members(archive, path))
            extra = {"filter": "data"} if kind == "tar" and hasattr(tarfile, "data_filter") else {}
            archive.extractall(path, members=members, **extra)
        return True
    return False


class _DownloadProgress:
    """The ``reporthook`` of ``urlretrieve``: a Progbar over the bytes received."""

    def __init__(self):
        self.progbar = None
        self.finished = False

    def __call__(self, block_num, block_size, total_size):
        total = None if total_size == -1 else total_size
        if self.progbar is None:
            self.progbar = Progbar(total)
        received = block_num * block_size
        if total is None or received < total:
            self.progbar.update(received)
        elif not self.finished:
            self.progbar.update(total)
            self.finished = True


def _download(origin, target):
    """Fetch ``origin`` into ``target``; a failed fetch leaves no partial file."""
    io_utils.print_msg(f"Downloading data from {origin}")
    try:
        try:
            urllib.request.urlretrieve(origin, target, _DownloadProgress())
        except urllib.error.HTTPError as error:
            raise Exception(f"URL fetch failure on {origin}: {error.code} -- {error.msg}") from error
        except urllib.error.URLError as error:
            raise Exception(f"URL fetch failure on {origin}: {error.errno} -- {error.reason}") from error
    except (Exception, KeyboardInterrupt):
        if os.path.exists(target):
            os.remove(target)
        raise


def _targets(datadir, fname, provided, extract):
    """``(download path, extraction folder or None)`` as Keras 3 names them."""
    if not extract:
        return os.path.join(datadir, fname), None
    if provided and "." in fname:
        stem = fname[:fname.find(".")]
        return os.path.join(datadir, fname), os.path.join(datadir, f"{stem}_extracted")
    return os.path.join(datadir, f"{fname}_archive"), os.path.join(datadir, fname)


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir="datasets",
             hash_algorithm="auto", extract=False, archive_format="auto", cache_dir=None, force_download=False):
    """Download ``origin`` into Keras' cache unless it is already there, and return its local path.

    Parameters
    ----------
    fname : str or path-like, optional
        File name in the cache (default: the last part of ``origin``'s URL path). Not a path.
    origin : str
        URL of the file.
    untar : bool
        Legacy: extract as a tar archive.
    md5_hash : str, optional
        Legacy: md5 ``file_hash``.
    file_hash : str, optional
        Expected sha256 or md5 hex digest; a cached file that does not match is downloaded again.
    cache_subdir : str
        Folder under ``cache_dir`` (default ``"datasets"``).
    hash_algorithm : str
        "md5", "sha256" or "auto" (sha256 for 64-digit hashes).
    extract : bool
        Extract the archive and return the extraction folder.
    archive_format : str or list or None
        "auto", "tar", "zip" or a list of them.
    cache_dir : str, optional
        Base folder (default ``$KERAS_HOME`` or ``~/.keras``).
    force_download : bool
        Download even when the file is cached.

    Returns
    -------
    str
        The cached file, or the extraction folder with ``extract``/``untar``.

    Raises
    ------
    ValueError
        Without ``origin``, with a path as ``fname``, or when a downloaded file fails the hash check.
    Exception
        "URL fetch failure on ..." when the download fails.
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if cache_dir is None:
        cache_dir = keras_home()
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    base = os.path.expanduser(cache_dir)
    if not os.access(base, os.W_OK):
        base = os.path.join("/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir(), ".keras")
    datadir = os.path.join(base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    provided = fname
    fname = os.fspath(fname) if fname is not None else fname
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(f"Can't parse the file name from the origin provided: '{origin}'.Please specify the "
                             "`fname` argument.")
    elif os.sep in fname:
        raise ValueError("Paths are no longer accepted as the `fname` argument. To specify the file's parent "
                         f"directory, use the `cache_dir` argument. Received: fname={fname}")
    target, extraction_dir = _targets(datadir, fname, provided, extract or untar)
    download = force_download or not os.path.exists(target)
    if not download and file_hash is not None and not validate_file(target, file_hash, algorithm=hash_algorithm):
        io_utils.print_msg("A local file was found, but it seems to be incomplete or outdated because the "
                           f"{hash_algorithm} file hash does not match the original value of {file_hash} so we will "
                           "re-download the data.")
        download = True
    if download:
        _download(origin, target)
        if os.path.exists(target) and file_hash is not None and not validate_file(target, file_hash,
                                                                                   algorithm=hash_algorithm):
            raise ValueError(f"Incomplete or corrupted file detected. The {hash_algorithm} file hash does not match "
                             f"the provided value of {file_hash}.")
    if extraction_dir is None:
        return target
    if not extract_archive(target, extraction_dir, "tar" if untar else archive_format):
        warn_for_user("Could not extract archive.")
    return extraction_dir
