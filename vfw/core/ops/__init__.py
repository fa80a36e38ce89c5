"""Engine op families: each module registers its ops (schema, kernel, inference) on import."""

import warnings

# Kernels compute IEEE results (inf/nan) like the real frameworks, which print
# nothing; numpy's floating-point warnings from kernel lines would only be noise.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"vfw\.")

from vfw.core.ops import (  # noqa: E402,F401  (imported for their registrations)
    activations,
    arithmetic,
    batch_norm_grad,
    binary_cross_entropy,
    callback,
    control_flow,
    conv,
    conv_channels_last,
    creation,
    ctc,
    embedding,
    gelu_grad,
    grid_sample,
    indexing,
    layer_norm_grad,
    linalg,
    linalg_decomp,
    logic,
    loss,
    loss_grad,
    math,
    normalization,
    pool,
    pool_channels_last,
    random,
    reduction,
    resize,
    rms_normalization,
    rnn,
    rnn_bptt,
    rnn_train,
    scan_sort,
    shape,
    softmax_grad,
    special_math,
    vision,
)
