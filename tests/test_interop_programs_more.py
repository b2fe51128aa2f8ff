"""Programs that hand their tensors and modules to the libraries around PyTorch (issue 35), run
with their imports renamed: each program is a function of the module it calls ``torch``
(``minitorch_rx`` or torch itself; ``nn``/``F`` are taken from it as ``from torch import nn``
gives them), run once on each in float64 from the same seed; the losses must fall, and agree
step by step with torch's. The libraries (timm, torchvision, kornia, torchmetrics, einops) are
imported as they are, and get our tensors and modules.

timm's training kit (Mixup, ``create_optimizer_v2``, ``CosineLRScheduler``, ``ModelEmaV3``, its
losses) on a classifier of ours around a timm backbone; a siamese net with a torchvision resnet18
cut by ``create_feature_extractor`` (fx) inside ours; a CNN trained on kornia augmentations and
scored by torchmetrics; a Burgers PINN (``autograd.grad`` with ``create_graph``, then LBFGS); a
GAN whose discriminator is a plain torch module, with kornia's differentiable augmentation; an
einops ViT (``einsum``/``pack``/``repeat``); a summary by forward hooks and a feature distillation
from a torchvision teacher; a HiFi-GAN block with weight norm (``nn.utils.weight_norm``, renamed).
"""

from __future__ import annotations

import math
import random
import shutil
from collections import OrderedDict

import numpy as np
import pytest
import torch as real_torch
import torchvision
from torchvision import datasets, transforms

import minitorch_rx

DATA = "/work/shared/data"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> str:
    """MNIST and Fashion-MNIST copied where torchvision's ``download=True`` finds them (offline)."""
    path = tmp_path_factory.mktemp("data")
    for name in ("MNIST", "FashionMNIST"):
        shutil.copytree(f"{DATA}/{name}/raw", path / name / "raw")
    return str(path)


def run_both(program, **kwargs) -> tuple:
    return program(minitorch_rx, **kwargs), program(real_torch, **kwargs)


def assert_same(ours, theirs, rtol: float = 1e-7) -> None:
    real_torch.testing.assert_close(real_torch.tensor(ours), real_torch.tensor(theirs), rtol=rtol, atol=1e-9)


def seed_all(torch, seed: int = 0) -> None:
    torch.manual_seed(seed)
    real_torch.manual_seed(seed)  # the libraries' own draws
    np.random.seed(seed)
    random.seed(seed)


# ----------------------------------------------------- timm: a backbone finetuned with timm's kit
def timm_finetune(torch, steps: int = 4) -> list[float]:
    timm = pytest.importorskip("timm")
    from timm.data import Mixup
    from timm.loss import LabelSmoothingCrossEntropy, SoftTargetCrossEntropy
    from timm.optim import create_optimizer_v2
    from timm.scheduler import CosineLRScheduler
    from timm.utils import ModelEmaV3, accuracy

    nn = torch.nn
    seed_all(torch)

    class Classifier(nn.Module):
        def __init__(self, num_classes: int = 10):
            super().__init__()
            self.backbone = timm.create_model("test_resnet", pretrained=False, num_classes=0, in_chans=1)
            self.head = real_torch.nn.Sequential(  # a torch container of our layers and torch's
                nn.Dropout(0.1),
                nn.Linear(self.backbone.num_features, 64),
                real_torch.nn.ReLU(),
                nn.Linear(64, num_classes),
            )

        def forward(self, x):
            return self.head(self.backbone(x))

    model = Classifier().double()
    mixup_fn = Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, label_smoothing=0.1, num_classes=10)
    optimizer = create_optimizer_v2(model, opt="adamw", lr=2e-3, weight_decay=0.05)
    scheduler = CosineLRScheduler(optimizer, t_initial=steps, warmup_t=1, warmup_lr_init=1e-4)
    ema = ModelEmaV3(model, decay=0.9)
    train_loss, val_loss = SoftTargetCrossEntropy(), LabelSmoothingCrossEntropy(0.1)
    x, y = torch.randn(8, 1, 16, 16, dtype=torch.float64), torch.randint(0, 10, (8,))
    losses = []
    for step in range(steps):
        model.train()
        xm, ym = mixup_fn(x, y)
        loss = train_loss(model(xm), ym)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ema.update(model, step=step)
        scheduler.step(step + 1)
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        out = ema.module(x)
        top1, top5 = accuracy(out, y, topk=(1, 5))
    return losses + [val_loss(out, y).item(), top1.item(), top5.item()]


