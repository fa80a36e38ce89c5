"""tf.audio (decode_wav / encode_wav), tf.version and tf.sysconfig against TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vtf  # noqa: E402

_CLIP = np.array([[0.5, -0.25], [1.0, -1.0], [0.1, 0.2], [1.7, -3.0], [0.00001, -0.00002]], np.float32)


def test_version_and_build_info():
    for name in ("VERSION", "GIT_VERSION", "COMPILER_VERSION", "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER",
                 "GRAPH_DEF_VERSION_MIN_PRODUCER"):
        assert getattr(vtf.version, name) == getattr(real_tf.version, name)
    assert vtf.__version__ == real_tf.__version__ == vtf.version.VERSION
    assert vtf.sysconfig.get_build_info() == real_tf.sysconfig.get_build_info()
    assert list(vtf.sysconfig.get_build_info()) == list(real_tf.sysconfig.get_build_info())
    for name in ("CXX11_ABI_FLAG", "CXX_VERSION", "MONOLITHIC_BUILD"):
        assert getattr(vtf.sysconfig, name) == getattr(real_tf.sysconfig, name)
    assert vtf.sysconfig.get_compile_flags()[1:] == real_tf.sysconfig.get_compile_flags()[1:]
    assert vtf.sysconfig.get_link_flags()[1:] == real_tf.sysconfig.get_link_flags()[1:]


def test_encode_wav_bytes_equal_tf():
    check(lambda tf, x: tf.audio.encode_wav(x, 16000), _CLIP)
    check(lambda tf, x: tf.audio.encode_wav(x[:, :1], 44100), _CLIP)


@pytest.mark.parametrize("kwargs", [{}, {"desired_channels": 1}, {"desired_channels": 3}, {"desired_samples": 8},
                                    {"desired_samples": 2}, {"desired_channels": 1, "desired_samples": 1}])
def test_decode_wav_of_tf_bytes(kwargs):
    data = real_tf.audio.encode_wav(_CLIP, 22050).numpy()
    check(lambda tf, d: tuple(tf.audio.decode_wav(d, **kwargs)), np.array(data, dtype=object))
    mono = real_tf.audio.encode_wav(_CLIP[:, :1], 8000).numpy()
    check(lambda tf, d: tuple(tf.audio.decode_wav(d, **kwargs)), np.array(mono, dtype=object))


def test_decode_wav_result_fields_and_extra_chunk():
    data = real_tf.audio.encode_wav(_CLIP, 16000).numpy()
    # a LIST chunk before the data chunk is skipped (TF's decoder does the same)
    extra = b"LIST" + (6).to_bytes(4, "little") + b"abcdef"
    patched = data[:36] + extra + data[36:]
    patched = patched[:4] + (len(patched) - 8).to_bytes(4, "little") + patched[8:]
    want = real_tf.audio.decode_wav(patched)
    got = vtf.audio.decode_wav(patched)
    np.testing.assert_array_equal(got.audio.numpy(), want.audio.numpy())
    assert got.sample_rate.numpy() == want.sample_rate.numpy() == 16000
    assert type(got).__name__ == "DecodeWav"


def test_wav_errors():
    check(lambda tf: tf.audio.decode_wav(b"abc"))
    check(lambda tf: tf.audio.decode_wav(b"RIFX0000WAVEjunkjunk"))
    check(lambda tf, x: tf.audio.encode_wav(x[:, 0], 100), _CLIP)


def test_saved_model_constants_and_asset(tmp_path):
    for name in dir(real_tf.saved_model):
        if name.isupper():
            assert getattr(vtf.saved_model, name) == getattr(real_tf.saved_model, name), name
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\n")
    for tf in (real_tf, vtf):
        asset = tf.saved_model.Asset(str(path))
        assert asset.asset_path.dtype == tf.string and asset.asset_path.shape == ()
        assert asset.asset_path.numpy() == str(path).encode()
        assert tf.io.read_file(asset.asset_path).numpy() == b"a\nb\n"


@pytest.mark.parametrize("device", ["CPU:0", "/device:CPU:0", "GPU:0", "XYZ"])
def test_config_memory_info(device):
    for name in ("get_memory_info", "get_memory_usage", "reset_memory_stats"):
        try:
            want = getattr(real_tf.config.experimental, name)(device)
        except ValueError:
            with pytest.raises(ValueError):
                getattr(vtf.config.experimental, name)(device)
        else:
            # the figures are TF's CPU allocator counters (zero in a fresh process, whatever earlier tests left
            # otherwise): compare the result's form, not the byte counts
            got = getattr(vtf.config.experimental, name)(device)
            assert type(got) is type(want)
            if isinstance(want, dict):
                assert got.keys() == want.keys() and all(type(got[k]) is type(want[k]) for k in want)
