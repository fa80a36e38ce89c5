"""Policy gradient (the REINFORCE and actor-critic examples) on a tiny deterministic environment: a policy net
with Categorical(probs).sample / log_prob / entropy, discounted returns normalized with eps, smooth_l1 critic
loss; a Gaussian policy with Normal.rsample and kl_divergence; log lines formatted with f"{tensor:.4f}"."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, Normal, kl_divergence


class Corridor:
    """Walk left/right/stay on 7 cells; reward 1 at the right end, episodes of at most 10 steps."""

    def reset(self):
        self.pos, self.t = 3, 0
        return self.obs()

    def obs(self):
        o = np.zeros(7, dtype=np.float32)
        o[self.pos] = 1.0
        return o

    def step(self, action):
        self.pos = min(6, max(0, self.pos + (action - 1)))
        self.t += 1
        done = self.pos == 6 or self.t >= 10
        return self.obs(), float(self.pos == 6), done


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(7, 16)
        self.dropout = nn.Dropout(p=0.2)
        self.action_head = nn.Linear(16, 3)
        self.value_head = nn.Linear(16, 1)

    def forward(self, x):
        x = F.relu(self.dropout(self.affine1(x)))
        return F.softmax(self.action_head(x), dim=-1), self.value_head(x)


def main():
    torch.manual_seed(543)
    env, policy = Corridor(), Policy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-2)
    eps = np.finfo(np.float32).eps.item()
    gamma = 0.9
    out, log = [], []
    for episode in range(6):
        state, log_probs, values, rewards, entropies = env.reset(), [], [], [], []
        done = False
        while not done:
            probs, value = policy(torch.from_numpy(state).float().unsqueeze(0))
            m = Categorical(probs)
            action = m.sample()
            log_probs.append(m.log_prob(action))
            entropies.append(m.entropy())
            values.append(value)
            state, reward, done = env.step(action.item())
            rewards.append(reward)
        R, returns = 0, []
        for r in rewards[::-1]:
            R = r + gamma * R
            returns.insert(0, R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps) if len(returns) > 1 else returns
        policy_losses, value_losses = [], []
        for log_prob, value, R in zip(log_probs, values, returns):
            advantage = R - value.item()
            policy_losses.append(-log_prob * advantage)
            value_losses.append(F.smooth_l1_loss(value, torch.tensor([[R]])))
        optimizer.zero_grad()
        loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum() - 0.01 * torch.cat(entropies).sum()
        loss.backward()
        optimizer.step()
        out += [loss.item(), len(rewards), sum(rewards)]
        log.append(f"Episode {episode}\tloss {loss:.4f}\tentropy {torch.cat(entropies).mean():.3f}")
    # A Gaussian policy: reparameterized actions, their log-density and a KL to a fixed prior.
    mu_net = nn.Linear(7, 2)
    log_std = nn.Parameter(torch.zeros(2))
    opt = torch.optim.SGD(list(mu_net.parameters()) + [log_std], lr=0.1)
    prior = Normal(torch.zeros(2), torch.ones(2))
    for _step in range(5):
        dist = Normal(mu_net(torch.eye(7)), log_std.exp())
        actions = dist.rsample()
        objective = -(actions.sum(-1) - 0.5 * actions.pow(2).sum(-1)).mean()
        loss = objective + 0.1 * kl_divergence(dist, prior).sum(-1).mean() - 0.01 * dist.entropy().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [loss.item(), dist.log_prob(actions.detach()).sum().item()]
    out.append(repr(Categorical(probs=torch.tensor([0.25, 0.75]))))
    out.append(repr(dist))
    out.append("\n".join(log))
    return out


if __name__ == "__main__":
    print(main())
