"""Model interpretability as in the Keras "Grad-CAM class activation visualization" and TF "integrated gradients"
examples: a functional CNN, a grad model (keras.Model with the last conv layer's output and the predictions as
outputs, layers found with get_layer), tape.gradient of the top class score w.r.t. the feature maps, pooled
gradients weighting the maps (tf.newaxis, squeeze, maximum, normalisation) and the heatmap resized with
tf.image.resize; integrated gradients on interpolated images (tf.linspace alphas, broadcasting), a batched tape
over them, a trapezoidal Riemann sum, and a saliency map from tf.math.reduce_max of |gradients|."""

import numpy as np
import tensorflow as tf


def main():
    tf.keras.utils.set_random_seed(29)
    rng = np.random.default_rng(29)
    labels = rng.integers(0, 3, 60)
    images = rng.uniform(0, 0.3, size=(60, 10, 10, 1)).astype(np.float32)
    for i, label in enumerate(labels):
        images[i, 3 * label:3 * label + 3, 2:8, 0] += 0.7

    inputs = tf.keras.Input(shape=(10, 10, 1))
    x = tf.keras.layers.Conv2D(6, 3, padding="same", activation="relu", name="conv_a")(inputs)
    x = tf.keras.layers.Conv2D(8, 3, activation="relu", name="last_conv")(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    outputs = tf.keras.layers.Dense(3, name="predictions")(x)
    model = tf.keras.Model(inputs, outputs)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.02),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(images, labels, batch_size=20, epochs=2, verbose=0)
    values = history.history["loss"] + history.history["accuracy"]

    grad_model = tf.keras.models.Model(model.inputs, [model.get_layer("last_conv").output, model.output])
    img_array = images[:2]
    with tf.GradientTape() as tape:
        last_conv_output, preds = grad_model(img_array)
        pred_index = tf.argmax(preds[0])
        class_channel = preds[:, pred_index]
    grads = tape.gradient(class_channel, last_conv_output)
    pooled_grads = tf.reduce_mean(grads, axis=(0, 1, 2))
    heatmap = last_conv_output[0] @ pooled_grads[..., tf.newaxis]
    heatmap = tf.squeeze(heatmap)
    heatmap = tf.maximum(heatmap, 0) / (tf.math.reduce_max(heatmap) + 1e-9)
    values += [int(pred_index), str(grads.shape), str(heatmap.shape)] + [float(v) for v in heatmap.numpy().ravel()]
    resized = tf.image.resize(heatmap[..., tf.newaxis], (10, 10))
    values += [str(resized.shape), float(tf.reduce_sum(resized))]

    baseline = tf.zeros(shape=(10, 10, 1))
    alphas = tf.linspace(start=0.0, stop=1.0, num=9)
    image = tf.constant(images[5])
    alphas_x = alphas[:, tf.newaxis, tf.newaxis, tf.newaxis]
    interpolated = baseline[tf.newaxis] + alphas_x * (image[tf.newaxis] - baseline[tf.newaxis])
    with tf.GradientTape() as tape:
        tape.watch(interpolated)
        probs = tf.nn.softmax(model(interpolated), axis=-1)[:, int(labels[5])]
    path_gradients = tape.gradient(probs, interpolated)
    trapezoid = (path_gradients[:-1] + path_gradients[1:]) / tf.constant(2.0)
    avg_gradients = tf.math.reduce_mean(trapezoid, axis=0)
    attributions = (image - baseline) * avg_gradients
    values += [float(v) for v in probs.numpy()]
    values += [float(tf.reduce_sum(attributions)), float(tf.reduce_max(tf.abs(attributions)))]
    attribution_mask = tf.reduce_sum(tf.math.abs(attributions), axis=-1)
    values += [float(v) for v in tf.reduce_sum(attribution_mask, axis=1).numpy()]

    batch = tf.convert_to_tensor(images[:4])
    with tf.GradientTape() as tape:
        tape.watch(batch)
        top = tf.reduce_max(model(batch), axis=1)
    saliency = tf.math.reduce_max(tf.abs(tape.gradient(top, batch)), axis=-1)
    values += [str(saliency.shape)] + [float(v) for v in tf.reduce_sum(saliency, axis=[1, 2]).numpy()]
    return values


if __name__ == "__main__":
    print(main())
