"""PyTorch programs in the style of the official examples and tutorials, run unchanged but for the
import (issue 14): each program is a function of the module it calls ``torch``, run once with
``minitorch_rx`` and once with ``torch``, and the losses must agree step by step.

Passing the module in is ``import minitorch_rx as torch`` without shadowing the real torch in this
file; inside each program every name is reached through ``torch`` as user code reaches it.
"""

from __future__ import annotations

import pytest
import torch as real_torch
import torchvision.transforms as transforms

import minitorch_rx
from minitorch_rx.data import MNISTSubset


def run_both(program, **kwargs) -> tuple[list[float], list[float]]:
    return program(minitorch_rx, **kwargs), program(real_torch, **kwargs)


def assert_same_losses(ours: list[float], theirs: list[float], rtol: float = 1e-5) -> None:
    assert len(ours) == len(theirs) > 0
    real_torch.testing.assert_close(real_torch.tensor(ours), real_torch.tensor(theirs), rtol=rtol, atol=1e-7)


# --------------------------------------------------------------- a regression, SGD by hand on .data
def manual_sgd_regression(torch, steps: int = 20) -> list[float]:
    torch.manual_seed(0)
    x = torch.linspace(-1, 1, 64).unsqueeze(1)
    y = 3 * x + 0.5 + 0.1 * torch.randn(64, 1)
    w = torch.randn(1, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    learning_rate = 0.1
    losses = []
    for step in range(steps):
        y_pred = x @ w + b
        loss = (y_pred - y).pow(2).mean()
        if step == 0:
            assert loss.grad_fn.next_functions[0][0].name() == "PowBackward0"
        loss.backward()
        w.data.add_(-learning_rate * w.grad)
        b.data -= learning_rate * b.grad.data
        w.grad.data.zero_()
        b.grad.data.zero_()
        losses.append(float(f"{loss:.6f}"))
    return losses


def test_manual_sgd_regression_on_data_matches_torch():
    ours, theirs = run_both(manual_sgd_regression)
    assert_same_losses(ours, theirs)
    assert ours[-1] < ours[0] / 10


# ---------------------------------------------------------------- the autograd tutorial's first lines
def autograd_tutorial(torch) -> list[float]:
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    assert type(y.grad_fn).__name__ == "AddBackward0"
    assert out.grad_fn.next_functions[0][0].next_functions[0][0].name() == "MulBackward0"
    out.backward()
    a = torch.Tensor([[1.0, 2.0]])
    return [out.item(), *x.grad.flatten().tolist(), *a.tolist()[0], float(torch.is_tensor(a))]


def test_autograd_tutorial_matches_torch():
    assert_same_losses(*run_both(autograd_tutorial))


# ------------------------------------------------ a small training script through torch.utils.data
def dataloader_regression(torch, epochs: int = 3) -> list[float]:
    nn, optim = torch.nn, torch.optim
    torch.backends.cudnn.benchmark = False
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    inputs = torch.randn(96, 5).float()
    targets = inputs @ torch.FloatTensor([[1.0], [-2.0], [0.5], [0.0], [3.0]]) + 0.1
    train_set, _ = torch.utils.data.random_split(
        torch.utils.data.TensorDataset(inputs, targets), [64, 32], generator=torch.Generator().manual_seed(0)
    )
    loader = torch.utils.data.DataLoader(train_set, batch_size=16, shuffle=True)
    model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1)).to(device)
    nn.init.xavier_uniform_(model[0].weight)
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.MSELoss()
    losses = []
    for _ in range(epochs):
        for batch, target in loader:
            batch, target = batch.to(device), target.to(device)
            optimizer.zero_grad()
            loss = criterion(model(batch), target)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            losses.append(loss.item())
    return losses


def test_dataloader_regression_matches_torch():
    ours, theirs = run_both(dataloader_regression)
    assert_same_losses(ours, theirs)
    assert ours[-1] < ours[0]


# ------------------------------------------------------ the official MNIST example's network and loop
def mnist_cnn(torch, steps: int = 3, batch_size: int = 8) -> list[float]:
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.dropout2 = nn.Dropout(0.5)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = self.conv1(x)
            x = F.relu(x)
            x = self.conv2(x)
            x = F.relu(x)
            x = F.max_pool2d(x, 2)
            x = self.dropout1(x)
            x = torch.flatten(x, 1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.dropout2(x)
            x = self.fc2(x)
            output = F.log_softmax(x, dim=1)
            return output

    torch.manual_seed(1)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    dataset = torch.utils.data.Subset(MNISTSubset(train=True, transform=transform), range(steps * batch_size))
    train_loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True)
    model = Net().to(device)
    optimizer = optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
    model.train()
    losses = []
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        log = "Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}".format(  # noqa: UP032  (the example's spelling)
            1, batch_idx * len(data), len(train_loader.dataset), 100.0 * batch_idx / len(train_loader), loss
        )
        losses.append(float(log.rsplit(" ", 1)[1]))
    return losses


