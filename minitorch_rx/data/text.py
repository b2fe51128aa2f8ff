"""Tiny Shakespeare, the standard character-level corpus, shipped in the package (public domain
text, compiled by Andrej Karpathy for char-rnn under the MIT licence; see ``TINYSHAKESPEARE.md``)."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import torch
from torch.utils.data import Dataset

from ..autograd.tensor import Tensor, is_torch_data

_FILE = "tinyshakespeare.txt"


class TinyShakespeare(Dataset):
    """The corpus as character ids, split 90/10 by characters (``split='train'``: the first 90%,
    ``'val'``: the last 10%), vocabulary ``sorted(set(text))`` of the WHOLE corpus (65 characters,
    the same for both splits).

    ``root=None`` reads the copy shipped in the package; otherwise ``root`` is a folder holding
    ``input.txt`` (char-rnn's layout) or ``tinyshakespeare/input.txt``, or the text file itself.
    Item ``i`` is ``(x, y)``: ``block_size`` ids from position ``i`` and the same shifted by one
    (the next-character targets), as int64 torch tensors; ``get_batch(batch_size)`` draws random
    blocks as ``mt.Tensor``s ``(batch_size, block_size)``, nanoGPT's way of sampling.

    >>> import minitorch_rx as mt
    >>> data = mt.data.TinyShakespeare(split="val", block_size=8)
    >>> len(data.vocab), data.decode(data.encode("ROMEO:"))
    (65, 'ROMEO:')
    """

    def __init__(self, root: str | os.PathLike | None = None, split: str = "train", block_size: int = 64) -> None:
        if split not in ("train", "val"):
            raise ValueError(f"TinyShakespeare: split must be 'train' or 'val', got {split!r}")
        if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size <= 0:
            raise ValueError(f"TinyShakespeare: block_size must be a positive int, got {block_size!r}")
        if root is None:
            text = resources.files(__package__).joinpath(_FILE).read_text(encoding="utf-8")
        else:
            path = Path(root)
            if not path.exists():
                raise FileNotFoundError(
                    f"TinyShakespeare: root {str(path)!r} does not exist (give a folder holding input.txt, or the file)"
                )
            if path.is_dir():
                candidates = [path / "input.txt", path / "tinyshakespeare" / "input.txt"]
                found = [c for c in candidates if c.is_file()]
                if not found:
                    raise FileNotFoundError(
                        f"TinyShakespeare: no input.txt in {path} (looked for {', '.join(map(str, candidates))})"
                    )
                path = found[0]
            text = path.read_text(encoding="utf-8")
        self.vocab = sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(self.vocab)}
        n = int(0.9 * len(text))
        self.text = text[:n] if split == "train" else text[n:]
        if len(self.text) <= block_size:
            raise ValueError(
                f"TinyShakespeare: the {split} split has {len(self.text)} characters, not more than "
                f"block_size {block_size}"
            )
        self.split = split
        self.block_size = block_size
        self.data = torch.tensor(self.encode(self.text)._data.tolist(), dtype=torch.long)

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> Tensor:
        """The ids of ``text``'s characters, an int64 ``mt.Tensor``; a character outside the vocabulary
        is a ``ValueError`` naming it."""
        if not isinstance(text, str):
            raise TypeError(f"TinyShakespeare.encode: expected a str, got {type(text).__name__}")
        try:
            return Tensor(torch.tensor([self.stoi[ch] for ch in text], dtype=torch.long))
        except KeyError as error:
            raise ValueError(
                f"TinyShakespeare.encode: character {error.args[0]!r} is not in the corpus's "
                f"{len(self.vocab)}-character vocabulary"
            ) from None

    def decode(self, ids) -> str:
        """The text of token ids (an ``mt.Tensor``, torch tensor or sequence of ints)."""
        if isinstance(ids, Tensor):
            ids = ids._data
        if is_torch_data(ids):
            if ids.is_floating_point() or ids.is_complex():
                raise TypeError(f"TinyShakespeare.decode: ids must be integers, got dtype {ids.dtype}")
            ids = ids.reshape(-1).tolist()
        out = []
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self.vocab):
                raise ValueError(
                    f"TinyShakespeare.decode: id {i!r} is out of range for the vocabulary of size {len(self.vocab)}"
                )
            out.append(self.vocab[i])
        return "".join(out)

    def __len__(self) -> int:
        return len(self.data) - self.block_size

    def __getitem__(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"TinyShakespeare: index {i} is out of range for {len(self)} blocks")
        return self.data[i : i + self.block_size], self.data[i + 1 : i + 1 + self.block_size]

    def get_batch(
        self, batch_size: int, generator: torch.Generator | None = None, device: str | torch.device = "cpu"
    ) -> tuple[Tensor, Tensor]:
        """``batch_size`` blocks at random start positions: ``(x, y)``, each ``(batch_size, block_size)``."""
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"TinyShakespeare.get_batch: batch_size must be a positive int, got {batch_size!r}")
        starts = torch.randint(len(self), (batch_size,), generator=generator)
        offsets = starts[:, None] + torch.arange(self.block_size)
        x, y = self.data[offsets], self.data[offsets + 1]
        return Tensor(x.to(device)), Tensor(y.to(device))
