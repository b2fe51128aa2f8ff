"""REINFORCE with a Categorical policy, in the style of pytorch/examples'
reinforcement_learning/reinforce.py (its Policy, select_action and finish_episode), on a
small built-in bandit-like environment instead of gym."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

gamma = 0.99
eps = torch.finfo(torch.float32).eps


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 32)
        self.dropout = nn.Dropout(p=0.2)
        self.affine2 = nn.Linear(32, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


def select_action(policy, state):
    state = state.unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode(policy, optimizer):
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss.item()


def main(episodes=4, steps=10, seed=543):
    torch.manual_seed(seed)
    policy = Policy()
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    losses = []
    for _ in range(episodes):
        state = torch.randn(4)
        for _ in range(steps):
            action = select_action(policy, state)
            policy.rewards.append(float(action == int(state[0] > 0)))  # reward: guess the sign
            state = torch.randn(4)
        losses.append(finish_episode(policy, optimizer))
    return losses, policy
