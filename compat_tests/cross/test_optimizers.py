"""Optimizers stepping identical parameters: torch.optim vs Keras optimizers, and where their math differs.

Both sides minimize ``0.5 * sum(curvature * (p - target) ** 2)`` over two parameters from the
same start, whose gradient ``curvature * (p - target)`` numpy also computes, so each documented
difference is asserted against a numpy implementation of each framework's update rule.

Where they agree (asserted equal step by step): SGD (plain, momentum, Nesterov; weight decay
without momentum: torch adds ``weight_decay * p`` to the gradient, Keras shrinks ``p`` by
``lr * weight_decay`` first, the same step), AdamW's decoupled decay, Adam/RMSprop/Adagrad when
epsilon is negligible.  Where they differ:

- Adam and AdamW: torch adds ``eps`` to the bias-corrected ``sqrt(v_hat)``, Keras to the raw
  ``sqrt(v)`` (the Adam paper's "epsilon hat"); defaults 1e-8 vs 1e-7.
- RMSprop and Adagrad: torch adds ``eps`` outside the square root, Keras inside.
- Defaults: RMSprop ``alpha=0.99`` vs ``rho=0.9``; Adagrad's initial accumulator 0 vs 0.1;
  AdamW's weight decay 0.01 vs 0.004; SGD weight decay with momentum (torch's decay enters the
  momentum, Keras' does not).
"""

import numpy as np
import pytest

from compat_tests.cross.harness import assert_close, normal, tf, torch, uniform

STEPS = 6
START = [normal((4, 3), 0), normal((3,), 1)]
TARGET = [normal((4, 3), 2), normal((3,), 3)]
CURVATURE = [uniform((4, 3), 0.1, 3.0, 4), uniform((3,), 0.1, 3.0, 5)]


def gradient(p, k):
    """The numpy gradient of the loss with respect to parameter ``k`` at ``p``."""
    return CURVATURE[k] * (p - TARGET[k])


def torch_path(make_optimizer):
    """The parameters after each of STEPS steps of ``make_optimizer(params)``."""
    params = [torch.nn.Parameter(torch.tensor(a)) for a in START]
    optimizer = make_optimizer(params)
    path = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = sum((0.5 * torch.tensor(c) * (p - torch.tensor(t)) ** 2).sum()
                   for p, t, c in zip(params, TARGET, CURVATURE))
        loss.backward()
        optimizer.step()
        path.append([p.detach().numpy().copy() for p in params])
    return path


def keras_path(optimizer):
    """The parameters after each of STEPS ``optimizer.apply_gradients`` steps on tf.Variables."""
    variables = [tf.Variable(a) for a in START]
    path = []
    for _ in range(STEPS):
        with tf.GradientTape() as tape:
            loss = tf.add_n([tf.reduce_sum(0.5 * c * (v - t) ** 2) for v, t, c in zip(variables, TARGET, CURVATURE)])
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        path.append([v.numpy().copy() for v in variables])
    return path


def numpy_path(update, state_names, initial=0.0):
    """STEPS steps of ``update(p, g, state, t) -> p`` (``state``: a dict of ``state_names`` arrays, updated in
    place, starting at ``initial``) for each parameter, in float32."""
    params = [a.copy() for a in START]
    states = [{name: np.full_like(a, initial) for name in state_names} for a in START]
    path = []
    for t in range(1, STEPS + 1):
        params = [update(p, gradient(p, k), states[k], t).astype(np.float32) for k, p in enumerate(params)]
        path.append([p.copy() for p in params])
    return path


def assert_same_path(got, want, where, rtol=1e-5, atol=1e-6):
    for step, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, f"{where}, step {step + 1}", rtol, atol)


AGREEING = {
    "sgd": (lambda ps: torch.optim.SGD(ps, lr=0.1), lambda: tf.keras.optimizers.SGD(0.1)),
    "sgd_momentum": (lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9),
                     lambda: tf.keras.optimizers.SGD(0.05, momentum=0.9)),
    "sgd_nesterov": (lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.8, nesterov=True),
                     lambda: tf.keras.optimizers.SGD(0.05, momentum=0.8, nesterov=True)),
    "sgd_weight_decay": (lambda ps: torch.optim.SGD(ps, lr=0.1, weight_decay=0.05),
                         lambda: tf.keras.optimizers.SGD(0.1, weight_decay=0.05)),
    "adam": (lambda ps: torch.optim.Adam(ps, lr=0.05, betas=(0.8, 0.95), eps=1e-8),
             lambda: tf.keras.optimizers.Adam(0.05, beta_1=0.8, beta_2=0.95, epsilon=1e-8)),
    "adam_amsgrad": (lambda ps: torch.optim.Adam(ps, lr=0.05, eps=1e-8, amsgrad=True),
                     lambda: tf.keras.optimizers.Adam(0.05, epsilon=1e-8, amsgrad=True)),
    "adamw": (lambda ps: torch.optim.AdamW(ps, lr=0.05, eps=1e-8, weight_decay=0.1),
              lambda: tf.keras.optimizers.AdamW(0.05, weight_decay=0.1, epsilon=1e-8)),
    "rmsprop": (lambda ps: torch.optim.RMSprop(ps, lr=0.01, alpha=0.9, eps=1e-10),
                lambda: tf.keras.optimizers.RMSprop(0.01, rho=0.9, epsilon=1e-10)),
    "adagrad": (lambda ps: torch.optim.Adagrad(ps, lr=0.1, initial_accumulator_value=0.1, eps=1e-10),
                lambda: tf.keras.optimizers.Adagrad(0.1, initial_accumulator_value=0.1, epsilon=1e-10)),
}


