"""``torch.nn.utils.parametrizations``: ``weight_norm`` (``original0`` the magnitude, ``original1`` the direction),
``orthogonal`` (matrix exponential, Cayley or Householder maps, optionally on a stored orthogonal ``base``) and the
new-style ``spectral_norm`` (power-iteration vectors in the buffers ``_u`` and ``_v``) as parametrizations."""

import vfw.frontends.torch as torch
from vfw.frontends.torch.nn.functional import normalize
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.utils import parametrize
from vfw.frontends.torch.nn.utils.weight_norm import _norm_except_dim

__all__ = ["weight_norm", "orthogonal", "spectral_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Parametrize ``module.<name>`` as ``g * v / ||v||`` (the norm over all dims but ``dim``; None: whole).

    Returns
    -------
    Module
        ``module``.
    """
    return parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)


_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _positive_qr_q(A):
    """The Q factor of ``A``'s QR decomposition whose R has a non-negative diagonal (so unique when A is full rank)."""
    Q, R = torch.linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    eye = torch.eye(k, dtype=Q.dtype)
    return torch.allclose(Q.mH @ Q, eye, atol=10 * n * torch.finfo(Q.dtype).eps)


class _Orthogonal(Module):
    """Maps an unconstrained ``(..., n, k)`` tensor to one with orthonormal columns (rows when ``n < k``)."""

    def __init__(self, weight, orthogonal_map, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def _tall(self, X):
        """``X`` as a tall matrix and whether it was transposed."""
        return (X.mT, True) if X.shape[-2] < X.shape[-1] else (X, False)

    def forward(self, X):
        X, transposed = self._tall(X)
        n, k = X.shape[-2], X.shape[-1]
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:  # the skew-symmetric generator of an n x n rotation, of which the first k columns are kept
                X = torch.cat([X, X.new_zeros(X.shape[:-1] + (n - k,))], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == "matrix_exp":
                Q = torch.matrix_exp(A)
            else:
                eye = torch.eye(n, dtype=A.dtype)
                Q = torch.linalg.solve(eye - A / 2, eye + A / 2)  # the Cayley transform
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = torch.linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)  # signs carried by the diagonal
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        """Originals giving ``Q``: with a base, ``Q`` (completed and made orthogonal) becomes the base and the
        original ``-I``; Householder without a base stores ``Q``'s reflectors."""
        with torch.no_grad():
            if tuple(Q.shape) != tuple(self.shape):
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            given = Q
            Q, transposed = self._tall(Q)
            n, k = Q.shape[-2], Q.shape[-1]
            if not hasattr(self, "base"):
                if self.orthogonal_map != "householder":
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                              "parametrizations when use_trivialization=False.")
                reflectors, tau = torch.geqrf(Q)
                # Diagonal signs chosen so that the forward map's reflectors and signs rebuild Q.
                signs = reflectors.diagonal(dim1=-2, dim2=-1).sign()
                signs = torch.where(tau == 0, -signs, signs)
                reflectors = reflectors.tril(diagonal=-1)
                reflectors.diagonal(dim1=-2, dim2=-1).copy_(signs)
                return reflectors.mT if transposed else reflectors
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _positive_qr_q(Q)
            else:
                completion = torch.randn(Q.shape[:-2] + (n, n - k), dtype=Q.dtype)
                Q = _positive_qr_q(torch.cat([Q, completion], dim=-1))
            self.base = Q
            minus_identity = torch.zeros_like(given)
            minus_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return minus_identity



def _tensor_attribute(module, name):
    """``module``'s parameter or buffer ``name`` (torch's ValueError when it has none)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, torch.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    return weight


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrize ``module.<name>`` (a matrix or batch of matrices) to have orthonormal columns (or rows).

    Parameters
    ----------
    module : Module
    name : str
    orthogonal_map : str, optional
        ``"matrix_exp"``, ``"cayley"`` or ``"householder"`` (default: ``matrix_exp`` for square or complex
        matrices, else ``householder``).
    use_trivialization : bool
        Apply the map around a stored orthogonal ``base`` (assignment then sets the base).

    Returns
    -------
    Module
        ``module``.
    """
    weight = _tensor_attribute(module, name)
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrization = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    return parametrize.register_parametrization(module, name, parametrization, unsafe=True)


class _SpectralNorm(Module):
    """Divides a weight by its largest singular value, estimated by power iteration (``_u``, ``_v`` buffers),
    over the weight flattened to ``(size(dim), -1)``."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if not -ndim <= dim < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got "
                             f"{dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim % ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = self._as_matrix(weight)
            rows, cols = matrix.shape
            u = matrix.new_empty(rows).normal_(0, 1)
            v = matrix.new_empty(cols).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(matrix, 15)  # start from a converged estimate

    def _as_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, matrix, iterations):
        """Advance the singular-vector estimates in place (the buffers keep their identity)."""
        with torch.no_grad():
            for _ in range(iterations):
                self._u.copy_(normalize(torch.mv(matrix, self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(torch.mv(matrix.mH, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return normalize(weight, dim=0, eps=self.eps)
        matrix = self._as_matrix(weight)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        sigma = torch.vdot(self._u.clone(), torch.mv(matrix, self._v.clone()))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrize ``module.<name>`` as itself over its spectral norm (estimated by power iteration; the
    estimate advances only in training mode).

    Parameters
    ----------
    module : Module
    name : str
    n_power_iterations : int
        Power iterations per forward in training mode.
    eps : float
        Floor of the norms when normalizing.
    dim : int, optional
        The output dim (default 1 for transposed convolutions, else 0).

    Returns
    -------
    Module
        ``module``.
    """
    weight = _tensor_attribute(module, name)
    if dim is None:
        transposed = (torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d, torch.nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    parametrization = _SpectralNorm(weight, n_power_iterations, dim, eps)
    return parametrize.register_parametrization(module, name, parametrization)
