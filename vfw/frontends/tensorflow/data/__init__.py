"""tf.data: input pipelines (Dataset)."""
