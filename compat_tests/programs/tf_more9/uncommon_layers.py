"""Less common Keras layers, losses and metrics in one functional model, as Kaggle notebooks mix them:
EinsumDense (with a bias over the last axis), TimeDistributed(Dense), keras.layers.Attention (use_scale) and
AdditiveAttention, GroupNormalization, UnitNormalization, PReLU and ELU; a regression head trained with Huber
and a binary head with BinaryFocalCrossentropy, metrics AUC / Precision / Recall / R2Score,
optimized by Lion; evaluate(return_dict=True) on the validation split."""

import keras
import numpy as np
from keras import layers

STEPS, FEATURES = 5, 4


def build_model():
    inputs = keras.Input((STEPS, FEATURES))
    h = layers.EinsumDense("abc,cd->abd", output_shape=(STEPS, 6), bias_axes="d")(inputs)
    h = layers.TimeDistributed(layers.Dense(6))(h)
    h = layers.PReLU()(h)
    attended = layers.Attention(use_scale=True)([h, h])
    additive = layers.AdditiveAttention()([h, h])
    h = layers.Concatenate()([attended, additive])
    h = layers.GroupNormalization(groups=3)(h)
    h = layers.ELU(alpha=0.5)(h)
    pooled = layers.GlobalAveragePooling1D()(h)
    pooled = layers.UnitNormalization()(pooled)
    regression = layers.Dense(1, name="value")(pooled)
    binary = layers.Dense(1, activation="sigmoid", name="flag")(pooled)
    return keras.Model(inputs, {"value": regression, "flag": binary})


def main():
    keras.utils.set_random_seed(51)
    rng = np.random.default_rng(51)
    x = rng.normal(size=(40, STEPS, FEATURES)).astype(np.float32)
    value = (x[:, :, 0].mean(1) * 2.0 + 0.1 * rng.normal(size=40)).astype(np.float32)[:, None]
    flag = (x[:, :, 1].sum(1) > 0).astype(np.float32)[:, None]
    targets = {"value": value, "flag": flag}

    model = build_model()
    initial = model.get_weights()
    values = [len(initial)] + [str(w.shape) for w in model.layers[1].get_weights()]
    losses = {"value": keras.losses.Huber(delta=0.5), "flag": keras.losses.BinaryFocalCrossentropy(gamma=2.0)}
    metrics = {"value": [keras.metrics.R2Score()],
               "flag": [keras.metrics.AUC(name="auc"), keras.metrics.Precision(name="precision"),
                        keras.metrics.Recall(name="recall")]}
    model.compile(optimizer=keras.optimizers.Lion(0.003), loss=losses, metrics=metrics)
    history = model.fit(x[:32], targets_slice(targets, 0, 32), batch_size=16, epochs=1, verbose=0, shuffle=False)
    for key in sorted(history.history):
        values += [key] + history.history[key]
    result = model.evaluate(x[32:], targets_slice(targets, 32, 40), verbose=0, return_dict=True)
    for key in sorted(result):
        values += [key, result[key]]
    return values


def targets_slice(targets, start, stop):
    return {name: array[start:stop] for name, array in targets.items()}


if __name__ == "__main__":
    print(main())
