"""``biject_to`` and ``transform_to``: registries from constraints to transforms that map unconstrained reals
onto them (``biject_to``'s bijectively, ``transform_to``'s not necessarily), extended with ``register``.

Entries are looked up by the kind of constraint, as torch's are by its class: ``biject_to(greater_than(2.0))``
and ``biject_to(positive)`` use the same entry.
"""

import numbers

from vfw.frontends.torch.distributions import constraints, transforms
from vfw.frontends.torch.distributions.transforms_structured import (
    CatTransform,
    CorrCholeskyTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    StackTransform,
)

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]

def _kind(constraint):
    """The registry key of a constraint or a constraint class: its class."""
    if isinstance(constraint, type):
        if not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got "
                            f"{constraint}")
        return constraint
    if isinstance(constraint, constraints.Constraint):
        return type(constraint)
    raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got {constraint}")


def _kind_name(constraint):
    return _kind(constraint).__name__


class ConstraintRegistry:
    """A map from kinds of constraints to functions ``factory(constraint) -> Transform``."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """Register ``factory`` for the kind of ``constraint``; without ``factory``, a decorator.

        Parameters
        ----------
        constraint : Constraint, Constraint subclass or constraint factory
            The constraint (or kind of constraint) the factory handles.
        factory : callable, optional
            ``factory(constraint)`` returns the transform.
        """
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        self._registry[_kind(constraint)] = factory
        return factory

    def __call__(self, constraint):
        """Transform: the registered transform for ``constraint``.

        Raises
        ------
        NotImplementedError
            When no factory is registered for its kind.
        """
        factory = self._registry.get(_kind(constraint))
        if factory is None:
            raise NotImplementedError(f"Cannot transform {_kind_name(constraint)} constraints")
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _register_both(*kinds):
    def decorate(factory):
        for kind in kinds:
            biject_to.register(kind, factory)
            transform_to.register(kind, factory)
        return factory
    return decorate


@_register_both(constraints.real)
def _to_real(constraint):
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint):
    return IndependentTransform(biject_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint):
    return IndependentTransform(transform_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims)


@_register_both(constraints.greater_than, constraints.greater_than_eq)  # positive and nonnegative among them
def _to_greater_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_register_both(constraints.less_than)
def _to_less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@_register_both(constraints.interval, constraints.half_open_interval)
def _to_interval(constraint):
    lower, upper = constraint.lower_bound, constraint.upper_bound
    if isinstance(lower, numbers.Number) and lower == 0 and isinstance(upper, numbers.Number) and upper == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(lower, upper - lower)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint):
    return LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint):
    return PositiveDefiniteTransform()


@_register_both(constraints.corr_cholesky)
def _to_corr_cholesky(constraint):
    return CorrCholeskyTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint):
    return CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim, constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint):
    return CatTransform([transform_to(c) for c in constraint.cseq], constraint.dim, constraint.lengths)


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint):
    return StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint):
    return StackTransform([transform_to(c) for c in constraint.cseq], constraint.dim)
