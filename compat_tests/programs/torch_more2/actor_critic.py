"""Advantage actor-critic with generalized advantage estimation on two tiny synthetic environments: a discrete
one (Categorical over logits, entropy bonus) and a continuous one (a Normal policy with a learned log-std,
tanh-squashed actions with the log-det correction), batched rollouts, returns by a reversed loop, a shared trunk
with separate heads, smooth_l1 value loss, clip_grad_norm_ and RMSprop."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, Normal


class GridEnv:
    """4 parallel agents on a line of 6 cells; actions left/stay/right; reward at cell 5, step cost 0.05."""

    def __init__(self):
        self.pos = torch.zeros(4, dtype=torch.long)

    def obs(self):
        return F.one_hot(self.pos, 6).float()

    def step(self, action):
        self.pos = (self.pos + action - 1).clamp(0, 5)
        done = self.pos == 5
        reward = done.float() - 0.05
        self.pos = torch.where(done, torch.zeros_like(self.pos), self.pos)
        return self.obs(), reward, done.float()


class ActorCritic(nn.Module):
    def __init__(self, n_obs, n_out, continuous=False):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(n_obs, 32), nn.Tanh())
        self.pi = nn.Linear(32, n_out)
        self.v = nn.Linear(32, 1)
        self.log_std = nn.Parameter(torch.full((n_out,), -0.5)) if continuous else None

    def forward(self, x):
        h = self.trunk(x)
        if self.log_std is None:
            return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)
        return Normal(self.pi(h), self.log_std.exp().expand(x.shape[0], -1)), self.v(h).squeeze(-1)


def gae(rewards, values, dones, last_value, gamma=0.95, lam=0.9):
    adv = torch.zeros_like(rewards)
    running = torch.zeros(rewards.shape[1])
    for t in reversed(range(rewards.shape[0])):
        next_value = last_value if t == rewards.shape[0] - 1 else values[t + 1]
        delta = rewards[t] + gamma * next_value * (1 - dones[t]) - values[t]
        running = delta + gamma * lam * (1 - dones[t]) * running
        adv[t] = running
    return adv, adv + values


def main():
    torch.manual_seed(17)
    out = []
    env, net = GridEnv(), ActorCritic(6, 3)
    opt = torch.optim.RMSprop(net.parameters(), lr=7e-3, alpha=0.99, eps=1e-5)
    obs = env.obs()
    for _update in range(8):
        log_probs, values, rewards, dones, entropies = [], [], [], [], []
        for _ in range(6):
            dist, value = net(obs)
            action = dist.sample()
            obs, reward, done = env.step(action)
            log_probs.append(dist.log_prob(action))
            entropies.append(dist.entropy())
            values.append(value)
            rewards.append(reward)
            dones.append(done)
        with torch.no_grad():
            _, last_value = net(obs)
        values_t = torch.stack(values)
        adv, returns = gae(torch.stack(rewards), values_t.detach(), torch.stack(dones), last_value)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        policy_loss = -(torch.stack(log_probs) * adv).mean()
        value_loss = F.smooth_l1_loss(values_t, returns)
        entropy = torch.stack(entropies).mean()
        loss = policy_loss + 0.5 * value_loss - 0.01 * entropy
        opt.zero_grad()
        loss.backward()
        norm = nn.utils.clip_grad_norm_(net.parameters(), 0.5)
        opt.step()
        out += [loss.item(), value_loss.item(), entropy.item(), norm.item(), torch.stack(rewards).sum().item()]

    # Continuous control: steer a 2-d point towards the origin; actions squashed by tanh.
    net = ActorCritic(2, 2, continuous=True)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for _update in range(6):
        state = torch.randn(16, 2)
        dist, value = net(state)
        raw = dist.rsample()
        action = torch.tanh(raw)
        log_prob = (dist.log_prob(raw) - torch.log(1 - action.pow(2) + 1e-6)).sum(-1)
        reward = -(state + 0.5 * action).norm(dim=-1)
        advantage = reward - value.detach()
        loss = -(log_prob * advantage).mean() + F.mse_loss(value, reward) - 1e-3 * dist.entropy().sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [loss.item(), reward.mean().item(), net.log_std.sum().item(), dist.stddev.mean().item()]
    return out
