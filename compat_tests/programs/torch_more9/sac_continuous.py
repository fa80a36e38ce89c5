"""Soft Actor-Critic on a toy continuous control task (in the style of spinningup / CleanRL sac_continuous_action):
a numpy environment and replay buffer (np.random.default_rng, torch.as_tensor / torch.from_numpy on float32
arrays), a squashed Gaussian actor (log-std clamped with torch.clamp, Normal.rsample, the tanh log-det correction
with F.softplus, and the same thing as TransformedDistribution(Normal, TanhTransform(cache_size=1))), twin Q critics
with torch.min, automatic entropy tuning through a log_alpha leaf tensor, and Polyak target updates with
torch.no_grad and in-place mul_/add_ (and torch._foreach_lerp_ on parameter lists)."""

import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal, TanhTransform, TransformedDistribution

LOG_STD_MIN, LOG_STD_MAX = -5.0, 2.0


class PointMass:
    """x'' = a on a line; reward for staying near the origin with little effort."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.state = self.rng.uniform(-1.0, 1.0, size=2).astype(np.float32)
        return self.state.copy()

    def step(self, action):
        pos, vel = self.state
        vel = vel + 0.1 * float(action[0])
        pos = pos + 0.1 * vel
        self.state = np.array([pos, vel], dtype=np.float32)
        return self.state.copy(), -(pos ** 2) - 0.01 * float(action[0]) ** 2


class ReplayBuffer:
    def __init__(self, obs_dim, act_dim, size, seed):
        self.obs = np.zeros((size, obs_dim), np.float32)
        self.next_obs = np.zeros((size, obs_dim), np.float32)
        self.act = np.zeros((size, act_dim), np.float32)
        self.rew = np.zeros(size, np.float32)
        self.ptr, self.size, self.max_size = 0, 0, size
        self.rng = np.random.default_rng(seed)

    def store(self, o, a, r, o2):
        self.obs[self.ptr], self.act[self.ptr], self.rew[self.ptr], self.next_obs[self.ptr] = o, a, r, o2
        self.ptr = (self.ptr + 1) % self.max_size
        self.size = min(self.size + 1, self.max_size)

    def sample(self, batch_size):
        idx = self.rng.integers(0, self.size, size=batch_size)
        return {k: torch.as_tensor(v[idx], dtype=torch.float32)
                for k, v in dict(obs=self.obs, act=self.act, rew=self.rew, obs2=self.next_obs).items()}


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, act_dim)
        self.log_std = nn.Linear(hidden, act_dim)

    def forward(self, obs, deterministic=False):
        h = self.net(obs)
        mu = self.mu(h)
        log_std = torch.clamp(self.log_std(h), LOG_STD_MIN, LOG_STD_MAX)
        dist = Normal(mu, log_std.exp())
        u = mu if deterministic else dist.rsample()
        logp = dist.log_prob(u).sum(-1) - (2 * (np.log(2) - u - F.softplus(-2 * u))).sum(-1)
        return torch.tanh(u), logp, dist


class QNet(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=32):
        super().__init__()
        self.q = nn.Sequential(nn.Linear(obs_dim + act_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs, act):
        return torch.squeeze(self.q(torch.cat([obs, act], dim=-1)), -1)


def main():
    torch.manual_seed(0)
    env = PointMass(0)
    buf = ReplayBuffer(2, 1, 256, seed=1)
    actor, q1, q2 = Actor(2, 1), QNet(2, 1), QNet(2, 1)
    q1_targ, q2_targ = copy.deepcopy(q1), copy.deepcopy(q2)
    for p in list(q1_targ.parameters()) + list(q2_targ.parameters()):
        p.requires_grad = False
    log_alpha = torch.zeros(1, requires_grad=True)
    target_entropy = -1.0
    pi_opt = torch.optim.Adam(actor.parameters(), lr=3e-3)
    q_opt = torch.optim.Adam(list(q1.parameters()) + list(q2.parameters()), lr=3e-3)
    a_opt = torch.optim.Adam([log_alpha], lr=3e-3)
    gamma, polyak = 0.95, 0.9
    out = []
    o = env.reset()
    for t in range(48):
        with torch.no_grad():
            a, _, _ = actor(torch.from_numpy(o).unsqueeze(0))
        a = a.squeeze(0).numpy()
        o2, r = env.step(a)
        buf.store(o, a, r, o2)
        o = o2 if t % 16 != 15 else env.reset()
        if t < 16 or t % 4:
            continue
        batch = buf.sample(16)
        alpha = log_alpha.exp().detach()
        with torch.no_grad():
            a2, logp_a2, _ = actor(batch["obs2"])
            q_targ = torch.min(q1_targ(batch["obs2"], a2), q2_targ(batch["obs2"], a2))
            backup = batch["rew"] + gamma * (q_targ - alpha * logp_a2)
        loss_q = F.mse_loss(q1(batch["obs"], batch["act"]), backup) + F.mse_loss(q2(batch["obs"], batch["act"]),
                                                                                  backup)
        q_opt.zero_grad()
        loss_q.backward()
        q_opt.step()

        for p in list(q1.parameters()) + list(q2.parameters()):
            p.requires_grad_(False)
        pi, logp_pi, _ = actor(batch["obs"])
        q_pi = torch.min(q1(batch["obs"], pi), q2(batch["obs"], pi))
        loss_pi = (alpha * logp_pi - q_pi).mean()
        pi_opt.zero_grad()
        loss_pi.backward()
        pi_opt.step()
        for p in list(q1.parameters()) + list(q2.parameters()):
            p.requires_grad_(True)

        loss_alpha = -(log_alpha * (logp_pi.detach() + target_entropy)).mean()
        a_opt.zero_grad()
        loss_alpha.backward()
        a_opt.step()

        with torch.no_grad():
            for p, p_targ in zip(q1.parameters(), q1_targ.parameters()):
                p_targ.data.mul_(polyak)
                p_targ.data.add_((1 - polyak) * p.data)
            torch._foreach_lerp_(list(q2_targ.parameters()), list(q2.parameters()), 1 - polyak)
        out += [loss_q.item(), loss_pi.item(), loss_alpha.item(), log_alpha.item()]

    obs = torch.tensor([[0.5, -0.2], [-0.3, 0.1]])
    with torch.no_grad():
        a_det, logp_det, dist = actor(obs, deterministic=True)
        squashed = TransformedDistribution(dist, [TanhTransform(cache_size=1)])
        sample = squashed.rsample()
        lp = squashed.log_prob(sample).sum(-1)
    out += a_det.flatten().tolist() + logp_det.tolist() + sample.flatten().tolist() + lp.tolist()
    out += [sum(p.sum() for p in q1_targ.parameters()).item(), sum(p.sum() for p in q2_targ.parameters()).item()]
    return out
