"""keras.mixed_precision (the policy class and global-policy functions under their mixed-precision names, and
LossScaleOptimizer) against real Keras 3.15.1."""

import pytest

from compat_tests.keras.building_blocks_harness import same


def test_namespace_names_and_aliases():
    def fn(lib):
        mp, keras = lib.keras.mixed_precision, lib.keras
        return (sorted(n for n in dir(mp) if not n.startswith("_")),
                [mp.Policy is keras.DTypePolicy, mp.DTypePolicy is keras.DTypePolicy,
                 mp.global_policy is keras.config.dtype_policy, mp.dtype_policy is keras.config.dtype_policy,
                 mp.set_global_policy is keras.config.set_dtype_policy,
                 mp.set_dtype_policy is keras.config.set_dtype_policy,
                 mp.LossScaleOptimizer is keras.optimizers.LossScaleOptimizer])
    same(fn)


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16", "float64", "bad"])
def test_set_global_policy_reaches_new_layers(policy):
    def fn(lib):
        mp = lib.keras.mixed_precision
        try:
            mp.set_global_policy(policy)
            layer = lib.keras.layers.Dense(2)
            layer.build((None, 3))
            return (mp.global_policy().name, mp.Policy(policy).compute_dtype, layer.compute_dtype,
                    layer.kernel.dtype, lib.keras.config.dtype_policy().variable_dtype)
        finally:
            mp.set_global_policy("float32")
    same(fn)
