"""A nested model built from sub-models, as in the Keras functional API guide, with normalization layers
(GroupNormalization, LayerNormalization over two axes, UnitNormalization) in the blocks: model.summary() of the
nested model captured through print_fn with expand_nested=True and show_trainable=True after freezing a block,
count_params, trainable / non-trainable weight counts, a short fit and the normalized outputs' statistics."""

import numpy as np
from tensorflow import keras


def block(name, units):
    inp = keras.Input((6, 4))
    x = keras.layers.Dense(units)(inp)
    x = keras.layers.GroupNormalization(groups=2)(x)
    x = keras.layers.LayerNormalization(axis=[-2, -1])(x)
    return keras.Model(inp, x, name=name)


def main():
    keras.utils.set_random_seed(5)
    first = block("encoder_a", 4)
    second = block("encoder_b", 4)
    inp = keras.Input((6, 4), name="seq")
    h = second(first(inp))
    h = keras.layers.GlobalAveragePooling1D()(h)
    h = keras.layers.UnitNormalization(name="unit")(h)
    out = keras.layers.Dense(2, name="head")(h)
    model = keras.Model(inp, out, name="stacked")
    first.trainable = False
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    lines = []
    model.summary(print_fn=lambda line, **kw: lines.append(line), expand_nested=True, show_trainable=True)
    text = "\n".join(lines)
    values = [text]
    values += [model.count_params(), len(model.trainable_weights), len(model.non_trainable_weights)]
    rng = np.random.default_rng(5)
    x = rng.normal(size=(12, 6, 4)).astype("float32")
    y = rng.normal(size=(12, 2)).astype("float32")
    hist = model.fit(x, y, batch_size=4, epochs=3, verbose=0)
    values += hist.history["loss"]
    feats = keras.Model(inp, model.get_layer("unit").output)(x[:3])
    values += np.linalg.norm(np.asarray(feats), axis=-1).tolist()
    inner = first(x[:2])
    values += np.asarray(inner).mean(axis=(1, 2)).tolist() + np.asarray(inner).std(axis=(1, 2)).tolist()
    values += [w.name for w in second.weights]
    return values