def test_timm_backbone_finetuned_with_timms_mixup_optimizer_scheduler_and_ema_as_on_torch():
    ours, theirs = run_both(timm_finetune)
    assert_same(ours, theirs)
    assert ours[3] < ours[0]


# ---------------------------------------- torchvision: a resnet18 cut by fx inside a siamese net
def siamese(torch, root: str, steps: int = 4) -> list[float]:
    from torchvision.models.feature_extraction import create_feature_extractor

    nn, F = torch.nn, torch.nn.functional
    seed_all(torch)
    norm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    ds = datasets.MNIST(root, train=False, download=True, transform=norm)
    loader = torch.utils.data.DataLoader(torch.utils.data.Subset(ds, range(16)), batch_size=16)

    class SiameseNet(nn.Module):
        def __init__(self, embedding_dim: int = 16):
            super().__init__()
            resnet = torchvision.models.resnet18(weights=None)
            resnet.conv1 = nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3, bias=False)
            self.features = create_feature_extractor(resnet, return_nodes={"layer1": "feat"})
            self.embed = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, embedding_dim))

        def forward_once(self, x):
            return F.normalize(self.embed(self.features(x)["feat"]), dim=1)

        def forward(self, a, p, n):
            return self.forward_once(a), self.forward_once(p), self.forward_once(n)

    model = SiameseNet().double()
    criterion = nn.TripletMarginLoss(margin=0.5)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    images, labels = next(iter(loader))
    images = images.double()
    idx = torch.arange(len(labels))
    positives = torch.stack([idx[labels == label][-1] for label in labels])
    negatives = torch.stack([idx[labels != label][0] for label in labels])
    losses = []
    for _ in range(steps):
        a, p, n = model(images, images[positives], images[negatives])
        target = -torch.ones(len(a), dtype=torch.float64)
        loss = criterion(a, p, n) + 0.1 * F.cosine_embedding_loss(a, n, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def test_siamese_net_around_a_torchvision_feature_extractor_trains_as_on_torch(root):
    ours, theirs = run_both(siamese, root=root)
    assert_same(ours, theirs)
    assert ours[-1] < 0.7 * ours[0]


# ------------------------------------------ kornia augmentations in the loop, torchmetrics to score
def kornia_torchmetrics(torch, root: str, epochs: int = 3) -> list[float]:
    K = pytest.importorskip("kornia.augmentation")
    kornia = pytest.importorskip("kornia")
    torchmetrics = pytest.importorskip("torchmetrics")
    nn, F = torch.nn, torch.nn.functional
    seed_all(torch)
    ds = datasets.MNIST(root, train=False, download=True, transform=transforms.ToTensor())
    train_loader = torch.utils.data.DataLoader(torch.utils.data.Subset(ds, range(96)), batch_size=32, shuffle=True)
    val_loader = torch.utils.data.DataLoader(torch.utils.data.Subset(ds, range(96, 160)), batch_size=64)
    normalize = K.Normalize(mean=torch.tensor([0.1307]), std=torch.tensor([0.3081]))
    augment = nn.Sequential(
        K.RandomAffine(degrees=10.0, translate=(0.1, 0.1), p=0.8), K.RandomGaussianNoise(std=0.05, p=0.5), normalize
    )
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(256, 10),
    ).double()  # fmt: skip
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    metrics = torchmetrics.MetricCollection(
        {
            "acc": torchmetrics.classification.MulticlassAccuracy(num_classes=10),
            "f1": torchmetrics.classification.MulticlassF1Score(num_classes=10, average="macro"),
        }
    )
    losses, scores = [], []
    for _ in range(epochs):
        model.train()
        for x, y in train_loader:
            x = kornia.filters.gaussian_blur2d(augment(x.double()), (3, 3), (0.5, 0.5))
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                logits = model(normalize(x.double()))
                metrics.update(logits.softmax(-1), y)
        scores += [v.item() for v in metrics.compute().values()]
        metrics.reset()
    return losses + scores


