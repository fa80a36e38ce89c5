"""keras.datasets: loaders of Keras' small benchmark data sets, read from Keras' download cache.

Loading never runs code from a file: ``.npz`` numeric arrays load with pickles disabled, and the
ragged IMDB/Reuters arrays and the CIFAR batches go through :mod:`._safe_pickle`, which builds only
numpy arrays, dicts, lists, strings, bytes and numbers.
"""
