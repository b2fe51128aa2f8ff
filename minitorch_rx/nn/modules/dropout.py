"""``torch.nn.modules.dropout`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout, _DropoutNd

__all__ = ["_DropoutNd", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]
