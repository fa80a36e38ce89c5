"""The strong Wolfe line search of ``torch.optim.LBFGS(line_search_fn="strong_wolfe")``.

A bracketing phase grows the step until it brackets a point meeting the strong Wolfe conditions, then a zoom
phase shrinks the bracket by safeguarded cubic interpolation (Nocedal & Wright, *Numerical Optimization*,
algorithms 3.5 and 3.6). Scalars keep their kinds as torch's do: Python floats for losses and for steps given as
numbers, numpy float scalars of the parameters' dtype for directional derivatives (torch's 0-d tensors), so the
arithmetic rounds as torch's does.
"""

import numpy as np

__all__ = ["strong_wolfe"]


def _cubic_minimizer(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through ``(x1, f1)`` and ``(x2, f2)`` with slopes ``g1``, ``g2``, clipped to
    ``bounds`` (default: the interval between ``x1`` and ``x2``); the bounds' midpoint when the cubic has no
    minimizer."""
    low, high = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (low + high) / 2.0
    d2 = np.sqrt(d2_square)
    if x1 <= x2:
        minimizer = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        minimizer = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(minimizer, low), high)


class _Bracket:
    """Two trial steps with their losses, gradients and directional derivatives; ``low`` indexes the one with the
    smaller loss (the first on ties)."""

    def __init__(self, steps, losses, grads, slopes):
        self.steps, self.losses, self.grads, self.slopes = steps, losses, grads, slopes
        self.reorder()

    def reorder(self):
        self.low, self.high = (0, 1) if self.losses[0] <= self.losses[-1] else (1, 0)

    def set(self, position, step, loss, grad, slope):
        self.steps[position], self.losses[position] = step, loss
        self.grads[position], self.slopes[position] = grad, slope

    def width(self):
        return abs(self.steps[1] - self.steps[0])


def strong_wolfe(evaluate, step, direction, loss, grad, slope, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                 max_ls=25):
    """Search along ``direction`` for a step meeting the strong Wolfe conditions.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(step) -> (loss, flat_gradient)`` at ``x + step * direction`` (``x`` left unchanged).
    step : float or numpy scalar
        The first trial step.
    direction : ndarray
        The flat search direction.
    loss, grad, slope : float, ndarray, numpy scalar
        Loss, flat gradient and directional derivative ``grad . direction`` at ``x``.
    c1, c2 : float
        Sufficient decrease and curvature constants.
    tolerance_change : float
        Stop zooming once the bracket moves the parameters by less than this.
    max_ls : int
        Most trial evaluations after the first.

    Returns
    -------
    (loss, grad, step, evaluations) at the step chosen.
    """
    largest = np.abs(direction).max()
    new_loss, new_grad = evaluate(step)
    evaluations, trials = 1, 0
    new_slope = new_grad.dot(direction)
    prev_step, prev_loss, prev_grad, prev_slope = 0, loss, grad.copy(), slope
    bracket, done = None, False
    while trials < max_ls:
        # The curvature condition is tested between the two bracketing tests: a step past the minimum (slope
        # turned positive) that meets it is taken as it is.
        too_far = new_loss > loss + c1 * step * slope or (trials > 1 and new_loss >= prev_loss)
        if not too_far and abs(new_slope) <= -c2 * slope:
            return new_loss, new_grad, step, evaluations
        if too_far or new_slope >= 0:
            bracket = _Bracket([prev_step, step], [prev_loss, new_loss], [prev_grad, new_grad],
                               [prev_slope, new_slope])
            break
        # Extrapolate: a cubic step kept between just past the current step and ten times it.
        bounds = (step + 0.01 * (step - prev_step), step * 10)
        next_step = _cubic_minimizer(prev_step, prev_loss, prev_slope, step, new_loss, new_slope, bounds)
        prev_step, prev_loss, prev_grad, prev_slope = step, new_loss, new_grad, new_slope
        step = next_step
        new_loss, new_grad = evaluate(step)
        evaluations, trials = evaluations + 1, trials + 1
        new_slope = new_grad.dot(direction)
    if bracket is None:  # out of trials while still extrapolating: the better of the start and the last step
        bracket = _Bracket([0, step], [loss, new_loss], [grad, new_grad], [slope, new_slope])
    insufficient_progress = False
    while not done and trials < max_ls:
        if bracket.width() * largest < tolerance_change:
            break
        steps = bracket.steps
        step = _cubic_minimizer(steps[0], bracket.losses[0], bracket.slopes[0],
                                steps[1], bracket.losses[1], bracket.slopes[1])
        # Safeguard: a step within 10% of the bracket's width from an end is moved inward, unless the previous
        # step made progress (then it may stay once).
        top, bottom = max(steps), min(steps)
        margin = 0.1 * (top - bottom)
        if min(top - step, step - bottom) < margin:
            if insufficient_progress or step >= top or step <= bottom:
                step = top - margin if abs(step - top) < abs(step - bottom) else bottom + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        new_loss, new_grad = evaluate(step)
        evaluations, trials = evaluations + 1, trials + 1
        new_slope = new_grad.dot(direction)
        if new_loss > loss + c1 * step * slope or new_loss >= bracket.losses[bracket.low]:
            bracket.set(bracket.high, step, new_loss, new_grad, new_slope)
            bracket.reorder()
            continue
        if abs(new_slope) <= -c2 * slope:
            done = True
        elif new_slope * (steps[bracket.high] - steps[bracket.low]) >= 0:
            low = bracket.low
            bracket.set(bracket.high, steps[low], bracket.losses[low], bracket.grads[low], bracket.slopes[low])
        bracket.set(bracket.low, step, new_loss, new_grad, new_slope)
    low = bracket.low
    return bracket.losses[low], bracket.grads[low], bracket.steps[low], evaluations
