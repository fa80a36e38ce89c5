"""The update rules of the built-in optimizers, on numpy arrays in place.

Each function updates one parameter array ``p`` (and its state arrays) from its gradient
``g``, in the order of operations of torch's single-tensor (``foreach=False``) CPU
implementation, so results agree with torch to float32 round-off: torch's kernels fuse
multiply-adds (one rounding) where numpy rounds the product first. Where that difference can
be amplified by cancellation followed by a division (the weight-decay term of the gradient
of adaptive methods, the centered variance of RMSprop), the fused result is reproduced
exactly (``fused_multiply_add``).
Hyperparameters are Python floats: numpy applies them in the arrays' dtype, as torch does.

``s`` holds scratch arrays shaped like ``p`` (see ``Optimizer._scratch``): ``s[0]`` takes
the effective gradient (maximize, weight decay) and is reused once that is consumed; the
user's gradient is never written. Rules are elementwise, so they may run on blocks of the
arrays (see ``_inplace.py``).
"""

import numpy as np


def fused_multiply_add(x, y, z, out, negate_z=False):
    """``out = x * y + z`` (``x * y - z`` with ``negate_z``) rounded once, as a fused multiply-add.

    Below float64 the product and sum are formed exactly in float64 and rounded once to
    ``out``'s dtype (a scalar ``y`` is first rounded to float32, torch's compute type there);
    float64 arrays round the product first.
    """
    if out.dtype == np.float64:
        wide = np.multiply(x, y, out=out)
    else:
        if not isinstance(y, np.ndarray):
            y = float(np.float32(y))
        wide = np.multiply(x, y, out=np.empty(out.shape, np.float64), dtype=np.float64)
    if negate_z:
        np.subtract(wide, z, out=wide)
    else:
        np.add(wide, z, out=wide)
    if wide is not out:
        np.copyto(out, wide, casting="same_kind")
    return out


def effective_grad(g, p, maximize, weight_decay, out, fused=True):
    """torch's ``(-g if maximize else g) + weight_decay * p``: in ``out``, or ``g`` itself when neither applies.

    ``fused`` rounds once, as torch does: a gradient that nearly cancels the decay term is
    then exact, which matters where the update divides by the gradient's magnitude (Adam and
    the like). SGD, which does not, rounds the product first (cheaper; one ulp apart).
    """
    if weight_decay:
        if fused:
            return fused_multiply_add(p, weight_decay, g, out, negate_z=maximize)
        np.multiply(p, weight_decay, out=out)
        return np.subtract(out, g, out=out) if maximize else np.add(out, g, out=out)
    if maximize:
        return np.negative(g, out=out)
    return g


def lerp_(start, end, weight, tmp):
    """``start.lerp_(end, weight)``: torch's two-sided form (from ``end`` when the weight is at least 0.5)."""
    np.subtract(end, start, out=tmp)
    w = start.dtype.type(weight)
    if abs(w) < 0.5:
        tmp *= w
        start += tmp
    else:
        tmp *= start.dtype.type(1) - w
        np.subtract(end, tmp, out=start)


def decay_average_of_squares(avg, grad, decay, tmp):
    """``avg.mul_(decay).addcmul_(grad, grad, value=1 - decay)``."""
    avg *= decay
    np.multiply(grad, 1 - decay, out=tmp)
    tmp *= grad
    avg += tmp


def add_scaled_quotient(p, num, denom, value, tmp):
    """``p.addcdiv_(num, denom, value=value)``: ``p + (value * num) / denom``."""
    np.multiply(num, value, out=tmp)
    tmp /= denom
    p += tmp


def sgd(p, g, buf, *, lr, momentum, dampening, nesterov, weight_decay, maximize, first=False, s):
    """SGD with optional momentum (``buf``: the momentum buffer, filled with the gradient when ``first``)."""
    d_p = effective_grad(g, p, maximize, weight_decay, s[0], fused=False)
    if buf is not None:
        if first:
            np.copyto(buf, d_p)
        else:
            buf *= momentum
            if dampening:
                np.multiply(d_p, 1 - dampening, out=s[1])
                buf += s[1]
            else:
                buf += d_p
        if nesterov:
            np.multiply(buf, momentum, out=s[1])
            d_p = np.add(d_p, s[1], out=s[1])
        else:
            d_p = buf
    np.multiply(d_p, -lr, out=s[0])
    p += s[0]


def adam(p, g, exp_avg, exp_avg_sq, max_exp_avg_sq, *, step, lr, beta1, beta2, eps, weight_decay, decoupled, amsgrad,
         maximize, s):
    """Adam / AdamW (``decoupled``: weight decay shrinks ``p``; ``max_exp_avg_sq``: AMSGrad's maximum)."""
    if weight_decay and decoupled:
        p *= 1 - lr * weight_decay
    grad = effective_grad(g, p, maximize, 0 if decoupled else weight_decay, s[0])
    lerp_(exp_avg, grad, 1 - beta1, s[1])
    decay_average_of_squares(exp_avg_sq, grad, beta2, s[1])
    step_size = lr / (1 - beta1 ** step)
    bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
    if amsgrad:
        np.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
    denom = np.sqrt(max_exp_avg_sq if amsgrad else exp_avg_sq, out=s[1])
    denom /= bias_correction2_sqrt
    denom += eps
    add_scaled_quotient(p, exp_avg, denom, -step_size, s[0])


