"""How fit / evaluate / predict read a keras.utils.PyDataset, against real Keras 3.15.1 (TF backend): the batches
read once for the data's spec (two at most), the on_epoch_end that fit and evaluate run before their first epoch
(a reshuffling PyDataset trains on Keras' order), and batches given as a bare array or a dict."""

import math

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import same


def _logging_dataset(keras, n, batch_size, log, batch_kind="pair"):
    class Logged(keras.utils.PyDataset):
        def __len__(self):
            return math.ceil(n / batch_size)

        def __getitem__(self, index):
            log.append(f"get{index}")
            x = np.full((min(batch_size, n - batch_size * index), 2), float(index), np.float32)
            if batch_kind == "array":
                return x
            if batch_kind == "dict":
                return {"features": x}
            return x, x[:, :1]

        def on_epoch_begin(self):
            log.append("begin")

        def on_epoch_end(self):
            log.append("end")

    return Logged()


def _model(keras, batch_kind="pair"):
    inputs = keras.Input((2,), name="features")
    model = keras.Model({"features": inputs} if batch_kind == "dict" else inputs, keras.layers.Dense(1)(inputs))
    model.compile("sgd", "mse")
    return model


@pytest.mark.parametrize("n", [70, 10])
def test_fit_and_evaluate_hooks_and_spec_reads(n):
    def fn(lib):
        lib.keras.utils.set_random_seed(1)
        log = []
        model = _model(lib.keras)
        history = model.fit(_logging_dataset(lib.keras, n, 16, log), epochs=2, shuffle=False, verbose=0)
        # the batch reads (not their interleaving with the steps, which follows TF's prefetching)
        events = [e for e in log if not e.startswith("get")], sorted(e for e in log if e.startswith("get"))
        log.clear()
        loss = np.array(model.evaluate(_logging_dataset(lib.keras, n, 16, log), verbose=0))
        return np.array(history.history["loss"]), events, log[:2], [e for e in log if not e.startswith("get")], loss

    same(fn)


def test_fit_on_a_dataset_that_reshuffles_at_epoch_end():
    def fn(lib):
        keras = lib.keras

        class Reshuffled(keras.utils.PyDataset):
            def __init__(self, x, y):
                super().__init__()
                self.x, self.y = x, y
                self.order = np.arange(len(x))
                self.rng = np.random.default_rng(3)

            def __len__(self):
                return 4

            def __getitem__(self, index):
                rows = self.order[index * 8:(index + 1) * 8]
                return self.x[rows], self.y[rows]

            def on_epoch_end(self):
                self.rng.shuffle(self.order)

        keras.utils.set_random_seed(2)
        rng = np.random.default_rng(2)
        x = rng.normal(size=(32, 3)).astype(np.float32)
        y = x.sum(axis=1, keepdims=True)
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        model.compile(keras.optimizers.SGD(0.1), "mse")
        return np.array(model.fit(Reshuffled(x, y), epochs=3, shuffle=False, verbose=0).history["loss"])

    same(fn)


@pytest.mark.parametrize("batch_kind", ["array", "dict"])
def test_predict_on_bare_array_and_dict_batches(batch_kind):
    def fn(lib):
        lib.keras.utils.set_random_seed(1)
        log = []
        model = _model(lib.keras, batch_kind)
        return model.predict(_logging_dataset(lib.keras, 20, 8, log, batch_kind), verbose=0), log[:2]

    same(fn)


def _constant_dataset(keras, length, batch):
    class Constant(keras.utils.PyDataset):
        def __len__(self):
            return length

        def __getitem__(self, index):
            return batch

    return Constant()


@pytest.mark.parametrize("length, batch", [(0, None), (2, (np.zeros((2, 2)),) * 4), (2, "text")])
def test_empty_and_malformed_batches(length, batch):
    same(lambda lib: _model(lib.keras).predict(_constant_dataset(lib.keras, length, batch), verbose=0))
