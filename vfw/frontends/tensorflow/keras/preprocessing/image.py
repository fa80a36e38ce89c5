"""tf.keras.preprocessing.image: the array conversions, ``smart_resize``, the per-image transforms and
``ImageDataGenerator`` with its iterators (transforms that resample need scipy, PIL-based ones PIL, as Keras)."""

from vfw.frontends.tensorflow.keras.src.legacy.image import array_to_img, img_to_array, load_img, save_img  # noqa: F401
from vfw.frontends.tensorflow.keras.src.legacy.image_generator import ImageDataGenerator  # noqa: F401
from vfw.frontends.tensorflow.keras.src.legacy.image_iterators import (  # noqa: F401
    DirectoryIterator,
    Iterator,
    NumpyArrayIterator,
)
from vfw.frontends.tensorflow.keras.src.legacy.image_transforms import (  # noqa: F401
    apply_affine_transform,
    apply_brightness_shift,
    apply_channel_shift,
    random_brightness,
    random_channel_shift,
    random_rotation,
    random_shear,
    random_shift,
    random_zoom,
    smart_resize,
)
