"""keras.utils.audio_dataset_from_directory against Keras 3.15.1 on a directory of .wav files written by TF."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")
real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vtf  # noqa: E402


@pytest.fixture(scope="module")
def audio_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("audio")
    rng = np.random.default_rng(0)
    for cls, channels in (("no", 1), ("yes", 1), ("maybe", 1)):
        os.makedirs(root / cls)
        for i in range(4):
            clip = rng.uniform(-1, 1, (int(rng.integers(5, 12)), channels)).astype(np.float32)
            (root / cls / f"{i}.wav").write_bytes(real_tf.audio.encode_wav(clip, 16000).numpy())
    (root / "yes" / "notes.txt").write_text("not audio")
    return str(root)


def _batches(dataset):
    out = []
    for audio, label in dataset:
        audio = audio.to_list() if hasattr(audio, "to_list") else audio.numpy().tolist()
        out.append((audio, label.numpy().tolist()))
    return out


@pytest.mark.parametrize("kwargs", [
    {"batch_size": 4, "seed": 1}, {"batch_size": 4, "seed": 1, "output_sequence_length": 8},
    {"batch_size": 3, "seed": 2, "ragged": True}, {"batch_size": None, "shuffle": False},
    {"batch_size": 5, "seed": 4, "label_mode": "categorical"},
    {"batch_size": 2, "seed": 3, "validation_split": 0.25, "subset": "validation"},
    {"batch_size": 2, "seed": 5, "class_names": ["yes", "no"]}])
def test_audio_dataset_matches_keras(audio_dir, kwargs):
    want = keras.utils.audio_dataset_from_directory(audio_dir, verbose=False, **kwargs)
    got = vtf.keras.utils.audio_dataset_from_directory(audio_dir, verbose=False, **kwargs)
    assert got.class_names == want.class_names
    assert str(got.element_spec).replace("tf.", "") == str(want.element_spec).replace("tf.", "")
    assert _batches(got) == _batches(want)


def test_audio_dataset_both_and_errors(audio_dir):
    want = keras.utils.audio_dataset_from_directory(audio_dir, validation_split=0.5, subset="both", seed=3,
                                                    batch_size=3, verbose=False)
    got = vtf.keras.utils.audio_dataset_from_directory(audio_dir, validation_split=0.5, subset="both", seed=3,
                                                       batch_size=3, verbose=False)
    assert type(got) is type(want) and len(got) == 2
    for g, w in zip(got, want):
        assert _batches(g) == _batches(w)
    for kwargs, error in (({"sampling_rate": 8000}, ImportError), ({"label_mode": "binary"}, ValueError),
                          ({"ragged": True, "output_sequence_length": 4}, ValueError)):
        with pytest.raises(error):
            keras.utils.audio_dataset_from_directory(audio_dir, verbose=False, **kwargs)
        with pytest.raises(error):
            vtf.keras.utils.audio_dataset_from_directory(audio_dir, verbose=False, **kwargs)
