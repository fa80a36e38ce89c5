"""keras.applications and each family submodule bind the same public names as Keras 3.15.1."""

import pytest
import vfw.tensorflow as tf

keras = pytest.importorskip("keras")


def _public(module):
    return {name for name in dir(module) if not name.startswith("_")}


def test_top_level_names():
    assert _public(tf.keras.applications) == _public(keras.applications)


@pytest.mark.parametrize("family", sorted(name for name in _public(keras.applications) if name.islower()))
def test_family_submodule_names(family):
    ours, theirs = getattr(tf.keras.applications, family), getattr(keras.applications, family)
    assert _public(ours) == _public(theirs)