def test_cnn_trained_on_kornia_augmentations_and_scored_by_torchmetrics_as_on_torch(root):
    ours, theirs = run_both(kornia_torchmetrics, root=root)
    assert_same(ours, theirs)
    assert sum(ours[6:9]) < 0.95 * sum(ours[:3])


# --------------------------------------------- a physics-informed net: derivatives of derivatives
def burgers_pinn(torch, adam_steps: int = 15, lbfgs_steps: int = 2) -> list[float]:
    """u_t + u u_x = nu u_xx on [-1, 1] x [0, 1], u(0, x) = -sin(pi x), u(t, +-1) = 0 (Raissi et al.)."""
    nn = torch.nn
    seed_all(torch)
    nu = 0.01 / math.pi

    class PINN(nn.Module):
        def __init__(self, layers=(2, 16, 16, 1)):
            super().__init__()
            self.activation = nn.Tanh()
            self.linears = nn.ModuleList([nn.Linear(a, b) for a, b in zip(layers[:-1], layers[1:])])
            for linear in self.linears:
                nn.init.xavier_normal_(linear.weight.data, gain=1.0)
                nn.init.zeros_(linear.bias.data)

        def forward(self, x, t):
            a = torch.cat([x, t], dim=1)
            for linear in self.linears[:-1]:
                a = self.activation(linear(a))
            return self.linears[-1](a)

    net = PINN().double()
    collocation = np.random.uniform([-1, 0], [1, 1], size=(100, 2))
    x_f = torch.tensor(collocation[:, 0:1], requires_grad=True)
    t_f = torch.tensor(collocation[:, 1:2], requires_grad=True)
    x0 = torch.from_numpy(np.linspace(-1, 1, 40)[:, None])
    t0, u0 = torch.zeros_like(x0), -torch.sin(math.pi * x0)
    tb = torch.from_numpy(np.random.uniform(0, 1, size=(40, 1)))
    xb = torch.from_numpy(np.sign(np.random.uniform(-1, 1, size=(40, 1))))
    mse = nn.MSELoss()

    def loss_fn():
        u = net(x_f, t_f)
        ones = torch.ones_like(u)
        u_t = torch.autograd.grad(u, t_f, grad_outputs=ones, retain_graph=True, create_graph=True)[0]
        u_x = torch.autograd.grad(u, x_f, grad_outputs=ones, retain_graph=True, create_graph=True)[0]
        u_xx = torch.autograd.grad(u_x, x_f, grad_outputs=torch.ones_like(u_x), create_graph=True)[0]
        f = u_t + u * u_x - nu * u_xx
        return mse(net(x0, t0), u0) + mse(net(xb, tb), torch.zeros_like(tb)) + mse(f, torch.zeros_like(f))

    losses = []
    adam = torch.optim.Adam(net.parameters(), lr=1e-2)
    for _ in range(adam_steps):
        adam.zero_grad()
        loss = loss_fn()
        loss.backward()
        adam.step()
        losses.append(loss.item())
    lbfgs = torch.optim.LBFGS(net.parameters(), lr=1.0, max_iter=10, history_size=20, line_search_fn="strong_wolfe")

    def closure():
        lbfgs.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    for _ in range(lbfgs_steps):
        losses.append(lbfgs.step(closure).item())
    return losses


def test_burgers_pinn_with_create_graph_and_lbfgs_trains_as_on_torch():
    ours, theirs = run_both(burgers_pinn)
    assert_same(ours, theirs, rtol=1e-6)
    assert ours[-1] < 0.5 * ours[0]


