"""The Keras "large-scale multi-label text classification" example, shrunk: label lists (strings) as a
tf.ragged.constant, a StringLookup(output_mode="multi_hot") adapted on them (num_oov_indices=0) and its inverted
vocabulary, a train/test split of a tf.data dataset of (abstract, labels) pairs, TextVectorization(ngrams=2,
output_mode="tf_idf") adapted on the text only and mapped into the pipeline, a shallow MLP with sigmoid outputs and
binary_crossentropy, binary_accuracy and F1Score(average="micro", threshold=0.5) metrics, and the top-3 predicted
labels decoded back to strings."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers

TOPICS = ["cs.LG", "cs.CV", "stat.ML", "cs.CL"]
WORDS = {"cs.LG": ["learning", "gradient", "loss"], "cs.CV": ["image", "pixel", "segmentation"],
         "stat.ML": ["bayesian", "prior", "kernel"], "cs.CL": ["language", "token", "translation"]}


def make_corpus(rng, count):
    abstracts, terms = [], []
    for _ in range(count):
        chosen = sorted(set(rng.choice(TOPICS, size=int(rng.integers(1, 3)))))
        words = [w for topic in chosen for w in WORDS[topic]]
        text = " ".join(rng.choice(words + ["the", "a", "model", "we"], size=7))
        abstracts.append(text), terms.append(chosen)
    return abstracts, terms


def main():
    keras.utils.set_random_seed(64)
    rng = np.random.default_rng(64)
    abstracts, terms = make_corpus(rng, 48)
    labels_ragged = tf.ragged.constant(terms)
    lookup = layers.StringLookup(output_mode="multi_hot", num_oov_indices=0)
    lookup.adapt(labels_ragged)
    vocab = lookup.get_vocabulary()
    values = [str(vocab)]

    def invert_multi_hot(encoded_labels):
        hot_indices = np.argwhere(encoded_labels == 1.0)[..., 0]
        return np.take(vocab, hot_indices)

    encoded = lookup(tf.ragged.constant([terms[0]]))
    values += [str(list(invert_multi_hot(encoded.numpy()[0]))), str(terms[0])]

    def make_dataset(texts, label_lists, is_train=True):
        label_binarized = lookup(tf.ragged.constant(label_lists)).numpy()
        dataset = tf.data.Dataset.from_tensor_slices((texts, label_binarized))
        dataset = dataset.shuffle(16, seed=3) if is_train else dataset
        return dataset.batch(8)

    train_dataset = make_dataset(abstracts[:40], terms[:40])
    test_dataset = make_dataset(abstracts[40:], terms[40:], is_train=False)

    text_vectorizer = layers.TextVectorization(max_tokens=40, ngrams=2, output_mode="tf_idf")
    text_vectorizer.adapt(train_dataset.map(lambda text, label: text))
    values += [float(len(text_vectorizer.get_vocabulary())), str(text_vectorizer.get_vocabulary()[:6])]
    train_dataset = train_dataset.map(lambda text, label: (text_vectorizer(text), label))
    test_dataset = test_dataset.map(lambda text, label: (text_vectorizer(text), label))
    first = next(iter(test_dataset))[0].numpy()
    values += [float(first.sum()), float(first[0].max())]

    shallow_mlp_model = keras.Sequential([layers.Dense(16, activation="relu"), layers.Dense(8, activation="relu"),
                                          layers.Dense(lookup.vocabulary_size(), activation="sigmoid")])
    shallow_mlp_model.compile(loss="binary_crossentropy", optimizer="adam",
                              metrics=["binary_accuracy",
                                       keras.metrics.F1Score(average="micro", threshold=0.5, name="f1")])
    history = shallow_mlp_model.fit(train_dataset, validation_data=test_dataset, epochs=2, verbose=0)
    for key in ["loss", "binary_accuracy", "f1", "val_loss", "val_f1"]:
        values += history.history[key]
    values += shallow_mlp_model.evaluate(test_dataset, verbose=0)

    model_for_inference = keras.Sequential([text_vectorizer, shallow_mlp_model])
    predicted_probabilities = model_for_inference.predict(tf.constant(abstracts[40:43]), verbose=0)
    values += [float(v) for v in predicted_probabilities.ravel()]
    for probabilities in predicted_probabilities:
        top_3_labels = [x for _, x in sorted(zip(probabilities, vocab), key=lambda pair: pair[0], reverse=True)][:3]
        values.append(str(top_3_labels))
    f1 = keras.metrics.F1Score(average="macro", threshold=0.4)
    f1.update_state(lookup(tf.ragged.constant(terms[40:43])), predicted_probabilities)
    values.append(float(f1.result().numpy()))
    return values


if __name__ == "__main__":
    print(main())
