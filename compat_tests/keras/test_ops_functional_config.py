"""Functional models whose graph calls keras.ops functions on KerasTensors (``ops.mean(x, axis=1)``,
``ops.concatenate``, ``ops.einsum``, ``ops.where`` with a constant): the recorded operations serialize as Keras
3.15.1's (class ``Mean`` of ``keras.src.ops.numpy``, the non-tensor arguments as the config, the tensors as the
node's inputs), and configs written by either library rebuild models computing the same outputs."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data


def build(lib):
    keras, ops = lib.keras, lib.keras.ops
    sequence, extra = keras.Input((5, 3), name="sequence"), keras.Input((4,), name="extra")
    pooled = ops.mean(sequence, axis=1)
    joined = ops.concatenate([pooled, extra], axis=-1)
    norms = ops.einsum("bi,bi->b", joined, joined)
    clipped = ops.where(joined > 0.0, joined, 0.5)
    top = ops.top_k(clipped, 2)[0]
    return keras.Model([sequence, extra], [clipped, norms, top])


def inputs():
    return [data(6, 5, 3, seed=1), data(6, 4, seed=2)]


def layer_configs(model, lib):
    return lib.keras.saving.serialize_keras_object(model)["config"]["layers"]


def test_operation_configs_match_keras():
    real, ours = layer_configs(build(REAL), REAL), layer_configs(build(VFW), VFW)
    assert [layer["class_name"] for layer in ours] == [layer["class_name"] for layer in real]
    for mine, theirs in zip(ours, real):
        if mine["module"].startswith("keras.src.ops"):
            assert mine == theirs


@pytest.mark.parametrize("source, target", [(REAL, VFW), (VFW, REAL), (VFW, VFW)])
def test_configs_rebuild_in_either_library(source, target):
    config = source.keras.saving.serialize_keras_object(build(source))
    rebuilt = target.keras.saving.deserialize_keras_object(config)
    for got, want in zip(rebuilt(inputs()), build(REAL)(inputs())):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)
