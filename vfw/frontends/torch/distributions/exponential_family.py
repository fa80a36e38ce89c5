"""``ExponentialFamily``: distributions with densities ``h(x) exp(<eta, T(x)> - A(eta))``."""

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions.distribution import Distribution


class ExponentialFamily(Distribution):
    """A distribution of an exponential family.

    Subclasses may give ``_natural_params`` (the ``eta`` tensors), ``_log_normalizer(*eta)`` (``A``) and
    ``_mean_carrier_measure`` (``E[log h(X)]``); :meth:`entropy` then follows from them.
    """

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """``A(eta) - <eta, grad A(eta)> - E[log h(X)]``, with ``grad A`` (the mean of ``T(X)``) by autograd."""
        result = -self._mean_carrier_measure
        natural = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*natural)
        gradients = torch.autograd.grad(log_normalizer.sum(), natural, create_graph=True)
        result = result + log_normalizer
        for param, gradient in zip(natural, gradients):
            result = result - (param * gradient).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
