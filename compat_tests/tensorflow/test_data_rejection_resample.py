"""tf.data.Dataset.rejection_resample against TF 2.21: element specs, the deterministic cases (a target equal to
the initial distribution keeps every element in order; a target that needs no unfiltered draw only filters), and
class frequencies that reach the target over many elements (with a given and an estimated initial distribution).
The random keep/mix draws are vfw's, so kept elements are compared in distribution."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("tensorflow")
import vfw.tensorflow as tf  # noqa: E402

RNG = np.random.default_rng(1)
N = 3000
LABELS = RNG.choice(3, size=N, p=[0.6, 0.3, 0.1]).astype(np.int32)
FEATURES = RNG.normal(size=(N, 2)).astype(np.float32)
INITIAL = [0.6, 0.3, 0.1]


def _resampled(lib, target, initial, n=N, seed=7):
    ds = lib.data.Dataset.from_tensor_slices((FEATURES[:n], LABELS[:n]))
    return ds.rejection_resample(lambda features, label: label, target_dist=target, initial_dist=initial, seed=seed)


def _spec_text(spec):
    return repr(spec).replace("tf.", "")


@pytest.mark.parametrize("initial", [INITIAL, None])
def test_element_spec_matches_tf(initial):
    assert _spec_text(_resampled(tf, [0.2, 0.4, 0.4], initial, n=50).element_spec) == \
        _spec_text(_resampled(real, [0.2, 0.4, 0.4], initial, n=50).element_spec)


def test_target_equal_to_initial_keeps_every_element_like_tf():
    def pairs(lib):
        ds = lib.data.Dataset.from_tensor_slices(LABELS[:200]).rejection_resample(lambda x: x, INITIAL, INITIAL)
        return [(int(c), int(x)) for c, x in ds.as_numpy_iterator()]

    assert pairs(tf) == pairs(real) == [(int(x), int(x)) for x in LABELS[:200]]


def test_target_without_unfiltered_draws_keeps_only_target_classes():
    # min(target / initial) == 0: TF only filters; class 0 (target 0) is never kept, class 2 always
    for lib in (tf, real):
        out = [(int(c), int(x)) for c, (_, x) in _resampled(lib, [0.0, 0.5, 0.5], INITIAL, n=600).as_numpy_iterator()]
        classes = [c for c, _ in out]
        assert all(c == x for c, x in out) and 0 not in classes
        assert classes.count(2) == int(np.sum(LABELS[:600] == 2))


@pytest.mark.parametrize("initial", [INITIAL, None])
@pytest.mark.parametrize("target", [[1 / 3, 1 / 3, 1 / 3], [0.5, 0.3, 0.2]])
def test_class_frequencies_reach_the_target(initial, target):
    classes = np.array([int(c) for c, _ in _resampled(tf, target, initial).as_numpy_iterator()])
    assert len(classes) > 300
    frequencies = np.bincount(classes, minlength=3) / len(classes)
    # the estimated initial distribution starts from uniform pseudo-counts: a looser bound there
    tolerance = 5 * np.sqrt(0.25 / len(classes)) + (0.0 if initial is not None else 0.03)
    np.testing.assert_allclose(frequencies, target, atol=tolerance)
    features = {tuple(row) for row in FEATURES.tolist()}
    for _, (x, _label) in _resampled(tf, target, initial, n=40).as_numpy_iterator():
        assert tuple(x.tolist()) in features