# ------------------------- a GAN: our generator, a plain torch discriminator, kornia's DiffAugment
class TorchDiscriminator(real_torch.nn.Module):
    """Another file's torch module, imported as it is."""

    def __init__(self):
        super().__init__()
        self.main = real_torch.nn.Sequential(
            real_torch.nn.Conv2d(1, 8, 4, 2, 1),
            real_torch.nn.LeakyReLU(0.2),
            real_torch.nn.Conv2d(8, 16, 4, 2, 1),
            real_torch.nn.BatchNorm2d(16),
            real_torch.nn.LeakyReLU(0.2),
            real_torch.nn.Flatten(),
            real_torch.nn.Linear(16 * 7 * 7, 1),
        )

    def forward(self, x):
        return self.main(x).view(-1)


def gan(torch, root: str, steps: int = 4) -> list[float]:
    K = pytest.importorskip("kornia.augmentation")
    nn = torch.nn
    seed_all(torch)
    norm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    ds = datasets.MNIST(root, train=False, download=True, transform=norm)
    loader = torch.utils.data.DataLoader(torch.utils.data.Subset(ds, range(16 * steps)), batch_size=16)
    nz = 16

    class Generator(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Sequential(nn.Linear(nz, 16 * 7 * 7), nn.BatchNorm1d(16 * 7 * 7), nn.ReLU())
            self.deconv = nn.Sequential(
                nn.ConvTranspose2d(16, 8, 4, 2, 1),
                nn.BatchNorm2d(8),
                nn.ReLU(),
                nn.ConvTranspose2d(8, 1, 4, 2, 1),
                nn.Tanh(),
            )

        def forward(self, z):
            return self.deconv(self.fc(z).view(-1, 16, 7, 7))

    netG, netD = Generator().double(), TorchDiscriminator().double()
    diff_augment = nn.Sequential(
        K.RandomAffine(degrees=0, translate=(0.125, 0.125), p=1.0), K.RandomErasing(p=0.5, scale=(0.02, 0.1))
    )
    criterion = nn.BCEWithLogitsLoss()
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    losses_d, losses_g = [], []
    for real, _ in loader:
        real = real.double()
        ones, zeros = torch.ones(len(real), dtype=torch.float64), torch.zeros(len(real), dtype=torch.float64)
        netD.zero_grad()
        fake = netG(torch.randn(len(real), nz, dtype=torch.float64))
        loss_d = criterion(netD(diff_augment(real)), ones) + criterion(netD(diff_augment(fake.detach())), zeros)
        loss_d.backward()
        optD.step()
        netG.zero_grad()
        loss_g = criterion(netD(diff_augment(fake)), ones)  # through kornia's warp into our generator
        loss_g.backward()
        optG.step()
        losses_d.append(loss_d.item())
        losses_g.append(loss_g.item())
    return losses_d + losses_g


def test_gan_with_a_torch_discriminator_and_kornia_diffaugment_trains_as_on_torch(root):
    ours, theirs = run_both(gan, root=root)
    assert_same(ours, theirs)
    assert ours[3] < ours[0]  # the discriminator's loss


# ----------------------------------------------------- einops: a ViT with a class token and einsum
def einops_vit(torch, root: str, epochs: int = 3) -> list[float]:
    from einops import einsum, pack, rearrange, repeat, unpack
    from einops.layers.torch import Rearrange, Reduce

    nn, F = torch.nn, torch.nn.functional
    seed_all(torch)

    class Attention(nn.Module):
        def __init__(self, dim, heads=4, dim_head=8):
            super().__init__()
            self.heads, self.scale = heads, dim_head**-0.5
            self.norm = nn.LayerNorm(dim)
            self.to_qkv = nn.Linear(dim, heads * dim_head * 3, bias=False)
            self.to_out = nn.Sequential(nn.Linear(heads * dim_head, dim), nn.Dropout(0.0))

        def forward(self, x, mask=None):
            qkv = self.to_qkv(self.norm(x)).chunk(3, dim=-1)
            q, k, v = (rearrange(t, "b n (h d) -> b h n d", h=self.heads) for t in qkv)
            sim = einsum(q, k, "b h i d, b h j d -> b h i j") * self.scale
            if mask is not None:
                sim = sim.masked_fill(~rearrange(mask, "b j -> b 1 1 j"), -torch.finfo(sim.dtype).max)
            out = einsum(sim.softmax(dim=-1), v, "b h i j, b h j d -> b h i d")
            return self.to_out(rearrange(out, "b h n d -> b n (h d)"))

    class ViT(nn.Module):
        def __init__(self, image_size=28, patch=7, dim=32, depth=2, num_classes=10):
            super().__init__()
            self.to_patch = nn.Sequential(
                Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=patch, p2=patch),
                nn.LayerNorm(patch * patch), nn.Linear(patch * patch, dim), nn.LayerNorm(dim),
            )  # fmt: skip
            self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
            self.pos = nn.Parameter(torch.randn(1, (image_size // patch) ** 2 + 1, dim) * 0.02)
            ff = lambda: nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))  # noqa: E731
            self.layers = nn.ModuleList([nn.ModuleList([Attention(dim), ff()]) for _ in range(depth)])
            self.pool = Reduce("b n d -> b d", "mean")
            self.head = nn.Sequential(nn.LayerNorm(2 * dim), nn.Linear(2 * dim, num_classes))

        def forward(self, img):
            x = self.to_patch(img)
            cls = repeat(self.cls_token, "1 1 d -> b d", b=x.shape[0])
            x, ps = pack([cls, x], "b * d")
            x = x + self.pos
            mask = torch.ones(x.shape[0], x.shape[1], dtype=torch.bool)
            for attn, ff in self.layers:
                x = attn(x, mask=mask) + x
                x = ff(x) + x
            cls, patches = unpack(x, ps, "b * d")
            return self.head(torch.cat([cls, self.pool(patches)], dim=-1))

    ds = datasets.MNIST(root, train=False, download=True, transform=transforms.ToTensor())
    loader = torch.utils.data.DataLoader(torch.utils.data.Subset(ds, range(64)), batch_size=32)
    model = ViT().double()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, total_steps=2 * epochs)
    losses = []
    for _ in range(epochs):
        for x, y in loader:
            loss = F.cross_entropy(model(x.double()), y, label_smoothing=0.1)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
    return losses


