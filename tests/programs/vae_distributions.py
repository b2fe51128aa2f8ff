"""A variational autoencoder written with torch.distributions, in the style of the public
examples (pytorch/examples' vae/main.py, with its reparameterization and KL term taken from
torch.distributions): Normal posterior, Bernoulli likelihood, kl_divergence, Adam."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.distributions import Bernoulli, Normal, kl_divergence


class VAE(nn.Module):
    def __init__(self, x_dim=16, h_dim=32, z_dim=4):
        super().__init__()
        self.fc1 = nn.Linear(x_dim, h_dim)
        self.fc21 = nn.Linear(h_dim, z_dim)
        self.fc22 = nn.Linear(h_dim, z_dim)
        self.fc3 = nn.Linear(z_dim, h_dim)
        self.fc4 = nn.Linear(h_dim, x_dim)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def decode(self, z):
        return self.fc4(F.relu(self.fc3(z)))

    def forward(self, x):
        mu, logvar = self.encode(x)
        posterior = Normal(mu, torch.exp(0.5 * logvar))
        z = posterior.rsample()
        return Bernoulli(logits=self.decode(z)), posterior


def loss_function(likelihood, posterior, x):
    prior = Normal(torch.zeros_like(posterior.loc), torch.ones_like(posterior.scale))
    reconstruction = likelihood.log_prob(x).sum(-1)
    kl = kl_divergence(posterior, prior).sum(-1)
    return -(reconstruction - kl).mean()


def main(epochs=3, batch_size=8, seed=1):
    torch.manual_seed(seed)
    data = torch.bernoulli(torch.linspace(0.1, 0.9, 16).expand(32, 16))
    model = VAE()
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(epochs):
        for batch in data.split(batch_size):
            optimizer.zero_grad()
            likelihood, posterior = model(batch)
            loss = loss_function(likelihood, posterior, batch)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses, model
