"""vfw in one minute: one model written PyTorch-style and Keras-style, on one engine, and through ONNX.

The same small classifier of synthetic 8x8 digits is trained twice from the same initial weights:
with ``vfw.torch`` (a plain PyTorch training loop) and with ``vfw.tensorflow``'s Keras
(``compile``/``fit``).  Both frontends drive the same numpy engine, so their losses match epoch by
epoch.  Each trained model is then exported to ONNX, run in onnxruntime and imported back, and
the four sets of predictions are compared.
"""

import io
import time

import numpy as np
import onnxruntime as ort
import vfw.tensorflow as tf
import vfw.torch as torch
from digits import make_digits, show

import vfw.onnx_io as onnx_io

EPOCHS, BATCH, LEARNING_RATE, MOMENTUM = 8, 40, 0.1, 0.9


def torch_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))


def keras_model_like(model):
    """The Keras twin of ``torch_model()``, holding its weights (a Dense kernel is a Linear weight transposed)."""
    keras_model = tf.keras.Sequential([tf.keras.Input((8, 8)), tf.keras.layers.Flatten(),
                                       tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(10)])
    linears = [m for m in model if isinstance(m, torch.nn.Linear)]
    keras_model.set_weights([a for m in linears for a in (m.weight.detach().numpy().T, m.bias.detach().numpy())])
    return keras_model


def train_torch(model, images, labels):
    """A PyTorch training loop; returns the mean loss of each epoch."""
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE, momentum=MOMENTUM)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.tensor(images), torch.tensor(labels)),
                                         batch_size=BATCH)
    history = []
    for _ in range(EPOCHS):
        losses = []
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        history.append(float(np.mean(losses)))
    return history


def train_keras(model, images, labels):
    """Keras' compile/fit on the same batches (no shuffling, as the torch loader); returns the epoch losses."""
    # SGD with momentum is the same rule in both (Adam is not quite: Keras adds epsilon to sqrt(v), torch to the
    # bias-corrected sqrt(v_hat), and the small differences grow over many steps).
    model.compile(optimizer=tf.keras.optimizers.SGD(LEARNING_RATE, momentum=MOMENTUM),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model.fit(images, labels, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0).history["loss"]


def in_onnxruntime(model_bytes, images):
    session = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: images})[0]


def accuracy(logits, labels):
    return float((np.argmax(logits, axis=1) == labels).mean())


def main():
    train_images, train_labels = make_digits(2000, seed=0)
    test_images, test_labels = make_digits(500, seed=1)
    print(f"synthetic digits: {len(train_images)} to train, {len(test_images)} to test, e.g. a {train_labels[0]}:")
    print(show(train_images[0]))

    model = torch_model()
    keras_model = keras_model_like(model)
    start = time.perf_counter()
    torch_losses = train_torch(model, train_images, train_labels)
    keras_losses = train_keras(keras_model, train_images, train_labels)
    print(f"\ntrained both for {EPOCHS} epochs in {time.perf_counter() - start:.1f} s, from the same weights:")
    print(f"{'epoch':>5}  {'vfw.torch loss':>15}  {'vfw.tensorflow (Keras) loss':>28}")
    for epoch, (a, b) in enumerate(zip(torch_losses, keras_losses), 1):
        print(f"{epoch:>5}  {a:>15.5f}  {b:>28.5f}")

    # ONNX: torch.onnx.export for the torch model, vfw.onnx_io.export for the Keras one; both run in onnxruntime.
    model.eval()
    buffer = io.BytesIO()
    torch.onnx.export(model, (torch.tensor(test_images),), buffer, input_names=["images"],
                      dynamic_axes={"images": {0: "batch"}})
    keras_onnx = onnx_io.export(keras_model).SerializeToString()
    with torch.no_grad():
        predictions = {
            "vfw.torch": model(torch.tensor(test_images)).numpy(),
            "Keras": keras_model.predict(test_images, verbose=0),
            "onnxruntime (torch.onnx.export)": in_onnxruntime(buffer.getvalue(), test_images),
            "onnxruntime (onnx_io.export of Keras)": in_onnxruntime(keras_onnx, test_images),
            "ONNX imported as a torch module": onnx_io.to_torch_module(buffer.getvalue())(
                torch.tensor(test_images)).numpy(),
        }
    reference = predictions["vfw.torch"]
    print(f"\n{'test predictions by':<40}{'accuracy':>9}  {'max |logits - vfw.torch logits|':>32}")
    for name, logits in predictions.items():
        print(f"{name:<40}{accuracy(logits, test_labels):>9.3f}  {np.abs(logits - reference).max():>32.2e}")


if __name__ == "__main__":
    main()
