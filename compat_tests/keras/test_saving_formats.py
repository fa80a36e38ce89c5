"""Where variables go in Keras weights files, against real Keras 3.15.1: each layer's and each optimizer's
variables, sharded weights, bfloat16 values, and the refusal of HDF5 links."""

import contextlib
import json
import os

import numpy as np
import pytest

from compat_tests.keras.saving_harness import (
    REAL,
    VFW,
    archive_weights,
    assert_same_weights,
    data,
    dense_pair,
    functional,
    h5_layout,
    reset,
    same_outcome,
    sequential,
)

LAYERS = {
    "conv2d": ((5, 5, 2), lambda k: k.layers.Conv2D(3, 3)),
    "conv2d_transpose": ((5, 5, 2), lambda k: k.layers.Conv2DTranspose(3, 3)),
    "depthwise_conv2d": ((5, 5, 2), lambda k: k.layers.DepthwiseConv2D(3)),
    "separable_conv2d": ((5, 5, 2), lambda k: k.layers.SeparableConv2D(3, 3)),
    "conv1d": ((6, 2), lambda k: k.layers.Conv1D(3, 2)),
    "batch_normalization": ((4,), lambda k: k.layers.BatchNormalization()),
    "layer_normalization": ((4,), lambda k: k.layers.LayerNormalization()),
    "group_normalization": ((4,), lambda k: k.layers.GroupNormalization(2)),
    "prelu": ((4,), lambda k: k.layers.PReLU()),
    "einsum_dense": ((4,), lambda k: k.layers.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="c")),
    "lstm": ((5, 2), lambda k: k.layers.LSTM(3)),
    "gru": ((5, 2), lambda k: k.layers.GRU(3)),
    "simple_rnn": ((5, 2), lambda k: k.layers.SimpleRNN(3)),
    "bidirectional": ((5, 2), lambda k: k.layers.Bidirectional(k.layers.LSTM(3))),
    "time_distributed": ((5, 2), lambda k: k.layers.TimeDistributed(k.layers.Dense(3))),
    "stacked_cells": ((5, 2), lambda k: k.layers.RNN([k.layers.LSTMCell(3), k.layers.GRUCell(2)])),
    "normalization": ((4,), lambda k: k.layers.Normalization()),
    "multi_head_attention": ((5, 4), lambda k: k.layers.MultiHeadAttention(2, 3)),
}


@pytest.mark.parametrize("name", LAYERS)
def test_layer_variables_layout(name, tmp_path):
    """A model of the layer: the same HDF5 layout as Keras', and Keras' weights load into vfw's (same outputs)."""
    shape, make = LAYERS[name]
    models, paths = {}, {}
    for lib in (REAL, VFW):
        reset(lib)
        inputs = lib.keras.Input(shape)
        layer = make(lib.keras)
        outputs = layer(inputs, inputs) if name == "multi_head_attention" else layer(inputs)
        models[lib.name] = lib.keras.Model(inputs, outputs)
        paths[lib.name] = str(tmp_path / f"{lib.name}.weights.h5")
        models[lib.name].save_weights(paths[lib.name])
    assert h5_layout(paths["vfw"]) == h5_layout(paths["real"])
    models["vfw"].load_weights(paths["real"])
    assert_same_weights(models["real"], models["vfw"])
    x = data(2, *shape, seed=5)
    np.testing.assert_allclose(np.asarray(models["vfw"](x)), np.asarray(models["real"](x)), rtol=1e-4, atol=1e-5)


def _linked_weights_file(path, link):
    """A weights file for ``dense_pair(lib, 4, 2)`` whose first kernel is ``link`` (an h5py link object)."""
    import h5py

    values = np.ones((3, 4), "float32")
    with h5py.File(path, "w") as f:
        f.create_dataset("elsewhere", data=values)
        first = f.create_group("layers/dense/vars")
        first["0"] = link
        first.create_dataset("1", data=np.zeros(4, "float32"))
        second = f.create_group("layers/dense_1/vars")
        second.create_dataset("0", data=np.ones((4, 2), "float32"))
        second.create_dataset("1", data=np.zeros(2, "float32"))


@pytest.mark.parametrize("link", ["soft", "external"])
def test_links_in_weights_files_are_refused(link, tmp_path):
    import h5py

    path = str(tmp_path / "linked.weights.h5")
    _linked_weights_file(path, h5py.SoftLink("/elsewhere") if link == "soft"
                         else h5py.ExternalLink(str(tmp_path / "other.h5"), "/x"))
    result = same_outcome(lambda lib: dense_pair(lib, 4, 2).load_weights(path))
    assert result[:2] == ("raised", "ValueError") and "Not allowed: H5 file with" in result[2]


