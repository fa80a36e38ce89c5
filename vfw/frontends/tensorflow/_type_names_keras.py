"""Keras 3.15's module and class names for the classes of vfw.tensorflow's keras.

Derived by walking vfw's namespaces beside the real packages' (same public names) and by comparing the types of
the objects common calls return (datasets, iterators, functions, variables, tensors). This table is the source of
truth: :mod:`vfw.frontends.tensorflow._type_names` applies it.
"""

# vfw module (below vfw.frontends.tensorflow.keras) -> {class qualname in vfw: its module in Keras,
# or (module, qualname) where the qualname differs too}.
CLASSES = {
    "src.applications.convnext": {
        "LayerScale": "keras.src.applications.convnext",
    },
    "src.applications.inception_resnet_v2": {
        "CustomScaleLayer": "keras.src.applications.inception_resnet_v2",
    },
    "src.callbacks.callback": {
        "Callback": "keras.src.callbacks.callback",
        "CallbackList": "keras.src.callbacks.callback_list",
    },
    "src.callbacks.checkpoint": {
        "BackupAndRestore": "keras.src.callbacks.backup_and_restore",
        "ModelCheckpoint": "keras.src.callbacks.model_checkpoint",
    },
    "src.callbacks.history": {
        "History": "keras.src.callbacks.history",
        "ProgbarLogger": "keras.src.callbacks.progbar_logger",
    },
    "src.callbacks.loggers": {
        "CSVLogger": "keras.src.callbacks.csv_logger",
        "TensorBoard": "keras.src.callbacks.tensorboard",
    },
    "src.callbacks.monitor": {
        "EarlyStopping": "keras.src.callbacks.early_stopping",
        "ReduceLROnPlateau": "keras.src.callbacks.reduce_lr_on_plateau",
    },
    "src.callbacks.remote_monitor": {
        "RemoteMonitor": "keras.src.callbacks.remote_monitor",
    },
    "src.callbacks.training_control": {
        "LambdaCallback": "keras.src.callbacks.lambda_callback",
        "LearningRateScheduler": "keras.src.callbacks.learning_rate_scheduler",
        "SwapEMAWeights": "keras.src.callbacks.swap_ema_weights",
        "TerminateOnNaN": "keras.src.callbacks.terminate_on_nan",
    },
    "src.constraints": {
        "Constraint": "keras.src.constraints.constraints",
        "MaxNorm": "keras.src.constraints.constraints",
        "MinMaxNorm": "keras.src.constraints.constraints",
        "NonNeg": "keras.src.constraints.constraints",
        "UnitNorm": "keras.src.constraints.constraints",
    },
    "src.distillation.distillation_loss": {
        "DistillationLoss": "keras.src.distillation.distillation_loss",
        "FeatureDistillation": "keras.src.distillation.distillation_loss",
        "LogitsDistillation": "keras.src.distillation.distillation_loss",
    },
    "src.distillation.distiller": {
        "Distiller": "keras.src.distillation.distiller",
    },
    "src.engine.dtype_policy": {
        "DTypePolicy": "keras.src.dtype_policies.dtype_policy",
        "FloatDTypePolicy": "keras.src.dtype_policies.dtype_policy",
    },
    "src.engine.dtype_policy_quantized": {
        "AWQDTypePolicy": "keras.src.dtype_policies.dtype_policy",
        "DTypePolicyMap": "keras.src.dtype_policies.dtype_policy_map",
        "GPTQDTypePolicy": "keras.src.dtype_policies.dtype_policy",
        "Int4DTypePolicy": "keras.src.dtype_policies.dtype_policy",
        "QuantizedDTypePolicy": "keras.src.dtype_policies.dtype_policy",
        "QuantizedFloat8DTypePolicy": "keras.src.dtype_policies.dtype_policy",
    },
    "src.engine.function": {
        "Function": "keras.src.ops.function",
    },
    "src.engine.input_layer": {
        "InputLayer": "keras.src.layers.core.input_layer",
    },
    "src.engine.input_spec": {
        "InputSpec": "keras.src.layers.input_spec",
    },
    "src.engine.keras_tensor": {
        "KerasTensor": "keras.src.backend.common.keras_tensor",
    },
    "src.engine.layer": {
        "Layer": "keras.src.layers.layer",
    },
    "src.engine.model": {
        "Model": "keras.src.models.model",
    },
    "src.engine.naming": {
        "name_scope": "keras.src.backend",
    },
    "src.engine.operation": {
        "Operation": "keras.src.ops.operation",
    },
    "src.engine.sequential": {
        "Sequential": "keras.src.models.sequential",
    },
    "src.engine.variables": {
        "StatelessScope": "keras.src.backend.common.stateless_scope",
        "SymbolicScope": "keras.src.backend.common.symbolic_scope",
        "Variable": "keras.src.backend",
    },
    "src.export.archive": {
        "ExportArchive": "keras.src.export.saved_model",
    },
    "src.export.tfsm_layer": {
        "TFSMLayer": "keras.src.export.tfsm_layer",
    },
    "src.initializers.base": {
        "Initializer": "keras.src.initializers.initializer",
    },
    "src.initializers.constant_initializers": {
        "Constant": "keras.src.initializers.constant_initializers",
        "Identity": "keras.src.initializers.constant_initializers",
        "Ones": "keras.src.initializers.constant_initializers",
        "STFT": "keras.src.initializers.constant_initializers",
        "Zeros": "keras.src.initializers.constant_initializers",
    },
    "src.initializers.random_initializers": {
        "GlorotNormal": "keras.src.initializers.random_initializers",
        "GlorotUniform": "keras.src.initializers.random_initializers",
        "HeNormal": "keras.src.initializers.random_initializers",
        "HeUniform": "keras.src.initializers.random_initializers",
        "LecunNormal": "keras.src.initializers.random_initializers",
        "LecunUniform": "keras.src.initializers.random_initializers",
        "Orthogonal": "keras.src.initializers.random_initializers",
        "RandomInitializer": "keras.src.initializers.random_initializers",
        "RandomNormal": "keras.src.initializers.random_initializers",
        "RandomUniform": "keras.src.initializers.random_initializers",
        "TruncatedNormal": "keras.src.initializers.random_initializers",
        "VarianceScaling": "keras.src.initializers.random_initializers",
    },
    "src.layers.activations": {
        "Activation": "keras.src.layers.activations.activation",
        "ELU": "keras.src.layers.activations.elu",
        "LeakyReLU": "keras.src.layers.activations.leaky_relu",
        "PReLU": "keras.src.layers.activations.prelu",
        "ReLU": "keras.src.layers.activations.relu",
        "Softmax": "keras.src.layers.activations.softmax",
    },
    "src.layers.attention": {
        "AdditiveAttention": "keras.src.layers.attention.additive_attention",
        "Attention": "keras.src.layers.attention.attention",
    },
    "src.layers.convolutional": {
        "Conv1D": "keras.src.layers.convolutional.conv1d",
        "Conv1DTranspose": "keras.src.layers.convolutional.conv1d_transpose",
        "Conv2D": "keras.src.layers.convolutional.conv2d",
        "Conv2DTranspose": "keras.src.layers.convolutional.conv2d_transpose",
        "Conv3D": "keras.src.layers.convolutional.conv3d",
        "Conv3DTranspose": "keras.src.layers.convolutional.conv3d_transpose",
    },
    "src.layers.convolutional_depthwise": {
        "DepthwiseConv1D": "keras.src.layers.convolutional.depthwise_conv1d",
        "DepthwiseConv2D": "keras.src.layers.convolutional.depthwise_conv2d",
        "SeparableConv1D": "keras.src.layers.convolutional.separable_conv1d",
        "SeparableConv2D": "keras.src.layers.convolutional.separable_conv2d",
    },
    "src.layers.core": {
        "Dense": "keras.src.layers.core.dense",
        "EinsumDense": "keras.src.layers.core.einsum_dense",
        "Embedding": "keras.src.layers.core.embedding",
        "Identity": "keras.src.layers.core.identity",
        "Lambda": "keras.src.layers.core.lambda_layer",
        "Masking": "keras.src.layers.core.masking",
    },
    "src.layers.grouped_query_attention": {
        "GroupedQueryAttention": "keras.src.layers.attention.grouped_query_attention",
    },
    "src.layers.merging": {
        "Add": "keras.src.layers.merging.add",
        "Average": "keras.src.layers.merging.average",
        "Concatenate": "keras.src.layers.merging.concatenate",
        "Dot": "keras.src.layers.merging.dot",
        "Maximum": "keras.src.layers.merging.maximum",
        "Minimum": "keras.src.layers.merging.minimum",
        "Multiply": "keras.src.layers.merging.multiply",
        "Subtract": "keras.src.layers.merging.subtract",
    },
    "src.layers.multi_head_attention": {
        "MultiHeadAttention": "keras.src.layers.attention.multi_head_attention",
    },
    "src.layers.normalization": {
        "BatchNormalization": "keras.src.layers.normalization.batch_normalization",
        "GroupNormalization": "keras.src.layers.normalization.group_normalization",
        "LayerNormalization": "keras.src.layers.normalization.layer_normalization",
        "RMSNormalization": "keras.src.layers.normalization.rms_normalization",
        "UnitNormalization": "keras.src.layers.normalization.unit_normalization",
    },
    "src.layers.pooling": {
        "AdaptiveAveragePooling1D": "keras.src.layers.pooling.adaptive_average_pooling1d",
        "AdaptiveAveragePooling2D": "keras.src.layers.pooling.adaptive_average_pooling2d",
        "AdaptiveAveragePooling3D": "keras.src.layers.pooling.adaptive_average_pooling3d",
        "AdaptiveMaxPooling1D": "keras.src.layers.pooling.adaptive_max_pooling1d",
        "AdaptiveMaxPooling2D": "keras.src.layers.pooling.adaptive_max_pooling2d",
        "AdaptiveMaxPooling3D": "keras.src.layers.pooling.adaptive_max_pooling3d",
        "AveragePooling1D": "keras.src.layers.pooling.average_pooling1d",
        "AveragePooling2D": "keras.src.layers.pooling.average_pooling2d",
        "AveragePooling3D": "keras.src.layers.pooling.average_pooling3d",
        "GlobalAveragePooling1D": "keras.src.layers.pooling.global_average_pooling1d",
        "GlobalAveragePooling2D": "keras.src.layers.pooling.global_average_pooling2d",
        "GlobalAveragePooling3D": "keras.src.layers.pooling.global_average_pooling3d",
        "GlobalMaxPooling1D": "keras.src.layers.pooling.global_max_pooling1d",
        "GlobalMaxPooling2D": "keras.src.layers.pooling.global_max_pooling2d",
        "GlobalMaxPooling3D": "keras.src.layers.pooling.global_max_pooling3d",
        "MaxPooling1D": "keras.src.layers.pooling.max_pooling1d",
        "MaxPooling2D": "keras.src.layers.pooling.max_pooling2d",
        "MaxPooling3D": "keras.src.layers.pooling.max_pooling3d",
    },
    "src.layers.preprocessing": {
        "CategoryEncoding": "keras.src.layers.preprocessing.category_encoding",
        "Discretization": "keras.src.layers.preprocessing.discretization",
        "Normalization": "keras.src.layers.preprocessing.normalization",
        "Rescaling": "keras.src.layers.preprocessing.rescaling",
    },
    "src.layers.preprocessing_audio": {
        "MelSpectrogram": "keras.src.layers.preprocessing.mel_spectrogram",
        "STFTSpectrogram": "keras.src.layers.preprocessing.stft_spectrogram",
    },
    "src.layers.preprocessing_hashing": {
        "HashedCrossing": "keras.src.layers.preprocessing.hashed_crossing",
        "Hashing": "keras.src.layers.preprocessing.hashing",
    },
    "src.layers.preprocessing_image": {
        "CenterCrop": "keras.src.layers.preprocessing.image_preprocessing.center_crop",
        "RandomBrightness": "keras.src.layers.preprocessing.image_preprocessing.random_brightness",
        "RandomContrast": "keras.src.layers.preprocessing.image_preprocessing.random_contrast",
        "RandomCrop": "keras.src.layers.preprocessing.image_preprocessing.random_crop",
        "RandomFlip": "keras.src.layers.preprocessing.image_preprocessing.random_flip",
        "RandomRotation": "keras.src.layers.preprocessing.image_preprocessing.random_rotation",
        "RandomTranslation": "keras.src.layers.preprocessing.image_preprocessing.random_translation",
        "RandomZoom": "keras.src.layers.preprocessing.image_preprocessing.random_zoom",
        "Resizing": "keras.src.layers.preprocessing.image_preprocessing.resizing",
    },
    "src.layers.preprocessing_image_blur": {
        "RandomGaussianBlur": "keras.src.layers.preprocessing.image_preprocessing.random_gaussian_blur",
    },
    "src.layers.preprocessing_image_color": {
        "AutoContrast": "keras.src.layers.preprocessing.image_preprocessing.auto_contrast",
        "Equalization": "keras.src.layers.preprocessing.image_preprocessing.equalization",
        "RandomGrayscale": "keras.src.layers.preprocessing.image_preprocessing.random_grayscale",
        "RandomInvert": "keras.src.layers.preprocessing.image_preprocessing.random_invert",
        "RandomPosterization": "keras.src.layers.preprocessing.image_preprocessing.random_posterization",
        "RandomSharpness": "keras.src.layers.preprocessing.image_preprocessing.random_sharpness",
        "Solarization": "keras.src.layers.preprocessing.image_preprocessing.solarization",
    },
    "src.layers.preprocessing_image_geometry": {
        "RandomPerspective": "keras.src.layers.preprocessing.image_preprocessing.random_perspective",
        "RandomShear": "keras.src.layers.preprocessing.image_preprocessing.random_shear",
    },
    "src.layers.preprocessing_image_hsv": {
        "RandomColorDegeneration": "keras.src.layers.preprocessing.image_preprocessing.random_color_degeneration",
        "RandomColorJitter": "keras.src.layers.preprocessing.image_preprocessing.random_color_jitter",
        "RandomHue": "keras.src.layers.preprocessing.image_preprocessing.random_hue",
        "RandomSaturation": "keras.src.layers.preprocessing.image_preprocessing.random_saturation",
    },
    "src.layers.preprocessing_image_local": {
        "ContrastLimitedAdaptiveHistogramEqualization": "keras.src.layers.preprocessing.image_preprocessing.clahe",
        "RandomElasticTransform": "keras.src.layers.preprocessing.image_preprocessing.random_elastic_transform",
    },
    "src.layers.preprocessing_image_mix": {
        "CutMix": "keras.src.layers.preprocessing.image_preprocessing.cut_mix",
        "MixUp": "keras.src.layers.preprocessing.image_preprocessing.mix_up",
        "RandomErasing": "keras.src.layers.preprocessing.image_preprocessing.random_erasing",
    },
    "src.layers.preprocessing_lookup": {
        "IntegerLookup": "keras.src.layers.preprocessing.integer_lookup",
        "StringLookup": "keras.src.layers.preprocessing.string_lookup",
    },
    "src.layers.preprocessing_pipeline": {
        "AugMix": "keras.src.layers.preprocessing.image_preprocessing.aug_mix",
        "MaxNumBoundingBoxes": "keras.src.layers.preprocessing.image_preprocessing.max_num_bounding_box",
        "Pipeline": "keras.src.layers.preprocessing.pipeline",
        "RandAugment": "keras.src.layers.preprocessing.image_preprocessing.rand_augment",
    },
    "src.layers.preprocessing_text": {
        "TextVectorization": "keras.src.layers.preprocessing.text_vectorization",
    },
    "src.layers.regularization": {
        "ActivityRegularization": "keras.src.layers.regularization.activity_regularization",
        "AlphaDropout": "keras.src.layers.regularization.alpha_dropout",
        "Dropout": "keras.src.layers.regularization.dropout",
        "GaussianDropout": "keras.src.layers.regularization.gaussian_dropout",
        "GaussianNoise": "keras.src.layers.regularization.gaussian_noise",
        "SpatialDropout1D": "keras.src.layers.regularization.spatial_dropout",
        "SpatialDropout2D": "keras.src.layers.regularization.spatial_dropout",
        "SpatialDropout3D": "keras.src.layers.regularization.spatial_dropout",
    },
    "src.layers.reshaping": {
        "Cropping1D": "keras.src.layers.reshaping.cropping1d",
        "Cropping2D": "keras.src.layers.reshaping.cropping2d",
        "Cropping3D": "keras.src.layers.reshaping.cropping3d",
        "Flatten": "keras.src.layers.reshaping.flatten",
        "Permute": "keras.src.layers.reshaping.permute",
        "RepeatVector": "keras.src.layers.reshaping.repeat_vector",
        "Reshape": "keras.src.layers.reshaping.reshape",
        "ZeroPadding1D": "keras.src.layers.reshaping.zero_padding1d",
        "ZeroPadding2D": "keras.src.layers.reshaping.zero_padding2d",
        "ZeroPadding3D": "keras.src.layers.reshaping.zero_padding3d",
    },
    "src.layers.reversible_embedding": {
        "ReversibleEmbedding": "keras.src.layers.core.reversible_embedding",
    },
    "src.layers.rnn.base": {
        "DropoutRNNCell": "keras.src.layers.rnn.dropout_rnn_cell",
        "RNN": "keras.src.layers.rnn.rnn",
        "StackedRNNCells": "keras.src.layers.rnn.stacked_rnn_cells",
    },
    "src.layers.rnn.cells": {
        "GRUCell": "keras.src.layers.rnn.gru",
        "LSTMCell": "keras.src.layers.rnn.lstm",
        "SimpleRNNCell": "keras.src.layers.rnn.simple_rnn",
    },
    "src.layers.rnn.conv_lstm": {
        "ConvLSTM": "keras.src.layers.rnn.conv_lstm",
        "ConvLSTM1D": "keras.src.layers.rnn.conv_lstm1d",
        "ConvLSTM2D": "keras.src.layers.rnn.conv_lstm2d",
        "ConvLSTM3D": "keras.src.layers.rnn.conv_lstm3d",
        "ConvLSTMCell": "keras.src.layers.rnn.conv_lstm",
    },
    "src.layers.rnn.recurrent": {
        "GRU": "keras.src.layers.rnn.gru",
        "LSTM": "keras.src.layers.rnn.lstm",
        "SimpleRNN": "keras.src.layers.rnn.simple_rnn",
    },
    "src.layers.rnn.wrappers": {
        "Bidirectional": "keras.src.layers.rnn.bidirectional",
        "TimeDistributed": "keras.src.layers.rnn.time_distributed",
        "Wrapper": "keras.src.layers.core.wrapper",
    },
    "src.layers.spectral_normalization": {
        "SpectralNormalization": "keras.src.layers.normalization.spectral_normalization",
    },
    "src.layers.upsampling": {
        "UpSampling1D": "keras.src.layers.reshaping.up_sampling1d",
        "UpSampling2D": "keras.src.layers.reshaping.up_sampling2d",
        "UpSampling3D": "keras.src.layers.reshaping.up_sampling3d",
    },
    "src.legacy.layers": {
        "RandomHeight": "keras.src.legacy.layers",
        "RandomWidth": "keras.src.legacy.layers",
        "ThresholdedReLU": "keras.src.legacy.layers",
    },
    "src.losses.loss": {
        "Loss": "keras.src.losses.loss",
    },
    "src.losses.losses": {
        "BinaryCrossentropy": "keras.src.losses.losses",
        "BinaryFocalCrossentropy": "keras.src.losses.losses",
        "CTC": "keras.src.losses.losses",
        "CategoricalCrossentropy": "keras.src.losses.losses",
        "CategoricalFocalCrossentropy": "keras.src.losses.losses",
        "CategoricalGeneralizedCrossEntropy": "keras.src.losses.losses",
        "CategoricalHinge": "keras.src.losses.losses",
        "Circle": "keras.src.losses.losses",
        "CosineSimilarity": "keras.src.losses.losses",
        "Dice": "keras.src.losses.losses",
        "Hinge": "keras.src.losses.losses",
        "Huber": "keras.src.losses.losses",
        "KLDivergence": "keras.src.losses.losses",
        "LogCosh": "keras.src.losses.losses",
        "LossFunctionWrapper": "keras.src.losses.losses",
        "MeanAbsoluteError": "keras.src.losses.losses",
        "MeanAbsolutePercentageError": "keras.src.losses.losses",
        "MeanSquaredError": "keras.src.losses.losses",
        "MeanSquaredLogarithmicError": "keras.src.losses.losses",
        "Poisson": "keras.src.losses.losses",
        "SparseCategoricalCrossentropy": "keras.src.losses.losses",
        "SquaredHinge": "keras.src.losses.losses",
        "Tversky": "keras.src.losses.losses",
    },
    "src.metrics.accuracy": {
        "Accuracy": "keras.src.metrics.accuracy_metrics",
        "BinaryAccuracy": "keras.src.metrics.accuracy_metrics",
        "CategoricalAccuracy": "keras.src.metrics.accuracy_metrics",
        "SparseCategoricalAccuracy": "keras.src.metrics.accuracy_metrics",
        "SparseTopKCategoricalAccuracy": "keras.src.metrics.accuracy_metrics",
        "TopKCategoricalAccuracy": "keras.src.metrics.accuracy_metrics",
    },
    "src.metrics.auc": {
        "AUC": "keras.src.metrics.confusion_metrics",
    },
    "src.metrics.confusion": {
        "FalseNegatives": "keras.src.metrics.confusion_metrics",
        "FalsePositives": "keras.src.metrics.confusion_metrics",
        "Precision": "keras.src.metrics.confusion_metrics",
        "PrecisionAtRecall": "keras.src.metrics.confusion_metrics",
        "Recall": "keras.src.metrics.confusion_metrics",
        "RecallAtPrecision": "keras.src.metrics.confusion_metrics",
        "SensitivityAtSpecificity": "keras.src.metrics.confusion_metrics",
        "SpecificityAtSensitivity": "keras.src.metrics.confusion_metrics",
        "TrueNegatives": "keras.src.metrics.confusion_metrics",
        "TruePositives": "keras.src.metrics.confusion_metrics",
    },
    "src.metrics.f_score": {
        "F1Score": "keras.src.metrics.f_score_metrics",
        "FBetaScore": "keras.src.metrics.f_score_metrics",
    },
    "src.metrics.iou": {
        "BinaryIoU": "keras.src.metrics.iou_metrics",
        "IoU": "keras.src.metrics.iou_metrics",
        "MeanIoU": "keras.src.metrics.iou_metrics",
        "OneHotIoU": "keras.src.metrics.iou_metrics",
        "OneHotMeanIoU": "keras.src.metrics.iou_metrics",
    },
    "src.metrics.metric": {
        "Metric": "keras.src.metrics.metric",
    },
    "src.metrics.probabilistic": {
        "BinaryCrossentropy": "keras.src.metrics.probabilistic_metrics",
        "CategoricalCrossentropy": "keras.src.metrics.probabilistic_metrics",
        "CategoricalHinge": "keras.src.metrics.hinge_metrics",
        "Hinge": "keras.src.metrics.hinge_metrics",
        "KLDivergence": "keras.src.metrics.probabilistic_metrics",
        "Poisson": "keras.src.metrics.probabilistic_metrics",
        "SparseCategoricalCrossentropy": "keras.src.metrics.probabilistic_metrics",
        "SquaredHinge": "keras.src.metrics.hinge_metrics",
    },
    "src.metrics.reduction": {
        "Mean": "keras.src.metrics.reduction_metrics",
        "MeanMetricWrapper": "keras.src.metrics.reduction_metrics",
        "Sum": "keras.src.metrics.reduction_metrics",
    },
    "src.metrics.regression": {
        "ConcordanceCorrelation": "keras.src.metrics.correlation_metrics",
        "CosineSimilarity": "keras.src.metrics.regression_metrics",
        "LogCoshError": "keras.src.metrics.regression_metrics",
        "MeanAbsoluteError": "keras.src.metrics.regression_metrics",
        "MeanAbsolutePercentageError": "keras.src.metrics.regression_metrics",
        "MeanSquaredError": "keras.src.metrics.regression_metrics",
        "MeanSquaredLogarithmicError": "keras.src.metrics.regression_metrics",
        "PearsonCorrelation": "keras.src.metrics.correlation_metrics",
        "R2Score": "keras.src.metrics.regression_metrics",
        "RootMeanSquaredError": "keras.src.metrics.regression_metrics",
    },
    "src.optimizers.adadelta": {
        "Adadelta": "keras.src.optimizers.adadelta",
    },
    "src.optimizers.adafactor": {
        "Adafactor": "keras.src.optimizers.adafactor",
    },
    "src.optimizers.adagrad": {
        "Adagrad": "keras.src.optimizers.adagrad",
    },
    "src.optimizers.adam": {
        "Adam": "keras.src.optimizers.adam",
        "AdamW": "keras.src.optimizers.adamw",
    },
    "src.optimizers.adamax": {
        "Adamax": "keras.src.optimizers.adamax",
    },
    "src.optimizers.base_optimizer": {
        "Optimizer": "keras.src.optimizers.optimizer",
    },
    "src.optimizers.ftrl": {
        "Ftrl": "keras.src.optimizers.ftrl",
    },
    "src.optimizers.lamb": {
        "Lamb": "keras.src.optimizers.lamb",
    },
    "src.optimizers.lion": {
        "Lion": "keras.src.optimizers.lion",
    },
    "src.optimizers.loss_scale_optimizer": {
        "LossScaleOptimizer": "keras.src.optimizers.loss_scale_optimizer",
    },
    "src.optimizers.multi_optimizer": {
        "MultiOptimizer": "keras.src.optimizers.multi_optimizer",
        "OptimizerMap": "keras.src.optimizers.multi_optimizer",
    },
    "src.optimizers.muon": {
        "Muon": "keras.src.optimizers.muon",
    },
    "src.optimizers.nadam": {
        "Nadam": "keras.src.optimizers.nadam",
    },
    "src.optimizers.rmsprop": {
        "RMSprop": "keras.src.optimizers.rmsprop",
    },
    "src.optimizers.schedule_free_adamw": {
        "ScheduleFreeAdamW": "keras.src.optimizers.schedule_free_adamw",
    },
    "src.optimizers.schedules": {
        "CosineDecay": "keras.src.optimizers.schedules.learning_rate_schedule",
        "CosineDecayRestarts": "keras.src.optimizers.schedules.learning_rate_schedule",
        "ExponentialDecay": "keras.src.optimizers.schedules.learning_rate_schedule",
        "InverseTimeDecay": "keras.src.optimizers.schedules.learning_rate_schedule",
        "LearningRateSchedule": "keras.src.optimizers.schedules.learning_rate_schedule",
        "PiecewiseConstantDecay": "keras.src.optimizers.schedules.learning_rate_schedule",
        "PolynomialDecay": "keras.src.optimizers.schedules.learning_rate_schedule",
    },
    "src.optimizers.sgd": {
        "SGD": "keras.src.optimizers.sgd",
    },
    "src.quantizers": {
        "AbsMaxQuantizer": "keras.src.quantizers.quantizers",
        "Float8QuantizationConfig": "keras.src.quantizers.quantization_config",
        "Int4QuantizationConfig": "keras.src.quantizers.quantization_config",
        "Int8QuantizationConfig": "keras.src.quantizers.quantization_config",
        "QuantizationConfig": "keras.src.quantizers.quantization_config",
        "Quantizer": "keras.src.quantizers.quantizers",
    },
    "src.random": {
        "SeedGenerator": "keras.src.random.seed_generator",
    },
    "src.regularizers": {
        "L1": "keras.src.regularizers.regularizers",
        "L1L2": "keras.src.regularizers.regularizers",
        "L2": "keras.src.regularizers.regularizers",
        "OrthogonalRegularizer": "keras.src.regularizers.regularizers",
        "Regularizer": "keras.src.regularizers.regularizers",
    },
    "src.remat": {
        "RematScope": "keras.src.backend.common.remat",
    },
    "src.tree": {
        "MAP_TO_NONE": "keras.src.tree.tree_api",
    },
    "src.utils.config": {
        "Config": "keras.src.utils.config",
    },
    "src.utils.data": {
        "PyDataset": "keras.src.trainers.data_adapters.py_dataset_adapter",
    },
    "src.utils.feature_space": {
        "FeatureSpace": "keras.src.layers.preprocessing.feature_space",
    },
    "src.utils.object_registration": {
        "CustomObjectScope": "keras.src.saving.object_registration",
    },
    "src.utils.progbar": {
        "Progbar": "keras.src.utils.progbar",
    },
}
