""""Reinforcement Learning (DQN) Tutorial", without gym: the namedtuple Transition and ReplayMemory (a deque with
random.sample), the DQN network, epsilon-greedy select_action with math.exp decay, optimize_model with
non_final_mask, torch.cat of batched transitions, gather, max(1).values under no_grad, SmoothL1Loss,
clip_grad_value_, AdamW(amsgrad=True) and the soft update of the target network through state_dict, on a toy
deterministic environment."""

import math
import random
from collections import deque, namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

Transition = namedtuple('Transition', ('state', 'action', 'next_state', 'reward'))


class ReplayMemory:
    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)

    def push(self, *args):
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class DQN(nn.Module):
    def __init__(self, n_observations, n_actions):
        super().__init__()
        self.layer1 = nn.Linear(n_observations, 32)
        self.layer2 = nn.Linear(32, 32)
        self.layer3 = nn.Linear(32, n_actions)

    def forward(self, x):
        x = F.relu(self.layer1(x))
        x = F.relu(self.layer2(x))
        return self.layer3(x)


class ToyEnv:
    """A walk on a line: the state is (position, velocity), action 0/1 pushes left/right, episodes end at |x| > 2."""

    def reset(self):
        self.x, self.v, self.t = 0.1, 0.0, 0
        return [self.x, self.v], {}

    def step(self, action):
        self.v += 0.1 if action == 1 else -0.1
        self.x += self.v
        self.t += 1
        terminated = abs(self.x) > 2
        truncated = self.t >= 20
        return [self.x, self.v], 1.0 - abs(self.x) / 2, terminated, truncated, {}


BATCH_SIZE = 16
GAMMA = 0.99
EPS_START = 0.9
EPS_END = 0.05
EPS_DECAY = 100
TAU = 0.005
LR = 1e-3


def main():
    out = []
    torch.manual_seed(0)
    random.seed(0)
    env = ToyEnv()
    device = torch.device("cpu")
    n_actions = 2
    state, info = env.reset()
    n_observations = len(state)
    policy_net = DQN(n_observations, n_actions).to(device)
    target_net = DQN(n_observations, n_actions).to(device)
    target_net.load_state_dict(policy_net.state_dict())
    optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
    memory = ReplayMemory(200)
    steps_done = 0
    out.append(str(policy_net))

    def select_action(state):
        nonlocal steps_done
        sample = random.random()
        eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1. * steps_done / EPS_DECAY)
        steps_done += 1
        if sample > eps_threshold:
            with torch.no_grad():
                return policy_net(state).max(1).indices.view(1, 1)
        else:
            return torch.tensor([[random.randint(0, n_actions - 1)]], device=device, dtype=torch.long)

    def optimize_model():
        if len(memory) < BATCH_SIZE:
            return None
        transitions = memory.sample(BATCH_SIZE)
        batch = Transition(*zip(*transitions))
        non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), device=device,
                                      dtype=torch.bool)
        non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
        state_batch = torch.cat(batch.state)
        action_batch = torch.cat(batch.action)
        reward_batch = torch.cat(batch.reward)
        state_action_values = policy_net(state_batch).gather(1, action_batch)
        next_state_values = torch.zeros(BATCH_SIZE, device=device)
        with torch.no_grad():
            next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
        expected_state_action_values = (next_state_values * GAMMA) + reward_batch
        criterion = nn.SmoothL1Loss()
        loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
        optimizer.step()
        return loss.item()

    episode_durations = []
    for _ in range(6):
        state, info = env.reset()
        state = torch.tensor(state, dtype=torch.float32, device=device).unsqueeze(0)
        for t in range(100):
            action = select_action(state)
            observation, reward, terminated, truncated, _ = env.step(action.item())
            reward = torch.tensor([reward], device=device)
            done = terminated or truncated
            if terminated:
                next_state = None
            else:
                next_state = torch.tensor(observation, dtype=torch.float32, device=device).unsqueeze(0)
            memory.push(state, action, next_state, reward)
            state = next_state
            loss = optimize_model()
            if loss is not None:
                out.append(loss)
            target_net_state_dict = target_net.state_dict()
            policy_net_state_dict = policy_net.state_dict()
            for key in policy_net_state_dict:
                target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
            target_net.load_state_dict(target_net_state_dict)
            if done:
                episode_durations.append(t + 1)
                break
    out += episode_durations
    out.append(repr(memory.memory[0]._fields))
    out += [p.sum().item() for p in target_net.parameters()]
    state = optimizer.state_dict()
    out += [repr(state["param_groups"]), repr(sorted(state["state"][0].keys())), repr(state["state"][0]["step"])]
    durations_t = torch.tensor(episode_durations, dtype=torch.float)
    if len(durations_t) >= 4:
        means = durations_t.unfold(0, 4, 1).mean(1).view(-1)
        means = torch.cat((torch.zeros(3), means))
        out += means.tolist()
    return out