def test_bfloat16_variables(tmp_path):
    path = str(tmp_path / "bf16.keras")
    reset(REAL)
    keras = REAL.keras
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, dtype="bfloat16")])
    model.save(path)
    layout = h5_layout(archive_weights(path))
    assert layout["layers/dense/vars/0"][3] == {"dtype": "bfloat16"}
    reset(VFW)
    ours = VFW.keras.models.load_model(path)
    assert ours.weights[0].dtype == "bfloat16"
    assert_same_weights(model, ours)
    vfw_path = str(tmp_path / "vfw_bf16.keras")
    ours.save(vfw_path)
    assert h5_layout(archive_weights(vfw_path)) == layout
    reset(REAL)
    assert_same_weights(REAL.keras.models.load_model(vfw_path), ours)


def _shard_files(directory):
    return sorted(name for name in os.listdir(directory) if name.endswith((".weights.h5", ".json")))


@pytest.mark.parametrize("make", [sequential, functional], ids=lambda f: f.__name__)
def test_sharded_weights(make, tmp_path):
    """Weights split in shards of 64 bytes: the same index and shard files as Keras', loadable both ways."""
    max_shard_size = 64 / 1024 ** 3
    models, directories = {}, {}
    for lib in (REAL, VFW):
        reset(lib)
        models[lib.name] = make(lib)
        directories[lib.name] = tmp_path / lib.name
        directories[lib.name].mkdir()
        models[lib.name].save_weights(str(directories[lib.name] / "m.weights.json"), max_shard_size=max_shard_size)
    names = _shard_files(directories["real"])
    assert _shard_files(directories["vfw"]) == names and len(names) >= 3  # the index and two shards or more
    for name in names:
        real_file, vfw_file = directories["real"] / name, directories["vfw"] / name
        if name.endswith(".json"):
            assert json.loads(vfw_file.read_text()) == json.loads(real_file.read_text())
        else:
            assert h5_layout(str(vfw_file)) == h5_layout(str(real_file))
    models["vfw"].load_weights(str(directories["real"] / "m.weights.json"))
    assert_same_weights(models["real"], models["vfw"])
    models["vfw"].set_weights([w + 1 for w in models["vfw"].get_weights()])
    models["vfw"].save_weights(str(directories["vfw"] / "m.weights.json"), max_shard_size=max_shard_size)
    models["real"].load_weights(str(directories["vfw"] / "m.weights.json"))
    assert_same_weights(models["real"], models["vfw"])


def test_sharding_errors(tmp_path):
    def fn(lib, max_shard_size, name):
        with pytest.warns(UserWarning, match="renamed") if name.endswith(".h5") else contextlib.nullcontext():
            sequential(lib).save_weights(str(tmp_path / lib.name / name), max_shard_size=max_shard_size)
        return _shard_files(tmp_path / lib.name)

    for lib in (REAL, VFW):
        (tmp_path / lib.name).mkdir()
    same_outcome(fn, 20 / 1024 ** 3, "big.weights.json")  # the (3, 4) kernel takes 48 bytes: too big
    same_outcome(fn, 1e-6, "one.weights.h5")  # renamed to one.weights.json


OPTIMIZERS = {
    "adam_amsgrad": lambda k: k.optimizers.Adam(amsgrad=True),
    "adamw_ema": lambda k: k.optimizers.AdamW(use_ema=True),
    "sgd_accumulation": lambda k: k.optimizers.SGD(momentum=0.9, gradient_accumulation_steps=2),
    "rmsprop_centered": lambda k: k.optimizers.RMSprop(momentum=0.5, centered=True),
    "adagrad": lambda k: k.optimizers.Adagrad(),
    "adadelta": lambda k: k.optimizers.Adadelta(),
    "adamax": lambda k: k.optimizers.Adamax(),
    "nadam": lambda k: k.optimizers.Nadam(),
    "ftrl": lambda k: k.optimizers.Ftrl(),
    "lion": lambda k: k.optimizers.Lion(),
    "adafactor": lambda k: k.optimizers.Adafactor(),
    "schedule": lambda k: k.optimizers.Adam(k.optimizers.schedules.CosineDecay(0.1, 10)),
}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_variables_layout(name, tmp_path):
    """Each optimizer's state is saved as Keras saves it (the same variables in the same order)."""
    paths = {}
    for lib in (REAL, VFW):
        reset(lib)
        model = sequential(lib)
        model.compile(optimizer=OPTIMIZERS[name](lib.keras), loss="mse")
        model.optimizer.build(model.trainable_variables)
        paths[lib.name] = str(tmp_path / f"{lib.name}.weights.h5")
        model.save_weights(paths[lib.name])
    assert h5_layout(paths["vfw"]) == h5_layout(paths["real"])
