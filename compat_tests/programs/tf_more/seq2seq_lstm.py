"""A character-level sequence-to-sequence model as in the Keras "seq2seq" example: an LSTM encoder returning its
states, an LSTM decoder started from them (initial_state, return_sequences), teacher forcing, TimeDistributed
Dense, then separate inference models stepping the decoder with its states; plus GRU return_state."""

import numpy as np
from tensorflow import keras

TOKENS, LENGTH, UNITS = 6, 5, 16


def main():
    keras.utils.set_random_seed(25)
    rng = np.random.default_rng(25)
    source = rng.integers(1, TOKENS, (48, LENGTH))
    target = source[:, ::-1]  # learn to reverse
    start = np.zeros((48, 1), np.int64)
    decoder_input = np.concatenate([start, target[:, :-1]], axis=1)
    one_hot = np.eye(TOKENS, dtype=np.float32)

    encoder_inputs = keras.Input(shape=(None, TOKENS))
    _, state_h, state_c = keras.layers.LSTM(UNITS, return_state=True)(encoder_inputs)
    decoder_inputs = keras.Input(shape=(None, TOKENS))
    decoder_lstm = keras.layers.LSTM(UNITS, return_sequences=True, return_state=True)
    decoder_outputs, _, _ = decoder_lstm(decoder_inputs, initial_state=[state_h, state_c])
    decoder_dense = keras.layers.TimeDistributed(keras.layers.Dense(TOKENS, activation="softmax"))
    model = keras.Model([encoder_inputs, decoder_inputs], decoder_dense(decoder_outputs))
    model.compile(optimizer="rmsprop", loss="categorical_crossentropy", metrics=["accuracy"])
    history = model.fit([one_hot[source], one_hot[decoder_input]], one_hot[target], batch_size=16, epochs=3,
                        validation_split=0.25, verbose=0)
    values = history.history["loss"] + history.history["val_loss"] + history.history["accuracy"]

    encoder_model = keras.Model(encoder_inputs, [state_h, state_c])
    state_input_h, state_input_c = keras.Input(shape=(UNITS,)), keras.Input(shape=(UNITS,))
    step_outputs, step_h, step_c = decoder_lstm(decoder_inputs, initial_state=[state_input_h, state_input_c])
    decoder_model = keras.Model([decoder_inputs, state_input_h, state_input_c],
                                [decoder_dense(step_outputs), step_h, step_c])
    states = encoder_model.predict(one_hot[source[:4]], verbose=0)
    token = one_hot[start[:4]]
    decoded = []
    for _ in range(LENGTH):
        probabilities, h, c = decoder_model.predict([token] + list(states), verbose=0)
        states = [h, c]
        choice = probabilities[:, -1].argmax(axis=-1)
        decoded.append(choice)
        token = one_hot[choice][:, None]
    values += [float(np.sum(decoded)), float(np.abs(states[0]).sum())]

    gru_outputs, gru_state = keras.layers.GRU(4, return_sequences=True, return_state=True, reset_after=False)(
        encoder_inputs)
    gru_model = keras.Model(encoder_inputs, [gru_outputs, gru_state])
    sequences, state = gru_model(one_hot[source[:3]])
    return values + [float(np.asarray(sequences).sum()), float(np.asarray(state).sum())]


if __name__ == "__main__":
    print(main())
