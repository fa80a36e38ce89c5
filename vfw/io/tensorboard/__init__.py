"""TensorBoard event files, shared by ``tf.summary``, Keras' ``TensorBoard`` callback and
``torch.utils.tensorboard``: the messages (``protos``), the file writer (``event_file``) and the histogram
bucketings of TensorFlow and torch (``histograms``)."""