@pytest.mark.filterwarnings("ignore:The given buffer is not writable")
def test_mnist_cnn_matches_torch_step_by_step():
    assert_same_losses(*run_both(mnist_cnn))


# ------------------------------------------------------------- the AMP recipe (CPU: bfloat16 autocast)
def amp_recipe(torch, steps: int = 6) -> list[float]:
    nn = torch.nn
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 8)).to(device)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    data = [torch.randn(16, 32, device=device) for _ in range(steps)]
    targets = [torch.randn(16, 8, device=device) for _ in range(steps)]
    use_amp = True
    scaler = torch.amp.GradScaler(device, enabled=use_amp)
    losses = []
    for input, target in zip(data, targets):
        with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=use_amp):
            output = net(input)
            assert output.dtype == torch.bfloat16
            loss = loss_fn(output, target)
            assert loss.dtype == torch.float32
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        losses.append(loss.item())
    return losses


def test_amp_recipe_matches_torch():
    ours, theirs = run_both(amp_recipe)
    assert_same_losses(ours, theirs)


# ------------------------------------------------------ the official VAE example, on a few batches
def vae(torch, steps: int = 6) -> list[float]:
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(784, 64)
            self.fc21 = nn.Linear(64, 8)
            self.fc22 = nn.Linear(64, 8)
            self.fc3 = nn.Linear(8, 64)
            self.fc4 = nn.Linear(64, 784)

        def encode(self, x):
            h1 = F.relu(self.fc1(x))
            return self.fc21(h1), self.fc22(h1)

        def reparameterize(self, mu, logvar):
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std)
            return mu + eps * std

        def decode(self, z):
            h3 = F.relu(self.fc3(z))
            return torch.sigmoid(self.fc4(h3))

        def forward(self, x):
            mu, logvar = self.encode(x.view(-1, 784))
            z = self.reparameterize(mu, logvar)
            return self.decode(z), mu, logvar

    def loss_function(recon_x, x, mu, logvar):
        bce = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return bce + kld

    torch.manual_seed(1)
    images = MNISTSubset(train=False).data[:96].float().div(255).unsqueeze(1)
    model = VAE()
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    losses = []
    for step in range(steps):
        data = images[step * 16 : (step + 1) * 16]
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        optimizer.step()
        losses.append(loss.item() / len(data))
    return losses


def test_vae_example_matches_torch():
    ours, theirs = run_both(vae)
    assert_same_losses(ours, theirs, rtol=1e-4)


# --------------------------------------------------------------------- a DCGAN-style GAN, 4 steps
def gan(torch, steps: int = 4) -> list[float]:
    nn, optim = torch.nn, torch.optim
    torch.manual_seed(2)
    generator = nn.Sequential(
        nn.ConvTranspose2d(8, 16, 4, 1, 0, bias=False),
        nn.BatchNorm2d(16),
        nn.ReLU(True),
        nn.ConvTranspose2d(16, 1, 4, 2, 1, bias=False),
        nn.Tanh(),
    )
    discriminator = nn.Sequential(
        nn.Conv2d(1, 16, 4, 2, 1, bias=False),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(16, 1, 4, 1, 0, bias=False),
        nn.Flatten(),
        nn.Sigmoid(),
    )
    criterion = nn.BCELoss()
    opt_d = optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_g = optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    real_images = MNISTSubset(train=False).data[:32, ::2, ::2][:, :8, :8].float().div(127.5).sub(1).unsqueeze(1)
    losses = []
    for step in range(steps):
        real = real_images[step * 8 : (step + 1) * 8]
        label = torch.full((8, 1), 1.0)
        discriminator.zero_grad()
        err_real = criterion(discriminator(real), label)
        err_real.backward()
        noise = torch.randn(8, 8, 1, 1)
        fake = generator(noise)
        label.fill_(0.0)
        err_fake = criterion(discriminator(fake.detach()), label)
        err_fake.backward()
        opt_d.step()
        generator.zero_grad()
        label.fill_(1.0)
        err_g = criterion(discriminator(fake), label)
        err_g.backward()
        opt_g.step()
        losses += [(err_real + err_fake).item(), err_g.item()]
    return losses


def test_dcgan_style_gan_matches_torch():
    ours, theirs = run_both(gan)
    assert_same_losses(ours, theirs, rtol=1e-4)
