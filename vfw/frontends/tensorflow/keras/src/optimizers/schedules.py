"""keras.optimizers.schedules: learning rates as functions of the optimizer step.

A schedule is called with the step (the optimizer's ``iterations``: a Python int, a tensor or
a variable) and returns a scalar tensor of the initial learning rate's dtype (float32 for a
Python float).  The arithmetic is done with tf ops in the order Keras 3.15 does it (Python
floats combined first where Keras combines them), so values agree with Keras to the last bit
where the underlying kernels do, and a schedule evaluated inside ``tf.function`` follows the
step variable on every call.
"""

import math

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.utils import serialization


class LearningRateSchedule:
    """The base class of learning-rate schedules: subclasses define ``__call__(step)`` and ``get_config``."""

    def __call__(self, step):
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must override "
                                  "`__call__(self, step)`.")

    def get_config(self):
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must override `get_config()` in "
                                  "order to be serializable.")

    @classmethod
    def from_config(cls, config):
        """The schedule ``get_config`` describes."""
        return cls(**config)


def _check_decay_steps(value, argument="decay_steps"):
    if value <= 0:
        raise ValueError(f"Argument `{argument}` must be > 0. Received: {argument}={value}")


def _initial_and_step(initial_learning_rate, step):
    """The initial rate as a tensor, and the step cast to its dtype."""
    initial = tf.convert_to_tensor(initial_learning_rate)
    return initial, tf.cast(step, initial.dtype)


