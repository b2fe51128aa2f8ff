"""A classifier trained with torchmetrics keeping score, in the style of torchmetrics' own
README example: a MetricCollection (Accuracy, F1Score) and a MeanMetric of the loss updated
every batch, computed and reset every epoch."""

import torch
import torchmetrics
from torch import nn


def main(epochs=2, seed=0):
    torch.manual_seed(seed)
    features = torch.randn(48, 8)
    labels = (features[:, 0] + features[:, 1] > 0).long() + (features[:, 2] > 1).long()
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    metrics = torchmetrics.MetricCollection(
        {
            "acc": torchmetrics.Accuracy(task="multiclass", num_classes=3),
            "f1": torchmetrics.F1Score(task="multiclass", num_classes=3, average="macro"),
        }
    )
    mean_loss = torchmetrics.MeanMetric()
    history = []
    for _ in range(epochs):
        for x, y in zip(features.split(12), labels.split(12)):
            logits = model(x)
            loss = nn.functional.cross_entropy(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            batch_scores = metrics(logits, y)
            mean_loss.update(loss.detach())
        history.append({**metrics.compute(), "loss": mean_loss.compute(), "batch_acc": batch_scores["acc"]})
        metrics.reset()
        mean_loss.reset()
    return history, model
