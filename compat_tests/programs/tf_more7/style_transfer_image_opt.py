"""Optimizing an image instead of weights, as the TF "neural style transfer" and "DeepDream" tutorials do, with a
small frozen random-weight CNN in place of VGG: a multi-output feature extractor (keras.Model over get_layer
outputs, trainable=False), Gram matrices with tf.linalg.einsum divided by the number of locations, style and
content losses as tf.add_n of per-layer means, tf.image.total_variation as a regularizer, a tf.Variable image
updated by Adam(beta_1=0.99, epsilon=1e-1) inside a tf.function and clipped back with assign(tf.clip_by_value);
then DeepDream gradient ascent with tf.roll random shifts and normalized gradients."""

import numpy as np
import tensorflow as tf


def gram_matrix(input_tensor):
    result = tf.linalg.einsum("bijc,bijd->bcd", input_tensor, input_tensor)
    input_shape = tf.shape(input_tensor)
    num_locations = tf.cast(input_shape[1] * input_shape[2], tf.float32)
    return result / num_locations


def main():
    tf.keras.utils.set_random_seed(37)
    rng = np.random.default_rng(37)
    inputs = tf.keras.Input(shape=(12, 12, 3))
    x = tf.keras.layers.Conv2D(6, 3, padding="same", activation="relu", name="block1_conv")(inputs)
    x = tf.keras.layers.MaxPooling2D(name="block1_pool")(x)
    x = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="block2_conv")(x)
    base = tf.keras.Model(inputs, x)
    base.trainable = False
    style_layers, content_layers = ["block1_conv", "block2_conv"], ["block2_conv"]
    extractor = tf.keras.Model(base.input, [base.get_layer(n).output for n in style_layers + content_layers])
    values = [len(extractor.trainable_weights), len(extractor.non_trainable_weights)]

    def features(image):
        outputs = extractor(image * 255.0 / 127.5 - 1.0)
        style = {n: gram_matrix(o) for n, o in zip(style_layers, outputs[:len(style_layers)])}
        content = {n: o for n, o in zip(content_layers, outputs[len(style_layers):])}
        return {"style": style, "content": content}

    content_image = tf.constant(rng.uniform(size=(1, 12, 12, 3)).astype(np.float32))
    style_image = tf.constant(np.tile(np.linspace(0, 1, 12, dtype=np.float32)[None, :, None, None], (1, 1, 12, 3)))
    style_targets = features(style_image)["style"]
    content_targets = features(content_image)["content"]
    values += [str(style_targets["block1_conv"].shape), float(tf.reduce_sum(style_targets["block2_conv"]))]
    values += [str(tf.image.total_variation(content_image).shape), float(tf.image.total_variation(content_image)[0])]
    values += [float(tf.image.total_variation(content_image[0]))]

    image = tf.Variable(content_image)
    opt = tf.keras.optimizers.Adam(learning_rate=0.02, beta_1=0.99, epsilon=1e-1)

    def style_content_loss(outputs):
        style_loss = tf.add_n([tf.reduce_mean((outputs["style"][n] - style_targets[n]) ** 2) for n in style_layers])
        content_loss = tf.add_n([tf.reduce_mean((outputs["content"][n] - content_targets[n]) ** 2)
                                 for n in content_layers])
        return 1e-2 * style_loss / len(style_layers) + 1e4 * content_loss / len(content_layers) * 1e-4

    @tf.function()
    def train_step(image):
        with tf.GradientTape() as tape:
            loss = style_content_loss(features(image)) + 0.05 * tf.image.total_variation(image)[0]
        grad = tape.gradient(loss, image)
        opt.apply_gradients([(grad, image)])
        image.assign(tf.clip_by_value(image, clip_value_min=0.0, clip_value_max=1.0))
        return loss

    for _ in range(4):
        values.append(float(train_step(image)))
    values += [float(tf.reduce_mean(image)), float(tf.reduce_max(image))]

    dream_model = tf.keras.Model(base.input, [base.get_layer("block1_conv").output, base.output])

    def calc_loss(img):
        layer_activations = dream_model(tf.expand_dims(img, axis=0))
        return tf.reduce_sum([tf.math.reduce_mean(act) for act in layer_activations])

    img = tf.constant(rng.uniform(-1, 1, size=(12, 12, 3)).astype(np.float32))
    shifts = [(2, -3), (-1, 4), (5, 0)]
    for shift in shifts:
        rolled = tf.roll(img, shift=shift, axis=[0, 1])
        with tf.GradientTape() as tape:
            tape.watch(rolled)
            loss = calc_loss(rolled)
        gradients = tape.gradient(loss, rolled)
        gradients /= tf.math.reduce_std(gradients) + 1e-8
        rolled = rolled + gradients * 0.01
        img = tf.clip_by_value(tf.roll(rolled, shift=[-s for s in shift], axis=[0, 1]), -1, 1)
        values += [float(loss), float(tf.reduce_sum(img))]
    return values


if __name__ == "__main__":
    print(main())
