"""torch.hub offline, against real torch 2.13: hub directory rules, file:// downloads and the checkpoint cache,
hubconf.py entrypoints from a local directory and from a cached GitHub copy, torch's errors."""

import hashlib
import io
import urllib.error

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

HUBCONF = '''"""A hub for tests."""
dependencies = ["numpy"]


def scaled(values, scale=1.0):
    """Each value times scale.

    scale: the factor"""
    return [v * scale for v in values]


def _private():
    return None


NOT_CALLABLE = 3
'''


@pytest.fixture
def hubs(tmp_path, monkeypatch):
    """Both hubs on fresh directories (set_dir is process state: restored afterwards)."""
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    monkeypatch.setattr(vt.hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    return tmp_path


@pytest.fixture
def repo(tmp_path):
    directory = tmp_path / "repo"
    directory.mkdir()
    (directory / "hubconf.py").write_text(HUBCONF)
    return directory


def test_hub_dir_follows_environment_and_set_dir(hubs, monkeypatch):
    assert vt.hub.get_dir() == torch.hub.get_dir()
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(hubs / "xdg"))
    assert vt.hub.get_dir() == torch.hub.get_dir()
    for lib in (torch, vt):
        lib.hub.set_dir(hubs / "chosen")
    assert vt.hub.get_dir() == torch.hub.get_dir() == str(hubs / "chosen")


def test_file_url_download_and_hash_check(hubs):
    source = hubs / "blob.bin"
    source.write_bytes(b"vfw hub bytes" * 100)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    for name, lib in [("torch", torch), ("vfw", vt)]:
        dst = hubs / f"{name}.bin"
        lib.hub.download_url_to_file(source.as_uri(), str(dst), hash_prefix=digest[:8])
        assert dst.read_bytes() == source.read_bytes()
    with pytest.raises(RuntimeError) as real_error:
        torch.hub.download_url_to_file(source.as_uri(), str(hubs / "bad_torch.bin"), hash_prefix="ffff0000")
    with pytest.raises(RuntimeError) as our_error:
        vt.hub.download_url_to_file(source.as_uri(), str(hubs / "bad_vfw.bin"), hash_prefix="ffff0000")
    assert str(our_error.value) == str(real_error.value)
    assert not (hubs / "bad_vfw.bin").exists() and not (hubs / "bad_torch.bin").exists()


def test_network_url_raises_urlerror(hubs):
    url = "http://127.0.0.1:9/weights.pt"  # the discard port: nothing listens, as without a network
    with pytest.raises(urllib.error.URLError):
        torch.hub.download_url_to_file(url, str(hubs / "t.pt"))
    with pytest.raises(urllib.error.URLError):
        vt.hub.download_url_to_file(url, str(hubs / "v.pt"))


def test_load_state_dict_from_file_url_and_cache(hubs, capsys):
    weights = {"w": torch.arange(6.0).reshape(2, 3), "b": torch.ones(2, dtype=torch.int64)}
    buffer = io.BytesIO()
    torch.save(weights, buffer)
    digest = hashlib.sha256(buffer.getvalue()).hexdigest()
    source = hubs / f"model-{digest[:10]}.pth"
    source.write_bytes(buffer.getvalue())
    for name, lib in [("torch", torch), ("vfw", vt)]:
        lib.hub.set_dir(hubs / f"hub_{name}")
        loaded = lib.hub.load_state_dict_from_url(source.as_uri(), check_hash=True)
        assert sorted(loaded) == ["b", "w"]
        np.testing.assert_array_equal(loaded["w"].numpy(), weights["w"].numpy())
        cached = hubs / f"hub_{name}" / "checkpoints" / source.name
        assert cached.read_bytes() == source.read_bytes()
    real_says, ours_says = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Downloading")]
    assert ours_says.replace("hub_vfw", "X") == real_says.replace("hub_torch", "X")
    source.unlink()  # offline now: the cached file is used
    assert sorted(vt.hub.load_state_dict_from_url(source.as_uri())) == ["b", "w"]
    assert sorted(vt.hub.load_state_dict_from_url("https://example.invalid/x.pth", model_dir=str(
        hubs / "hub_vfw" / "checkpoints"), file_name=source.name)) == ["b", "w"]


def test_local_hubconf_entrypoints(hubs, repo):
    for lib in (torch, vt):
        assert lib.hub.load(str(repo), "scaled", [1.0, 2.0], source="local", scale=3.0) == [3.0, 6.0]


@pytest.mark.parametrize("model,source", [("missing", "local"), ("NOT_CALLABLE", "local"), (3, "local"),
                                          ("scaled", "bad")])
def test_local_hub_errors_match_torch(hubs, repo, model, source):
    with pytest.raises(Exception) as real_error:
        torch.hub.load(str(repo), model, source=source)
    with pytest.raises(type(real_error.value)) as our_error:
        vt.hub.load(str(repo), model, source=source)
    assert str(our_error.value) == str(real_error.value)


def test_missing_dependency_and_missing_hubconf(hubs, tmp_path):
    directory = tmp_path / "needs"
    directory.mkdir()
    (directory / "hubconf.py").write_text("dependencies = ['numpy', 'no_such_pkg_vfw']\ndef m():\n    return 1\n")
    for lib in (torch, vt):
        with pytest.raises(RuntimeError, match="Missing dependencies: no_such_pkg_vfw"):
            lib.hub.load(str(directory), "m", source="local")
        with pytest.raises(FileNotFoundError):
            lib.hub.load(str(tmp_path / "absent"), "m", source="local")


def test_github_repo_offline(hubs):
    for lib in (torch, vt):
        lib.hub.set_dir(hubs / "cache")
    with pytest.raises(RuntimeError) as our_error:
        vt.hub.load("owner/repo", "scaled")
    with pytest.raises(RuntimeError) as real_error:
        torch.hub.load("owner/repo", "scaled", trust_repo=True)
    assert str(our_error.value) == str(real_error.value)
    cached = hubs / "cache" / "owner_repo_main"
    cached.mkdir(parents=True)
    (cached / "hubconf.py").write_text(HUBCONF)
    assert vt.hub.list("owner/repo") == ["scaled"]
    assert vt.hub.help("owner/repo", "scaled") == "Each value times scale.\n\n    scale: the factor"
    assert vt.hub.load("owner/repo", "scaled", [2.0]) == [2.0]
