"""DQN on a tiny deterministic grid-walk environment (the reinforcement-learning tutorial's structure): a
collections.deque replay buffer sampled with a seeded random.Random, namedtuple transitions batched with
torch.cat / torch.tensor, epsilon-greedy actions from a torch.Generator with an exponentially decaying epsilon,
Q(s, a) by gather(1, actions), targets from a target network under no_grad with max(1).values, smooth_l1_loss,
AdamW with amsgrad, value-clipped gradients, and soft target updates through state_dict / load_state_dict."""

import math
import random
from collections import deque, namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Transition = namedtuple("Transition", ("state", "action", "next_state", "reward", "done"))


class GridWalk:
    """Walk on a line of 8 cells; reaching the right end pays 1, every step costs 0.01."""

    def __init__(self, size=8):
        self.size = size

    def reset(self):
        self.pos = 0
        return self.observe()

    def observe(self):
        return F.one_hot(torch.tensor(self.pos), self.size).float().unsqueeze(0)

    def step(self, action):
        self.pos = max(0, min(self.size - 1, self.pos + (1 if action == 1 else -1)))
        done = self.pos == self.size - 1
        return self.observe(), (1.0 if done else -0.01), done


def main():
    torch.manual_seed(13)
    rng = random.Random(13)
    gen = torch.Generator().manual_seed(13)
    env = GridWalk()
    policy = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
    target = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
    target.load_state_dict(policy.state_dict())
    opt = torch.optim.AdamW(policy.parameters(), lr=1e-3, amsgrad=True)
    memory = deque(maxlen=200)
    gamma, tau, steps, out = 0.9, 0.05, 0, []
    for _episode in range(6):
        state, total = env.reset(), 0.0
        for _t in range(20):
            eps = 0.05 + 0.85 * math.exp(-steps / 40)
            steps += 1
            if torch.rand(1, generator=gen).item() > eps:
                with torch.no_grad():
                    action = policy(state).max(1).indices.view(1, 1)
            else:
                action = torch.randint(0, 2, (1, 1), generator=gen)
            nxt, reward, done = env.step(action.item())
            total += reward
            memory.append(Transition(state, action, nxt, torch.tensor([reward]), torch.tensor([float(done)])))
            state = nxt
            if len(memory) >= 16:
                batch = Transition(*zip(*rng.sample(memory, 16)))
                s, a, s2 = torch.cat(batch.state), torch.cat(batch.action), torch.cat(batch.next_state)
                r, d = torch.cat(batch.reward), torch.cat(batch.done)
                q = policy(s).gather(1, a)
                with torch.no_grad():
                    q_next = target(s2).max(1).values
                expected = r + gamma * q_next * (1 - d)
                loss = F.smooth_l1_loss(q, expected.unsqueeze(1))
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_value_(policy.parameters(), 100)
                opt.step()
                out.append(loss.item())
                t_sd, p_sd = target.state_dict(), policy.state_dict()
                for key in p_sd:
                    t_sd[key] = p_sd[key] * tau + t_sd[key] * (1 - tau)
                target.load_state_dict(t_sd)
            if done:
                break
        out.append(total)
    with torch.no_grad():
        states = torch.eye(8)
        out += policy(states).flatten().tolist() + target(states).argmax(1).tolist()
    return out
