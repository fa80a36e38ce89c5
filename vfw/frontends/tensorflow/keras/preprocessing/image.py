"""tf.keras.preprocessing.image (the array conversions; PIL-based ones need PIL)."""

from vfw.frontends.tensorflow.keras.src.legacy.image import array_to_img, img_to_array, load_img, save_img  # noqa: F401
