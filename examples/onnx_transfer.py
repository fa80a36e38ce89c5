"""Move a model between the frontends through ONNX, and keep training it on the other side.

1. Keras-style: train a digit classifier on clean synthetic digits, export it with
   ``vfw.onnx_io.export`` to an ``.onnx`` file (any ONNX model would do: a file from elsewhere
   imports the same way).
2. PyTorch-style: import the file with ``vfw.onnx_io.to_torch_module`` (its initializers become
   ``nn.Parameter``\\s) and fine-tune it with ``torch.optim`` on noisier digits.
3. Export the fine-tuned module with ``torch.onnx.export``, check it in onnxruntime, wrap it as a
   Keras layer with ``vfw.onnx_io.to_keras_layer`` and train it further with Keras' ``fit``.
"""

import os
import tempfile

import numpy as np
import onnxruntime as ort
import vfw.tensorflow as tf
import vfw.torch as torch
from digits import make_digits

import vfw.onnx_io as onnx_io

keras = tf.keras


def accuracy(logits, labels):
    return float((np.argmax(np.asarray(logits), axis=1) == labels).mean())


def pretrain_keras(images, labels):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((8, 8)), keras.layers.Flatten(), keras.layers.Dense(32, activation="relu"),
                              keras.layers.Dense(10)])
    model.compile(keras.optimizers.Adam(1e-2), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(images, labels, batch_size=32, epochs=4, verbose=0)
    return model


def fine_tune_torch(module, images, labels, epochs=3):
    torch.manual_seed(0)
    optimizer = torch.optim.SGD(module.parameters(), lr=0.05, momentum=0.9)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.tensor(images), torch.tensor(labels)),
                                         batch_size=32, shuffle=True)
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(module(x), y).backward()
            optimizer.step()


def main():
    clean_images, clean_labels = make_digits(2000, seed=0, noise=0.05)
    noisy_images, noisy_labels = make_digits(2000, seed=1, noise=0.3)
    test_images, test_labels = make_digits(500, seed=2, noise=0.3)
    folder = tempfile.mkdtemp()

    keras_model = pretrain_keras(clean_images, clean_labels)
    keras_path = os.path.join(folder, "digits_keras.onnx")
    onnx_io.export(keras_model, path=keras_path)
    print(f"1. Keras model trained on clean digits: accuracy on noisy test digits "
          f"{accuracy(keras_model.predict(test_images, verbose=0), test_labels):.3f}; exported to ONNX")

    module = onnx_io.to_torch_module(keras_path)
    with torch.no_grad():
        imported_logits = module(torch.tensor(test_images)).numpy()
    print(f"2. imported as a torch module: {sum(p.numel() for p in module.parameters())} parameters in "
          f"{len(list(module.parameters()))} tensors, accuracy {accuracy(imported_logits, test_labels):.3f}")
    fine_tune_torch(module, noisy_images, noisy_labels)
    with torch.no_grad():
        tuned_logits = module(torch.tensor(test_images)).numpy()
    print(f"   fine-tuned torch-style on noisy digits: accuracy {accuracy(tuned_logits, test_labels):.3f}")

    torch_path = os.path.join(folder, "digits_tuned.onnx")
    torch.onnx.export(module, (torch.tensor(test_images[:1]),), torch_path, input_names=["images"],
                      dynamic_axes={"images": {0: "batch"}})
    session = ort.InferenceSession(torch_path, providers=["CPUExecutionProvider"])
    runtime_logits = session.run(None, {"images": test_images})[0]
    print(f"3. exported again: onnxruntime agrees with the torch module to "
          f"{np.abs(runtime_logits - tuned_logits).max():.1e}")
    layer = onnx_io.to_keras_layer(torch_path)
    keras_model = keras.Sequential([keras.Input((8, 8)), layer])
    keras_model.compile(keras.optimizers.SGD(0.02, momentum=0.9),
                        keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    print(f"   as a Keras layer: accuracy {accuracy(keras_model.predict(test_images, verbose=0), test_labels):.3f}")
    keras_model.fit(noisy_images, noisy_labels, batch_size=32, epochs=2, verbose=0)
    print(f"   trained further with Keras' fit: accuracy "
          f"{accuracy(keras_model.predict(test_images, verbose=0), test_labels):.3f}")


if __name__ == "__main__":
    main()
