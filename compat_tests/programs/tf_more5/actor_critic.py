"""The Keras "Actor Critic Method" example, shrunk, on a small deterministic cart-pole written in numpy: a shared
Dense layer with actor (softmax) and critic heads, episodes run eagerly under a GradientTape (model(state) per
step, tf.convert_to_tensor / tf.expand_dims of the state, np.random choice from the action probabilities,
tf.math.log of the chosen one), discounted normalized returns, the Huber critic loss, Adam apply_gradients and
the running reward."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers


class CartPole:
    """Euler-integrated cart-pole dynamics (no gym)."""

    def __init__(self, rng):
        self.rng = rng

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, 4)
        return self.state.copy()

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = np.cos(theta), np.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        self.state = np.array([x + 0.02 * x_dot, x_dot + 0.02 * x_acc, theta + 0.02 * theta_dot,
                               theta_dot + 0.02 * theta_acc])
        done = abs(self.state[0]) > 2.4 or abs(self.state[2]) > 0.21
        return self.state.copy(), 1.0, done


def main():
    keras.utils.set_random_seed(77)
    rng = np.random.default_rng(77)
    gamma, max_steps_per_episode = 0.99, 30
    eps = np.finfo(np.float32).eps.item()
    env = CartPole(rng)

    num_inputs, num_actions, num_hidden = 4, 2, 16
    inputs = layers.Input(shape=(num_inputs,))
    common = layers.Dense(num_hidden, activation="relu")(inputs)
    action = layers.Dense(num_actions, activation="softmax")(common)
    critic = layers.Dense(1)(common)
    model = keras.Model(inputs=inputs, outputs=[action, critic])

    optimizer = keras.optimizers.Adam(learning_rate=0.01)
    huber_loss = keras.losses.Huber()
    action_probs_history, critic_value_history, rewards_history = [], [], []
    running_reward, values = 0, []
    for _ in range(4):
        state = env.reset()
        episode_reward = 0
        with tf.GradientTape() as tape:
            for _ in range(1, max_steps_per_episode):
                state = tf.convert_to_tensor(state)
                state = tf.expand_dims(state, 0)
                action_probs, critic_value = model(state)
                critic_value_history.append(critic_value[0, 0])
                probs = np.squeeze(action_probs.numpy().astype(np.float64))
                action = rng.choice(num_actions, p=probs / probs.sum())
                action_probs_history.append(tf.math.log(action_probs[0, action]))
                state, reward, done = env.step(action)
                rewards_history.append(reward)
                episode_reward += reward
                if done:
                    break
            running_reward = 0.05 * episode_reward + (1 - 0.05) * running_reward

            returns, discounted_sum = [], 0
            for r in rewards_history[::-1]:
                discounted_sum = r + gamma * discounted_sum
                returns.insert(0, discounted_sum)
            returns = np.array(returns)
            returns = ((returns - np.mean(returns)) / (np.std(returns) + eps)).tolist()

            actor_losses, critic_losses = [], []
            for log_prob, value, ret in zip(action_probs_history, critic_value_history, returns):
                diff = ret - value
                actor_losses.append(-log_prob * diff)
                critic_losses.append(huber_loss(tf.expand_dims(value, 0), tf.expand_dims(ret, 0)))
            loss_value = sum(actor_losses) + sum(critic_losses)
            grads = tape.gradient(loss_value, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            action_probs_history.clear()
            critic_value_history.clear()
            rewards_history.clear()
        values += [float(loss_value), episode_reward, running_reward, str(loss_value.dtype)]
    values += [float(tf.linalg.global_norm(grads)), int(optimizer.iterations)]
    return values


if __name__ == "__main__":
    print(main())
