"""keras.applications: the reference image-classification architectures (``weights=None`` or a weights file).

Each family is a submodule (``keras.applications.mobilenet_v2`` ...) with its model functions,
``preprocess_input`` and ``decode_predictions``; the model functions are also here at the top.
The implementations live in ``keras.src.applications``.
"""

from vfw.frontends.tensorflow.keras.applications import (  # noqa: F401
    convnext,
    densenet,
    efficientnet,
    efficientnet_v2,
    imagenet_utils,
    inception_resnet_v2,
    inception_v3,
    mobilenet,
    mobilenet_v2,
    mobilenet_v3,
    nasnet,
    resnet,
    resnet50,
    resnet_v2,
    vgg16,
    vgg19,
    xception,
)
from vfw.frontends.tensorflow.keras.applications.convnext import (  # noqa: F401
    ConvNeXtBase,
    ConvNeXtLarge,
    ConvNeXtSmall,
    ConvNeXtTiny,
    ConvNeXtXLarge,
)
from vfw.frontends.tensorflow.keras.applications.densenet import DenseNet121, DenseNet169, DenseNet201  # noqa: F401
from vfw.frontends.tensorflow.keras.applications.efficientnet import (  # noqa: F401
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
from vfw.frontends.tensorflow.keras.applications.efficientnet_v2 import (  # noqa: F401
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2L,
    EfficientNetV2M,
    EfficientNetV2S,
)
from vfw.frontends.tensorflow.keras.applications.inception_resnet_v2 import InceptionResNetV2  # noqa: F401
from vfw.frontends.tensorflow.keras.applications.inception_v3 import InceptionV3  # noqa: F401
from vfw.frontends.tensorflow.keras.applications.mobilenet import MobileNet  # noqa: F401
from vfw.frontends.tensorflow.keras.applications.mobilenet_v2 import MobileNetV2  # noqa: F401
from vfw.frontends.tensorflow.keras.applications.nasnet import NASNetLarge, NASNetMobile  # noqa: F401
from vfw.frontends.tensorflow.keras.applications.resnet import ResNet50, ResNet101, ResNet152  # noqa: F401
from vfw.frontends.tensorflow.keras.applications.resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2  # noqa: F401
from vfw.frontends.tensorflow.keras.applications.vgg16 import VGG16  # noqa: F401
from vfw.frontends.tensorflow.keras.applications.vgg19 import VGG19  # noqa: F401
from vfw.frontends.tensorflow.keras.applications.xception import Xception  # noqa: F401
from vfw.frontends.tensorflow.keras.src.applications.mobilenet_v3 import (  # noqa: F401  (not in its submodule, as Keras)
    MobileNetV3Large,
    MobileNetV3Small,
)
