"""torch's CPU gamma sampler, replayed draw for draw: Marsaglia and Tsang's acceptance-rejection method on the
generator's float64 uniforms and its scalar (cached) Box-Muller normals, one element after another in memory order
(torch runs it as a serial kernel), so that ``Gamma``, ``Beta`` and ``Dirichlet`` give torch's numbers.

The rejection loop of each element consumes a varying number of draws from the one shared stream, so elements
cannot be drawn as a vectorized block.
"""

import math

import numpy as np

from vfw.frontends.torch._random_draws import _LOW53, _scalar_normals, _words64

_F32 = np.float32
_ONE_THIRD = float(_F32(1.0) / _F32(3.0))  # torch writes the constants as float literals (1.0f / 3.0f, 0.0331f)
_SQUEEZE = float(_F32(0.0331))


def _uniform(gen):
    return float(_words64(gen, 1)[0] & _LOW53) * 2.0 ** -53


def _one_gamma(gen, alpha, single):
    """One draw of Gamma(alpha, 1) in float64; ``single``: torch's float32 kernel (alpha arithmetic in float32)."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        exponent = float(_F32(1.0) / _F32(alpha)) if single else 1.0 / alpha
        scale *= math.pow(1.0 - _uniform(gen), exponent)  # boost: Gamma(a) = Gamma(a + 1) * U^(1/a)
        alpha = float(_F32(alpha) + _F32(1.0)) if single else alpha + 1.0
    d = float(_F32(alpha) - _F32(_ONE_THIRD)) if single else alpha - _ONE_THIRD
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = float(_scalar_normals(gen, 1)[0])
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - _uniform(gen)
        xx = x * x
        if u < 1.0 - _SQUEEZE * xx * xx or math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma_draws(gen, alpha):
    """Draws of Gamma(alpha, 1) for a float32/float64 array ``alpha``, as ``torch._standard_gamma`` (dtype of
    ``alpha``, at least the dtype's smallest normal number).  ``torch._sample_dirichlet`` draws its gammas as
    this does for float64 ``alpha``."""
    single = alpha.dtype != np.float64
    flat = alpha.reshape(-1).tolist()
    draws = np.array([_one_gamma(gen, a, single) for a in flat], np.float64).astype(alpha.dtype)
    return np.maximum(draws, np.finfo(alpha.dtype).tiny).reshape(alpha.shape)