def test_einops_vit_with_class_token_pack_and_einsum_trains_as_on_torch(root):
    ours, theirs = run_both(einops_vit, root=root)
    assert_same(ours, theirs)
    assert ours[-1] < 0.95 * ours[0]


# ------------------------------- forward hooks: a summary, and features distilled from a teacher
def summary(model, input_size, torch) -> tuple[list, int, int]:
    """A torchinfo-free summary: forward hooks on every leaf module record output shapes and parameter counts."""
    rows, hooks = OrderedDict(), []

    def register(name):
        def hook(module, inputs, output):
            own = sum(p.numel() for p in module.parameters(recurse=False))
            rows[name] = (type(module).__name__, tuple(output.shape), own)

        return hook

    for name, module in model.named_modules():
        if not list(module.children()):
            hooks.append(module.register_forward_hook(register(name)))
    with torch.no_grad():
        model(torch.zeros(2, *input_size, dtype=torch.float64))
    for h in hooks:
        h.remove()
    total = sum(p.numel() for p in model.parameters())
    return list(rows.items()), total, sum(p.numel() for p in model.parameters() if p.requires_grad)


def distillation(torch, steps: int = 4) -> tuple:
    nn, F = torch.nn, torch.nn.functional
    seed_all(torch)
    teacher = torchvision.models.resnet18(weights=None, num_classes=10).double().eval()

    class Student(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
            self.layer1 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(inplace=True))
            self.adapter = nn.Conv2d(32, 64, 1)
            self.fc = nn.Linear(32, 10)

        def forward(self, x):
            f = self.layer1(self.stem(x))
            self.feat = self.adapter(f)
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(f, 1), 1))

    student = Student().double()
    table = summary(student, (3, 16, 16), torch)
    features = {}
    handle = teacher.layer1.register_forward_hook(lambda m, i, o: features.__setitem__("teacher", o))
    teacher.requires_grad_(False)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    x = torch.randn(4, 3, 16, 16, dtype=torch.float64)

    def attention(f):
        return F.normalize(f.pow(2).mean(1).view(f.size(0), -1))

    T, losses = 4.0, []
    for _ in range(steps):
        with torch.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)
        kd = F.kl_div(F.log_softmax(s_logits / T, dim=1), F.softmax(t_logits / T, dim=1), reduction="batchmean")
        loss = kd * T * T + 10 * (attention(student.feat) - attention(features["teacher"])).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    handle.remove()
    return table, losses


