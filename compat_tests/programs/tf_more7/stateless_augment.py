"""The TF "data augmentation" tutorial's random-but-reproducible pipeline: tf.image.stateless_random_* ops
(flip_left_right, flip_up_down, brightness, contrast, crop) fed seeds made by tf.random.experimental.stateless_split
and by a tf.random.Generator's make_seeds, applied in Dataset.map to (image, label) pairs zipped with a counter of
seeds, tf.image.resize_with_crop_or_pad and convert_image_dtype, then a small CNN fit on the augmented batches."""

import numpy as np
import tensorflow as tf


def augment(image_label, seed):
    image, label = image_label
    image = tf.image.resize_with_crop_or_pad(image, 14, 14)
    new_seed = tf.random.experimental.stateless_split(seed, num=1)[0, :]
    image = tf.image.stateless_random_crop(image, size=[12, 12, 3], seed=seed)
    image = tf.image.stateless_random_flip_left_right(image, seed=new_seed)
    image = tf.image.stateless_random_flip_up_down(image, seed=seed)
    image = tf.image.stateless_random_brightness(image, max_delta=0.3, seed=new_seed)
    image = tf.image.stateless_random_contrast(image, lower=0.7, upper=1.3, seed=seed)
    image = tf.clip_by_value(image, 0, 1)
    return image, label


def main():
    tf.keras.utils.set_random_seed(19)
    rng = np.random.default_rng(19)
    labels = rng.integers(0, 3, 48).astype(np.int64)
    raw = rng.integers(0, 256, size=(48, 12, 12, 3)).astype(np.uint8)
    raw[labels == 1, :6] //= 3
    raw[labels == 2, :, :6] //= 3
    images = tf.image.convert_image_dtype(raw, tf.float32)
    values = [str(images.dtype), float(tf.reduce_mean(images))]

    seeds = tf.random.experimental.stateless_split([7, 3], num=4)
    values += [str(seeds.dtype), str(seeds.numpy().tolist())]
    one = images[0]
    for seed in seeds[:2]:
        flipped = tf.image.stateless_random_flip_left_right(one, seed)
        values.append(float(tf.reduce_sum(flipped * tf.range(12.0)[:, None])))
        values.append(float(tf.reduce_mean(tf.image.stateless_random_brightness(one, 0.5, seed))))
        values.append(float(tf.reduce_mean(tf.image.stateless_random_contrast(one, 0.2, 0.5, seed))))
        crop = tf.image.stateless_random_crop(one, [5, 7, 3], seed)
        values += [str(crop.shape), float(tf.reduce_sum(crop))]
    padded = tf.image.resize_with_crop_or_pad(images[:2], 16, 9)
    values += [str(padded.shape), float(tf.reduce_sum(padded))]

    counter = tf.data.experimental.Counter()
    train_ds = tf.data.Dataset.zip((tf.data.Dataset.from_tensor_slices((images, labels)), (counter, counter)))
    train_ds = train_ds.map(lambda x, s: augment(x, tf.stack(s))).batch(16)
    generator = tf.random.Generator.from_seed(123, alg="philox")

    def generator_augment(x, y):
        seed = generator.make_seeds(2)[0]
        return augment((x, y), seed)

    gen_ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(1).unbatch()
    gen_images = [generator_augment(x, y)[0] for x, y in gen_ds.take(3)]
    values += [float(tf.reduce_sum(img)) for img in gen_images]

    model = tf.keras.Sequential([tf.keras.Input((12, 12, 3)), tf.keras.layers.Conv2D(4, 3, activation="relu"),
                                 tf.keras.layers.MaxPooling2D(), tf.keras.layers.Flatten(), tf.keras.layers.Dense(3)])
    model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(train_ds, epochs=2, verbose=0)
    values += history.history["loss"] + history.history["accuracy"]
    batch_images, _ = next(iter(train_ds))
    values += [float(v) for v in tf.reduce_mean(batch_images, axis=[1, 2, 3]).numpy()[:6]]
    return values


if __name__ == "__main__":
    print(main())