def adamax(p, g, exp_avg, exp_inf, *, step, lr, beta1, beta2, eps, weight_decay, maximize, s):
    """Adamax: Adam with the infinity norm of past gradients."""
    grad = effective_grad(g, p, maximize, weight_decay, s[0])
    lerp_(exp_avg, grad, 1 - beta1, s[1])
    exp_inf *= beta2
    norm = np.abs(grad, out=s[1])
    norm += eps
    np.maximum(exp_inf, norm, out=exp_inf)
    add_scaled_quotient(p, exp_avg, exp_inf, -(lr / (1 - beta1 ** step)), s[1])


def nadam_momentum(beta1, momentum_decay, step):
    """NAdam's momentum coefficient at ``step``."""
    return beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))


def nadam(p, g, exp_avg, exp_avg_sq, *, lr, beta1, beta2, eps, weight_decay, decoupled, maximize, step, mu, mu_next,
          mu_product, s):
    """NAdam (``mu``, ``mu_next``: momentum coefficients of this and the next step; ``mu_product``: the
    product of the coefficients so far, this step's included)."""
    bias_correction2 = 1 - beta2 ** step
    if weight_decay and decoupled:
        p *= 1 - lr * weight_decay
    grad = effective_grad(g, p, maximize, 0 if decoupled else weight_decay, s[0])
    lerp_(exp_avg, grad, 1 - beta1, s[1])
    decay_average_of_squares(exp_avg_sq, grad, beta2, s[1])
    denom = np.divide(exp_avg_sq, bias_correction2, out=s[1])
    np.sqrt(denom, out=denom)
    denom += eps
    add_scaled_quotient(p, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product), s[0])
    add_scaled_quotient(p, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product * mu_next), s[0])


def radam(p, g, exp_avg, exp_avg_sq, *, step, lr, beta1, beta2, eps, weight_decay, decoupled, maximize, s):
    """RAdam: Adam whose adaptive term is switched on (and rectified) once its variance is tractable."""
    if weight_decay and decoupled:
        p *= 1 - lr * weight_decay
    grad = effective_grad(g, p, maximize, 0 if decoupled else weight_decay, s[0])
    lerp_(exp_avg, grad, 1 - beta1, s[1])
    decay_average_of_squares(exp_avg_sq, grad, beta2, s[1])
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    update = np.divide(exp_avg, bias_correction1, out=s[0])
    update *= lr
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
    if rho_t > 5.0:
        adaptive = np.sqrt(exp_avg_sq, out=s[1])
        adaptive += eps
        np.divide(bias_correction2 ** 0.5, adaptive, out=adaptive)
        update *= adaptive
        update *= ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
    p -= update


def rmsprop(p, g, square_avg, grad_avg, momentum_buffer, *, lr, alpha, eps, weight_decay, momentum, centered, maximize,
            s):
    """RMSprop (``grad_avg``: the gradient average when ``centered``; ``momentum_buffer`` when momentum > 0)."""
    grad = effective_grad(g, p, maximize, weight_decay, s[0])
    decay_average_of_squares(square_avg, grad, alpha, s[1])
    if centered:
        lerp_(grad_avg, grad, 1 - alpha, s[1])
        avg = fused_multiply_add(grad_avg, grad_avg, square_avg, s[1], negate_z=True)  # g_avg**2 - avg
        np.negative(avg, out=avg)
        np.sqrt(avg, out=avg)
    else:
        avg = np.sqrt(square_avg, out=s[1])
    avg += eps
    if momentum > 0:
        momentum_buffer *= momentum
        np.divide(grad, avg, out=s[1])
        momentum_buffer += s[1]
        np.multiply(momentum_buffer, -lr, out=s[1])
        p += s[1]
    else:
        add_scaled_quotient(p, grad, avg, -lr, s[0])


def adagrad(p, g, state_sum, *, step, lr, lr_decay, eps, weight_decay, maximize, s):
    """Adagrad: steps scaled by the root of the sum of squared gradients."""
    grad = effective_grad(g, p, maximize, weight_decay, s[0])
    clr = lr / (1 + (step - 1) * lr_decay)
    np.multiply(grad, grad, out=s[1])
    state_sum += s[1]
    std = np.sqrt(state_sum, out=s[1])
    std += eps
    add_scaled_quotient(p, grad, std, -clr, s[0])


def adadelta(p, g, square_avg, acc_delta, *, lr, rho, eps, weight_decay, maximize, s):
    """Adadelta: steps scaled by the ratio of the root mean squares of past updates and gradients."""
    grad = effective_grad(g, p, maximize, weight_decay, s[0])
    decay_average_of_squares(square_avg, grad, rho, s[1])
    std = np.add(square_avg, eps, out=s[1])
    np.sqrt(std, out=std)
    delta = np.add(acc_delta, eps, out=s[2])
    np.sqrt(delta, out=delta)
    delta /= std
    delta *= grad
    decay_average_of_squares(acc_delta, delta, rho, s[1])
    delta *= -lr
    p += delta