def test_hook_summary_and_feature_distillation_from_a_torchvision_teacher_as_on_torch():
    (ours_table, ours), (theirs_table, theirs) = run_both(distillation)
    assert ours_table == theirs_table
    rows, total, trainable = ours_table
    assert rows[0] == ("stem.0", ("Conv2d", (2, 16, 8, 8), 448)) and len(rows) == 8 and total == trainable == 7626
    assert_same(ours, theirs)
    assert ours[-1] < 0.9 * ours[0]


# ---------------------------------------------- weight norm: a HiFi-GAN residual block, renamed
def hifigan_block(torch, steps: int = 6) -> list[float]:
    nn, F = torch.nn, torch.nn.functional
    weight_norm, remove_weight_norm = torch.nn.utils.weight_norm, torch.nn.utils.remove_weight_norm
    seed_all(torch)

    def get_padding(kernel_size, dilation=1):
        return int((kernel_size * dilation - dilation) / 2)

    class ResBlock1(nn.Module):
        def __init__(self, channels, kernel_size=3, dilation=(1, 3, 5)):
            super().__init__()

            def conv(d):
                padding = get_padding(kernel_size, d)
                return weight_norm(nn.Conv1d(channels, channels, kernel_size, 1, dilation=d, padding=padding))

            self.convs1 = nn.ModuleList([conv(d) for d in dilation])
            self.convs2 = nn.ModuleList([conv(1) for _ in dilation])
            for c in (*self.convs1, *self.convs2):
                c.weight_v.data.normal_(0.0, 0.01)  # init_weights

        def forward(self, x):
            for c1, c2 in zip(self.convs1, self.convs2):
                xt = c2(F.leaky_relu(c1(F.leaky_relu(x, 0.1)), 0.1))
                x = xt + x
            return x

        def remove_weight_norm(self):
            for layer in (*self.convs1, *self.convs2):
                remove_weight_norm(layer)

    block = ResBlock1(4).double()
    signal = torch.sin(torch.linspace(0, 12, 64, dtype=torch.float64)).expand(2, 4, 64)
    noisy = signal + 0.3 * torch.randn(2, 4, 64, dtype=torch.float64)
    optimizer = torch.optim.AdamW(block.parameters(), lr=1e-2, betas=(0.8, 0.99))
    losses = []
    for _ in range(steps):
        loss = F.l1_loss(block(noisy), signal)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    block.eval()
    with torch.no_grad():
        before = block(noisy)
        block.remove_weight_norm()
        after = block(noisy)
    return losses + [(before - after).abs().max().item()]


@pytest.mark.filterwarnings("ignore:`torch.nn.utils.weight_norm` is deprecated:FutureWarning")
def test_hifigan_block_with_weight_norm_trains_and_removes_it_as_on_torch():
    ours, theirs = run_both(hifigan_block)
    assert_same(ours, theirs)
    assert ours[-2] < 0.9 * ours[0] and ours[-1] < 1e-12
