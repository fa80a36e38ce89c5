"""keras.datasets image loaders: mnist, fashion_mnist, cifar10, cifar100 (Keras 3's files, shapes and dtypes)."""

import gzip
import os

import numpy as np

from vfw.frontends.tensorflow.keras.src.backend.config import image_data_format
from vfw.frontends.tensorflow.keras.src.datasets._common import ORIGIN_FOLDER, fetch
from vfw.frontends.tensorflow.keras.src.datasets._safe_pickle import load_npz, load_pickle
from vfw.frontends.tensorflow.keras.src.utils.file_utils import get_file


def load_mnist(path="mnist.npz"):
    """MNIST digits: ``(x_train, y_train), (x_test, y_test)``, uint8 images ``(n, 28, 28)`` and labels ``(n,)``.

    ``path`` is the file name in ``$KERAS_HOME/datasets``.
    """
    arrays = load_npz(fetch(path, "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1", "mnist.npz"))
    return (arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])


def _idx_bytes(path, header):
    """The uint8 payload of a gzipped IDX file after its ``header`` bytes."""
    with gzip.open(path, "rb") as stream:
        return np.frombuffer(stream.read(), np.uint8, offset=header)


def load_fashion_mnist():
    """Fashion-MNIST: ``(x_train, y_train), (x_test, y_test)``, uint8 images ``(n, 28, 28)`` and labels ``(n,)``."""
    names = ["train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
             "t10k-images-idx3-ubyte.gz"]
    folder = os.path.join("datasets", "fashion-mnist")
    paths = [get_file(name, origin=ORIGIN_FOLDER + name, cache_subdir=folder) for name in names]
    splits = []
    for labels_path, images_path in (paths[:2], paths[2:]):
        labels = _idx_bytes(labels_path, 8)
        splits.append((_idx_bytes(images_path, 16).reshape(len(labels), 28, 28), labels))
    return tuple(splits)


def load_batch(fpath, label_key="labels"):
    """One CIFAR pickle: ``(data (n, 3, 32, 32) uint8, labels)``; ``label_key`` names the label list."""
    batch = {key.decode("utf8"): value for key, value in load_pickle(fpath).items()}
    data = batch["data"]
    return data.reshape(data.shape[0], 3, 32, 32), batch[label_key]


def _cifar_layout(x_train, y_train, x_test, y_test):
    """Labels as ``(n, 1)`` columns, images channels-last unless ``image_data_format()`` is channels_first."""
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    if image_data_format() == "channels_last":
        x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return x_train, y_train, x_test, y_test


def load_cifar10():
    """CIFAR-10: 50000 train and 10000 test uint8 images ``(32, 32, 3)`` (channels-last) with ``(n, 1)`` labels."""
    folder = get_file(fname="cifar-10-batches-py-target", origin="https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
                      extract=True, file_hash="6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce")
    folder = os.path.join(folder, "cifar-10-batches-py")
    x_train = np.empty((50000, 3, 32, 32), dtype="uint8")
    y_train = np.empty((50000,), dtype="uint8")
    for i in range(5):
        rows = slice(i * 10000, (i + 1) * 10000)
        x_train[rows], y_train[rows] = load_batch(os.path.join(folder, f"data_batch_{i + 1}"))
    x_test, y_test = load_batch(os.path.join(folder, "test_batch"))
    x_train, y_train, x_test, y_test = _cifar_layout(x_train, y_train, x_test, y_test)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test.astype(y_train.dtype))


def load_cifar100(label_mode="fine"):
    """CIFAR-100 with ``"fine"`` (100 classes) or ``"coarse"`` (20 superclasses) labels, laid out as CIFAR-10."""
    if label_mode not in ["fine", "coarse"]:
        raise ValueError(f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: label_mode={label_mode}.')
    folder = get_file(fname="cifar-100-python-target",
                      origin="https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz", extract=True,
                      file_hash="85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7")
    folder = os.path.join(folder, "cifar-100-python")
    x_train, y_train = load_batch(os.path.join(folder, "train"), label_key=f"{label_mode}_labels")
    x_test, y_test = load_batch(os.path.join(folder, "test"), label_key=f"{label_mode}_labels")
    x_train, y_train, x_test, y_test = _cifar_layout(x_train, y_train, x_test, y_test)
    return (x_train, y_train), (x_test, y_test)
