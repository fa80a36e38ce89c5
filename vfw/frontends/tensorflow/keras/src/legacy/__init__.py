"""tf.keras' legacy APIs that TF 2.21 still serves through ``keras._tf_keras`` (``tf.keras.preprocessing``...)."""
