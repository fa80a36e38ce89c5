"""Proximal policy optimisation in the CleanRL style on a tiny vectorised environment: an Agent with orthogonal
init (nn.init.orthogonal_ with gain sqrt(2), constant_ bias), rollouts into preallocated buffers, generalized
advantage estimation by a reversed loop, Categorical(logits=...) log_prob / entropy, the clipped surrogate with
ratio = (newlogprob - oldlogprob).exp(), approx_kl and clipfrac, a clipped value loss, advantage normalisation
per minibatch, and update epochs over a TensorDataset through a shuffling DataLoader."""

import numpy as np
import torch
import torch.nn as nn
from torch.distributions.categorical import Categorical
from torch.utils.data import DataLoader, TensorDataset

SQRT2 = np.sqrt(2)


class ChainEnv:
    """A batch of chains: action 1 walks right (reward at the end), action 0 resets with a small reward."""

    def __init__(self, n_envs, length=5):
        self.length = length
        self.pos = torch.zeros(n_envs, dtype=torch.long)

    def obs(self):
        return nn.functional.one_hot(self.pos, self.length).float()

    def step(self, action):
        self.pos = torch.where(action == 1, self.pos + 1, torch.zeros_like(self.pos))
        done = self.pos == self.length - 1
        reward = done.float() + (action == 0).float() * 0.05
        self.pos = self.pos.masked_fill(done, 0)
        return self.obs(), reward, done.float()


def layer_init(layer, std=SQRT2, bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, n_obs, n_act):
        super().__init__()
        self.critic = nn.Sequential(layer_init(nn.Linear(n_obs, 32)), nn.Tanh(), layer_init(nn.Linear(32, 1), std=1.0))
        self.actor = nn.Sequential(layer_init(nn.Linear(n_obs, 32)), nn.Tanh(),
                                   layer_init(nn.Linear(32, n_act), std=0.01))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        probs = Categorical(logits=self.actor(x))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def main():
    torch.manual_seed(3)
    n_envs, n_steps, gamma, lam, clip = 4, 16, 0.99, 0.95, 0.2
    env = ChainEnv(n_envs)
    agent = Agent(5, 2)
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-3, eps=1e-5)
    obs_buf = torch.zeros(n_steps, n_envs, 5)
    actions = torch.zeros(n_steps, n_envs)
    logprobs = torch.zeros(n_steps, n_envs)
    rewards = torch.zeros(n_steps, n_envs)
    dones = torch.zeros(n_steps, n_envs)
    values = torch.zeros(n_steps, n_envs)
    next_obs, next_done = env.obs(), torch.zeros(n_envs)
    out = []
    for _ in range(3):
        for step in range(n_steps):
            obs_buf[step] = next_obs
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob
            next_obs, rewards[step], next_done = env.step(action)
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(n_steps)):
                if t == n_steps - 1:
                    nextnonterminal, nextvalues = 1.0 - next_done, next_value
                else:
                    nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + gamma * lam * nextnonterminal * lastgaelam
            returns = advantages + values
        dataset = TensorDataset(obs_buf.reshape(-1, 5), actions.reshape(-1), logprobs.reshape(-1),
                                advantages.reshape(-1), returns.reshape(-1), values.reshape(-1))
        clipfracs = []
        for _ in range(2):
            for mb_obs, mb_act, mb_logp, mb_adv, mb_ret, mb_val in DataLoader(dataset, batch_size=16, shuffle=True):
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(mb_obs, mb_act.long())
                logratio = newlogprob - mb_logp
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > clip).float().mean().item())
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
                newvalue = newvalue.view(-1)
                v_clipped = mb_val + torch.clamp(newvalue - mb_val, -clip, clip)
                v_loss = 0.5 * torch.max((newvalue - mb_ret) ** 2, (v_clipped - mb_ret) ** 2).mean()
                loss = pg_loss - 0.01 * entropy.mean() + v_loss * 0.5
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
                out += [loss.item(), approx_kl.item()]
        y_pred, y_true = values.flatten().numpy(), returns.flatten().numpy()
        explained_var = 1 - np.var(y_true - y_pred) / np.var(y_true)
        out += [float(np.mean(clipfracs)), float(explained_var), rewards.sum().item()]
    return out
