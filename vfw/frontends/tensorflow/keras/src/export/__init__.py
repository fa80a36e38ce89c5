"""Keras' model export (``model.export``): vfw's SavedModel format (see ``saved_model``)."""
