"""Which namespaces of the real frameworks the coverage report counts, and where vfw provides each."""

import importlib
import pathlib

_HERE = pathlib.Path(__file__).resolve().parent

# framework -> the module giving its version, the top-level packages whose objects count as its own, the
# reference version, and the namespaces: reported name -> the real object's import path.  The vfw side
# of a reported name is the same path under vfw (``vfw.torch.nn``, ``vfw.tensorflow.keras.layers``).
NAMESPACES = {
    "torch": {
        "module": "torch",
        "packages": ("torch",),
        "version": "2.13",
        "vfw_prefix": {"torch": "vfw.torch"},
        "namespaces": {name: name for name in (
            "torch", "torch.nn", "torch.nn.functional", "torch.optim", "torch.optim.lr_scheduler",
            "torch.utils.data", "torch.linalg", "torch.special", "torch.Tensor")},
    },
    "tensorflow": {
        "module": "tensorflow",
        "packages": ("tensorflow", "keras", "tf_keras"),
        "version": "2.21",
        "vfw_prefix": {"tf": "vfw.tensorflow", "keras": "vfw.tensorflow.keras"},
        "namespaces": {
            "tf": "tensorflow",
            "tf.math": "tensorflow.math",
            "tf.nn": "tensorflow.nn",
            "tf.linalg": "tensorflow.linalg",
            "tf.random": "tensorflow.random",
            "tf.keras.layers": "tensorflow.keras.layers",
            "tf.keras.losses": "tensorflow.keras.losses",
            "tf.keras.metrics": "tensorflow.keras.metrics",
            "tf.keras.optimizers": "tensorflow.keras.optimizers",
            "tf.keras.callbacks": "tensorflow.keras.callbacks",
            "tf.keras.initializers": "tensorflow.keras.initializers",
            "tf.keras.activations": "tensorflow.keras.activations",
            "tf.data.Dataset": "tensorflow.data.Dataset",
            "keras.ops": "keras.ops",
        },
    },
}


def snapshot_path(framework):
    """The committed snapshot file of ``framework``'s reference version."""
    return _HERE / f"snapshot_{framework}_{NAMESPACES[framework]['version']}.json"


def vfw_path(framework, public_name):
    """``torch.nn`` -> ``vfw.torch.nn``; ``tf.data.Dataset`` -> ``vfw.tensorflow.data.Dataset``."""
    head, _, rest = public_name.partition(".")
    prefix = NAMESPACES[framework]["vfw_prefix"][head]
    return f"{prefix}.{rest}" if rest else prefix


def resolve(path):
    """The object ``path`` names (``tensorflow.data.Dataset``: the longest importable module prefix, then
    attributes), or None when there is none."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attribute in parts[split:]:
            found = getattr(found, attribute, None)
        return found
    return None
