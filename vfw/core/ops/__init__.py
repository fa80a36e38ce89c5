"""Engine op families: each module registers its ops (schema, kernel, inference) on import."""

import warnings

# Kernels compute IEEE results (inf/nan) like the real frameworks, which print
# nothing; numpy's floating-point warnings from kernel lines would only be noise.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"vfw\.")

from vfw.core.ops import (  # noqa: E402,F401  (imported for their registrations)
    activations,
    arithmetic,
    conv,
    creation,
    indexing,
    linalg,
    linalg_decomp,
    logic,
    loss,
    math,
    normalization,
    pool,
    random,
    reduction,
    resize,
    rnn,
    scan_sort,
    shape,
    special_math,
)
