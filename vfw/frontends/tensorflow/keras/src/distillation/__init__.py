"""``keras.distillation``: knowledge distillation (a ``Distiller`` model and its distillation losses)."""
