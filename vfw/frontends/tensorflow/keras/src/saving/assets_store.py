"""The ``assets/`` part of Keras 3 model files: per-object folders of files (vocabularies of lookup layers).

While a model is saved, every saveable with a ``save_assets(dir_path)`` method gets the folder
``assets/<its inner path>`` (``assets/layers/integer_lookup`` for a Sequential's first
IntegerLookup: the same paths as in the weights file, see ``object_state.py``) and writes its files
there; loading hands each saveable with ``load_assets(dir_path)`` that folder, or None when the
file has none.  In a ``.keras`` archive the files are members ``assets/<inner path>/<file>``
(empty folders leave no member), in an unzipped model directory they sit under ``<dir>/assets``.

As Keras does, a model file has an assets store only when it has more than the three members
``metadata.json``, ``config.json`` and ``model.weights.h5``: without one, ``load_assets`` is not
called.
"""

import os
import shutil
import tempfile

ASSETS_DIRNAME = "assets"


class AssetsStore:
    """Per-object asset folders under the directory ``root``.

    Parameters
    ----------
    root : str
        The ``assets`` directory (created by ``make`` when missing).
    """

    def __init__(self, root):
        self.root = os.path.abspath(root)

    def _full_path(self, path):
        """``root/path``, refusing paths that leave ``root`` (absolute ones, ``..``)."""
        full = os.path.realpath(os.path.join(self.root, path.replace("\\", "/")))
        if os.path.commonpath([full, os.path.realpath(self.root)]) != os.path.realpath(self.root):
            raise ValueError(f"Invalid asset path: '{path}' escapes the asset directory.")
        return full

    def make(self, path):
        """The folder of the object at inner path ``path`` (created), for ``save_assets``."""
        full = self._full_path(path) if path else self.root
        os.makedirs(full, exist_ok=True)
        return full

    def get(self, path):
        """The folder of the object at inner path ``path`` for ``load_assets``; None if the file has none."""
        full = self._full_path(path) if path else self.root
        return full if os.path.exists(full) else None

    def has_path(self, path):
        """Whether the file has assets at inner path ``path``."""
        try:
            return self.get(path) is not None
        except ValueError:
            return False


class ArchiveAssets:
    """An ``AssetsStore`` in a temporary directory, for the ``assets/`` members of a ``.keras`` archive.

    Use as a context manager (the directory is removed at exit).  ``write_to(zipped_file)`` adds the
    files saved into ``store`` to an archive being written; ``ArchiveAssets.extracted(...)`` is the
    store of an archive being read.
    """

    def __init__(self):
        self._tmp_dir = tempfile.mkdtemp(prefix="vfw_keras_assets_")
        self.store = AssetsStore(os.path.join(self._tmp_dir, ASSETS_DIRNAME))

    @classmethod
    def extracted(cls, zipped_file, read_member):
        """The ``assets/`` members of ``zipped_file`` extracted to a temporary store.

        Parameters
        ----------
        zipped_file : zipfile.ZipFile
        read_member : callable
            ``read_member(zipped_file, name)`` -> bytes (refusing decompression bombs).
        """
        assets = cls()
        try:
            os.makedirs(assets.store.root)
            for name in zipped_file.namelist():
                if not name.startswith(f"{ASSETS_DIRNAME}/") or name.endswith("/"):
                    continue
                target = assets.store._full_path(name[len(ASSETS_DIRNAME) + 1:])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(read_member(zipped_file, name))
        except BaseException:
            assets.close()
            raise
        return assets

    def write_to(self, zipped_file):
        """Add every file of the store to ``zipped_file`` as ``assets/<relative path>`` (sorted)."""
        if not os.path.isdir(self.store.root):
            return
        for folder, subfolders, files in os.walk(self.store.root):
            subfolders.sort()
            for name in sorted(files):
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, self.store.root).replace(os.sep, "/")
                zipped_file.write(path, f"{ASSETS_DIRNAME}/{relative}")

    def close(self):
        shutil.rmtree(self._tmp_dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
