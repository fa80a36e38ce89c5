"""keras.applications: the reference image-classification architectures (``weights=None`` or a weights file).

Each family is a submodule (``keras.applications.mobilenet_v2`` ...) with its model functions,
``preprocess_input`` and ``decode_predictions``; the model functions are also here at the top.
The implementations live in ``keras.src.applications``.
"""