@pytest.mark.parametrize("name", sorted(AGREEING))
def test_same_steps(name):
    make_torch, make_keras = AGREEING[name]
    assert_same_path(keras_path(make_keras()), torch_path(make_torch), f"{name}: Keras vs torch")


def test_sgd_momentum_matches_numpy():
    # torch's velocity v = momentum * v + g, p -= lr * v; Keras keeps -lr * v: the same path.
    def update(p, g, state, t):
        state["v"] = 0.9 * state["v"] + g
        return p - 0.05 * state["v"]

    assert_same_path(torch_path(AGREEING["sgd_momentum"][0]), numpy_path(update, ["v"]), "torch vs numpy")


def adam_update(lr, beta_1, beta_2, eps, epsilon_hat):
    """Adam's step with ``eps`` added to ``sqrt(v_hat)`` (torch) or, ``epsilon_hat``, to ``sqrt(v)`` (Keras)."""

    def update(p, g, state, t):
        state["m"] = beta_1 * state["m"] + (1 - beta_1) * g
        state["v"] = beta_2 * state["v"] + (1 - beta_2) * g * g
        if epsilon_hat:
            alpha = lr * np.sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t)
            return p - alpha * state["m"] / (np.sqrt(state["v"]) + eps)
        m_hat, v_hat = state["m"] / (1 - beta_1 ** t), state["v"] / (1 - beta_2 ** t)
        return p - lr * m_hat / (np.sqrt(v_hat) + eps)

    return update


def test_adam_epsilon_placement_differs():
    # A large epsilon makes the placement visible: both follow their own rule, and the paths part.
    torch_adam = torch_path(lambda ps: torch.optim.Adam(ps, lr=0.05, eps=0.1))
    keras_adam = keras_path(tf.keras.optimizers.Adam(0.05, epsilon=0.1))
    assert_same_path(torch_adam, numpy_path(adam_update(0.05, 0.9, 0.999, 0.1, False), ["m", "v"]), "torch Adam")
    assert_same_path(keras_adam, numpy_path(adam_update(0.05, 0.9, 0.999, 0.1, True), ["m", "v"]), "Keras Adam")
    assert np.abs(torch_adam[-1][0] - keras_adam[-1][0]).max() > 1e-3


def rmsprop_update(lr, rho, eps, inside):
    def update(p, g, state, t):
        state["v"] = rho * state["v"] + (1 - rho) * g * g
        return p - lr * g / (np.sqrt(state["v"] + eps) if inside else np.sqrt(state["v"]) + eps)

    return update


def test_rmsprop_epsilon_inside_the_root_in_keras():
    torch_rms = torch_path(lambda ps: torch.optim.RMSprop(ps, lr=0.01, alpha=0.9, eps=0.1))
    keras_rms = keras_path(tf.keras.optimizers.RMSprop(0.01, rho=0.9, epsilon=0.1))
    assert_same_path(torch_rms, numpy_path(rmsprop_update(0.01, 0.9, 0.1, False), ["v"]), "torch RMSprop")
    assert_same_path(keras_rms, numpy_path(rmsprop_update(0.01, 0.9, 0.1, True), ["v"]), "Keras RMSprop")
    assert np.abs(torch_rms[-1][0] - keras_rms[-1][0]).max() > 1e-3


def adagrad_update(lr, eps, inside):
    def update(p, g, state, t):
        state["sum"] += g * g
        return p - lr * g / (np.sqrt(state["sum"] + eps) if inside else np.sqrt(state["sum"]) + eps)

    return update


def test_adagrad_defaults_and_epsilon_differ():
    # Defaults: torch starts the accumulator at 0 with eps 1e-10 outside the root, Keras at 0.1 with 1e-7 inside.
    torch_adagrad = torch_path(lambda ps: torch.optim.Adagrad(ps, lr=0.1))
    keras_adagrad = keras_path(tf.keras.optimizers.Adagrad(0.1))
    assert_same_path(torch_adagrad, numpy_path(adagrad_update(0.1, 1e-10, False), ["sum"]), "torch Adagrad")
    assert_same_path(keras_adagrad, numpy_path(adagrad_update(0.1, 1e-7, True), ["sum"], initial=0.1),
                     "Keras Adagrad")
    assert np.abs(torch_adagrad[0][0] - keras_adagrad[0][0]).max() > 1e-3


def test_sgd_weight_decay_with_momentum_differs():
    # torch's decay is part of the gradient, so it enters the momentum; Keras shrinks the weights apart from it.
    def torch_update(p, g, state, t):
        state["v"] = 0.9 * state["v"] + g + 0.05 * p
        return p - 0.1 * state["v"]

    def keras_update(p, g, state, t):
        state["v"] = 0.9 * state["v"] - 0.1 * g
        return p * (1 - 0.1 * 0.05) + state["v"]

    torch_sgd = torch_path(lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.05))
    keras_sgd = keras_path(tf.keras.optimizers.SGD(0.1, momentum=0.9, weight_decay=0.05))
    assert_same_path(torch_sgd, numpy_path(torch_update, ["v"]), "torch SGD")
    assert_same_path(keras_sgd, numpy_path(keras_update, ["v"]), "Keras SGD")
    assert np.abs(torch_sgd[-1][0] - keras_sgd[-1][0]).max() > 1e-3
