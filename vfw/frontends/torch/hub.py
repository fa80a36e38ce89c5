"""``torch.hub`` without a network: the hub directory, downloads through ``urllib`` (``file://`` URLs and files
already in the cache work offline; network URLs raise the ``URLError`` ``urllib`` raises), checkpoints loaded
with vfw's restricted ``torch.load``, and models from a ``hubconf.py``: a local directory (``source="local"``)
or a GitHub repository already in the hub cache.

``load`` executes the ``hubconf.py`` the user points at, as torch does: that is the user's chosen code, not a
downloaded checkpoint (checkpoints are only ever read by the restricted loader).
"""

import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request

from vfw.frontends.torch.serialization import load as _torch_load

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

_HUBCONF = "hubconf.py"
_CHUNK = 8192
_hub_dir = None  # set_dir's choice; None: from the environment
_HASH_IN_NAME = re.compile(r"-([a-f0-9]*)\.")  # torch's convention: name-<sha256 prefix>.ext


def get_dir():
    """The hub directory: ``set_dir``'s, else ``$TORCH_HOME/hub`` (``TORCH_HOME`` defaulting to
    ``$XDG_CACHE_HOME/torch``, itself defaulting to ``~/.cache``)."""
    if _hub_dir is not None:
        return _hub_dir
    cache = os.getenv("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    torch_home = os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(cache, "torch")))
    return os.path.join(torch_home, "hub")


def set_dir(d):
    """Use directory ``d`` (str or path-like) for the hub's repositories and checkpoints."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Copy the object at ``url`` to the file ``dst`` (through a temporary file in the same directory).

    Parameters
    ----------
    url : str
        Any URL ``urllib`` opens (``file://`` works offline; others need the network).
    dst : str
        The destination path.
    hash_prefix : str, optional
        The SHA-256 hex digest must start with it, else RuntimeError (and ``dst`` is not written).
    progress : bool
        Accepted (no progress bar is drawn).
    """
    dst = os.path.expanduser(dst)
    temporary = tempfile.NamedTemporaryFile(delete=False, dir=os.path.dirname(os.path.abspath(dst)),
                                            prefix=os.path.basename(dst) + ".", suffix=".partial")
    try:
        digest = hashlib.sha256()
        with temporary, urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "torch.hub"})) \
                as response:
            while chunk := response.read(_CHUNK):
                temporary.write(chunk)
                digest.update(chunk)
        if hash_prefix is not None and not digest.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest.hexdigest()}")')
        shutil.move(temporary.name, dst)
    finally:
        if os.path.exists(temporary.name):
            os.remove(temporary.name)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """The checkpoint at ``url``, downloaded once into ``<hub dir>/checkpoints`` (or ``model_dir``) and loaded
    with ``torch.load``.

    Parameters
    ----------
    url : str
    model_dir : str, optional
        Where downloaded checkpoints are kept (default ``get_dir()/checkpoints``).
    map_location
        As for ``torch.load``.
    progress : bool
        Accepted (no progress bar).
    check_hash : bool
        Check the download against the SHA-256 prefix in its file name (``name-<prefix>.ext``).
    file_name : str, optional
        The cached file's name (default: the URL's last path component).
    weights_only : bool
        Accepted; vfw's loader is always the restricted one.

    Returns
    -------
    object
        What ``torch.load`` returns (usually a state dict).
    """
    model_dir = model_dir if model_dir is not None else os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached_file = os.path.join(model_dir, name)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        match = _HASH_IN_NAME.search(name) if check_hash else None
        download_url_to_file(url, cached_file, match.group(1) if match else None, progress=progress)
    return _torch_load(cached_file, map_location=map_location, weights_only=weights_only)


def _github_dir(github):
    """The hub cache's copy of GitHub repository ``owner/name[:ref]`` (offline: only a copy already cached)."""
    repo, _, ref = github.partition(":")
    if "/" not in repo:
        raise ValueError(f'Invalid input: repo_or_dir should be in the form of "repo_owner/repo_name[:ref]", '
                         f'got "{github}"')
    owner, name = repo.split("/", 1)
    for branch in [ref] if ref else ["main", "master"]:
        candidate = os.path.join(get_dir(), f"{owner}_{name}_{branch.replace('/', '_')}")
        if os.path.isdir(candidate):
            return candidate
    raise RuntimeError(f"It looks like there is no internet connection and the repo could not be found in the "
                       f"cache ({get_dir()})")


def _import_hubconf(repo_dir):
    """Execute ``repo_dir/hubconf.py`` (the user's own code) as module ``hubconf``, its directory importable
    meanwhile; check its ``dependencies``."""
    path = os.path.join(repo_dir, _HUBCONF)
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_dir)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_dir)
    missing = [d for d in getattr(module, "dependencies", []) if importlib.util.find_spec(d) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entrypoint(hubconf, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    function = getattr(hubconf, model, None)
    if function is None or not callable(function):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return function


def _repo_dir(repo_or_dir, source):
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    return repo_or_dir if source == "local" else _github_dir(repo_or_dir)


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):  # noqa: A001
    """The entrypoints (public callables) of a cached GitHub repository's ``hubconf.py``."""
    hubconf = _import_hubconf(_github_dir(github))
    return [name for name in dir(hubconf) if callable(getattr(hubconf, name)) and not name.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):  # noqa: A001
    """The docstring of entrypoint ``model`` of a cached GitHub repository's ``hubconf.py``."""
    return _entrypoint(_import_hubconf(_github_dir(github)), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """``model(*args, **kwargs)`` from the ``hubconf.py`` of a directory (``source="local"``) or of a GitHub
    repository already in the hub cache (``source="github"``, ``repo_or_dir`` as ``owner/name[:ref]``).

    Raises
    ------
    ValueError
        Unknown ``source``, ``model`` not a string.
    RuntimeError
        No such callable, missing dependencies, a GitHub repository not in the cache (no network).
    """
    return _entrypoint(_import_hubconf(_repo_dir(repo_or_dir, source)), model)(*args, **kwargs)