class ExponentialDecay(LearningRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (the exponent floored with ``staircase``).

    Parameters
    ----------
    initial_learning_rate : float
    decay_steps : int
        > 0.
    decay_rate : float
    staircase : bool
    name : str
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="ExponentialDecay"):
        super().__init__()
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name
        _check_decay_steps(decay_steps)

    def __call__(self, step):
        initial, step = _initial_and_step(self.initial_learning_rate, step)
        exponent = step / tf.cast(self.decay_steps, initial.dtype)
        if self.staircase:
            exponent = tf.floor(exponent)
        return tf.multiply(initial, tf.pow(tf.cast(self.decay_rate, initial.dtype), exponent))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` for ``step <= boundaries[0]``, ``values[i]`` for ``boundaries[i-1] < step <= boundaries[i]``,
    ``values[-1]`` after the last boundary.

    Parameters
    ----------
    boundaries : list
        Increasing steps (cast to the step's dtype).
    values : list
        One more than ``boundaries``; the result has the first value's dtype.
    name : str
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        super().__init__()
        if len(boundaries) != len(values) - 1:
            raise ValueError(f"The length of boundaries should be 1 less than the length of values. Received: "
                             f"boundaries={boundaries} of length {len(boundaries)}, and values={values} of length "
                             f"{len(values)}.")
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step):
        step = tf.convert_to_tensor(step)
        boundaries = [tf.cast(tf.convert_to_tensor(b), step.dtype) for b in self.boundaries]
        values = [tf.convert_to_tensor(v) for v in self.values]
        dtype = values[0].dtype
        # The sum of each value times the indicator of its interval.
        result = tf.zeros([], dtype)
        result += tf.cast(step <= boundaries[0], dtype) * values[0]
        result += tf.cast(step > boundaries[-1], dtype) * values[-1]
        for low, high, value in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            result += tf.cast(tf.logical_and(step > low, step <= high), dtype) * value
        return result

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end``, with the step capped at ``decay_steps``
    (or, with ``cycle``, ``decay_steps`` stretched to the next multiple above the step).

    Parameters
    ----------
    initial_learning_rate : float
    decay_steps : int
        > 0.
    end_learning_rate : float
    power : float
    cycle : bool
    name : str
    """

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                 name="PolynomialDecay"):
        super().__init__()
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name
        _check_decay_steps(decay_steps)

    def __call__(self, step):
        initial, step = _initial_and_step(self.initial_learning_rate, step)
        dtype = initial.dtype
        end = tf.cast(self.end_learning_rate, dtype)
        power = tf.cast(self.power, dtype)
        decay_steps = tf.cast(self.decay_steps, dtype)
        if self.cycle:
            # The first multiple of decay_steps at or above the step (1 at step 0).
            multiplier = tf.where(tf.equal(step, 0), tf.ones([], dtype), tf.math.ceil(step / self.decay_steps))
            decay_steps = tf.multiply(decay_steps, multiplier)
        else:
            step = tf.minimum(step, decay_steps)
        fraction = tf.truediv(step, decay_steps)
        return tf.add(tf.multiply(initial - end, tf.pow(1 - fraction, power)), end)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "end_learning_rate": self.end_learning_rate, "power": self.power, "cycle": self.cycle,
                "name": self.name}


class InverseTimeDecay(LearningRateSchedule):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (the ratio floored with ``staircase``).

    Parameters
    ----------
    initial_learning_rate : float
    decay_steps : int
        > 0.
    decay_rate : float
    staircase : bool
    name : str
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="InverseTimeDecay"):
        super().__init__()
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name
        _check_decay_steps(decay_steps)

    def __call__(self, step):
        initial, step = _initial_and_step(self.initial_learning_rate, step)
        ratio = step / tf.cast(self.decay_steps, initial.dtype)
        if self.staircase:
            ratio = tf.floor(ratio)
        denominator = tf.add(tf.ones([], initial.dtype), tf.multiply(tf.cast(self.decay_rate, initial.dtype), ratio))
        return tf.truediv(initial, denominator)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


def _cosine(fraction, dtype):
    """``0.5 * (1 + cos(pi * fraction))``."""
    return 0.5 * (1.0 + tf.cos(tf.multiply(tf.constant(math.pi, dtype), fraction)))


class CosineDecay(LearningRateSchedule):
    """Cosine decay from the initial rate (or, after a linear warmup, from ``warmup_target``) to
    ``alpha`` times it over ``decay_steps``.

    Parameters
    ----------
    initial_learning_rate : float
    decay_steps : int
        > 0.
    alpha : float
        The final rate as a fraction of the rate decayed from.
    name : str
    warmup_target : float, optional
        With it, the rate rises linearly from ``initial_learning_rate`` to ``warmup_target`` over
        ``warmup_steps`` steps, then decays from ``warmup_target``.
    warmup_steps : int
    """

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay", warmup_target=None,
                 warmup_steps=0):
        super().__init__()
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_steps = warmup_steps
        self.warmup_target = warmup_target
        _check_decay_steps(decay_steps)

    def _decayed(self, step, decay_steps, decay_from, dtype):
        decayed = (1 - self.alpha) * _cosine(tf.truediv(step, decay_steps), dtype) + self.alpha
        return tf.multiply(decay_from, decayed)

    def __call__(self, step):
        initial, step = _initial_and_step(self.initial_learning_rate, step)
        dtype = initial.dtype
        decay_steps = tf.cast(self.decay_steps, dtype)
        if self.warmup_target is None:
            return self._decayed(tf.minimum(step, decay_steps), decay_steps, initial, dtype)
        target = tf.cast(self.warmup_target, dtype)
        warmup_steps = tf.cast(self.warmup_steps, dtype)
        step = tf.minimum(step, decay_steps + warmup_steps)
        return tf.cond(step < warmup_steps,
                       lambda: (target - initial) * (step / warmup_steps) + initial,
                       lambda: self._decayed(step - warmup_steps, decay_steps, target, dtype))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "alpha": self.alpha, "name": self.name, "warmup_target": self.warmup_target,
                "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): periods of ``first_decay_steps * t_mul ** i`` steps, the
    i-th starting from ``initial_learning_rate * m_mul ** i``.

    Parameters
    ----------
    initial_learning_rate : float
    first_decay_steps : int
        > 0.
    t_mul : float
        Each period's length over the previous one's.
    m_mul : float
        Each period's starting rate over the previous one's.
    alpha : float
        The minimum rate as a fraction of ``initial_learning_rate``.
    name : str
    """

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name="SGDRDecay"):
        super().__init__()
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name
        _check_decay_steps(first_decay_steps, "first_decay_steps")

    def __call__(self, step):
        initial, step = _initial_and_step(self.initial_learning_rate, step)
        dtype = initial.dtype
        alpha = tf.cast(self.alpha, dtype)
        t_mul = tf.cast(self._t_mul, dtype)
        m_mul = tf.cast(self._m_mul, dtype)
        fraction = step / tf.cast(self.first_decay_steps, dtype)

        def equal_periods():
            restart = tf.floor(fraction)
            return restart, fraction - restart

        def growing_periods():
            # The restart index solves sum_{k<i} t_mul**k <= fraction (a geometric series).
            restart = tf.floor(tf.math.log(1.0 - fraction * (1.0 - t_mul)) / tf.math.log(t_mul))
            elapsed = tf.truediv(1.0 - tf.pow(t_mul, restart), 1.0 - t_mul)
            return restart, tf.truediv(fraction - elapsed, tf.pow(t_mul, restart))

        restart, period_fraction = tf.cond(tf.equal(t_mul, 1.0), equal_periods, growing_periods)
        cosine = 0.5 * tf.pow(m_mul, restart) * (1.0 + tf.cos(tf.multiply(tf.constant(math.pi, dtype),
                                                                            period_fraction)))
        return tf.multiply(initial, tf.add(tf.multiply(1 - alpha, cosine), alpha))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "first_decay_steps": self.first_decay_steps,
                "t_mul": self._t_mul, "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


SCHEDULES = {cls.__name__: cls for cls in (LearningRateSchedule, ExponentialDecay, PiecewiseConstantDecay,
                                           PolynomialDecay, InverseTimeDecay, CosineDecay, CosineDecayRestarts)}


def serialize(learning_rate_schedule):
    """Keras' config dict of a schedule (``{"module", "class_name", "config", "registered_name"}``)."""
    return serialization.serialize_keras_object(learning_rate_schedule)


def deserialize(config, custom_objects=None):
    """The schedule a config dict describes (``custom_objects`` resolves user classes and functions)."""
    return serialization.deserialize_keras_object(config, module_objects=SCHEDULES, custom_objects=custom_objects)


API = {"optimizers.schedules": ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay",
                                "PolynomialDecay", "InverseTimeDecay", "CosineDecay", "CosineDecayRestarts",
                                "serialize", "deserialize"]}
