"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their one-step ``*Cell`` forms, as PyTorch's.

Parameter names, shapes, order and initialization are PyTorch's, so state dicts interchange. A
layer and direction computes its input's gate products for all steps as one matmul, then per
step one matmul of the hidden state against the concatenated gate weights and one fused cell op
(``ops/rnn_cells.py``). No recurrent kernel of torch is used.
"""

from __future__ import annotations

import math
import numbers
import warnings

import torch

from .. import init
from ..autograd.tensor import Tensor
from ..ops import rnn_cells
from ..ops.shape import cat, stack
from . import functional as F
from .module import Module
from .parameter import Parameter

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
#: The largest size torch can hold (int64).
_MAX_SIZE = 2**63 - 1
_CELLS = {"RNN_TANH": rnn_cells.RNNTanhCell, "RNN_RELU": rnn_cells.RNNReLUCell, "GRU": rnn_cells.GRUCell}


def _size(t: Tensor) -> str:
    return str(list(t.shape))


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share: parameters, checks and the layer loop."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError(f"hidden_size must be greater than zero, got {hidden_size}")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError(f"num_layers must be greater than zero, got {num_layers}")
        if num_layers > _MAX_SIZE:
            # torch would loop building 10**20 layers until memory runs out; a size past int64 is refused up front
            raise ValueError(f"num_layers must fit in int64, got {num_layers}")
        if proj_size < 0:
            raise ValueError(f"proj_size should be a positive integer or zero to disable projections, got {proj_size}")
        if proj_size >= hidden_size:
            raise ValueError(
                f"proj_size has to be smaller than hidden_size, got proj_size={proj_size} >= {hidden_size}"
            )
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size or hidden_size
        options = {"device": device, "dtype": dtype}
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {"weight_ih": (gate_size, layer_input), "weight_hh": (gate_size, real_hidden)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                for name, shape in shapes.items():
                    setattr(self, name + suffix, Parameter(torch.empty(shape, **options)))
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), in order."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs weights for cuDNN here; there is no such kernel here."""

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters of each layer and direction, in PyTorch's order."""
        per = len(self._flat_weights_names) // (self.num_layers * (2 if self.bidirectional else 1))
        names = self._flat_weights_names
        return [[getattr(self, n) for n in names[i : i + per]] for i in range(0, len(names), per)]

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    # ------------------------------------------------------------------ checks
    def _check_input(self, input: Tensor) -> bool:
        """Refuse a bad input; return whether it is batched."""
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}: expected an mt.Tensor input, got {type(input).__name__}")
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.shape[-1]}"
            )
        weight = self.weight_ih_l0
        if input.dtype != weight.dtype:
            raise ValueError(f"input must have the type {weight.dtype}, got type {input.dtype}")
        return input.dim() == 3

    def _expected_hidden(self, batch: int | None, size: int) -> tuple[int, ...]:
        layers = self.num_layers * (2 if self.bidirectional else 1)
        return (layers, size) if batch is None else (layers, batch, size)

    def _check_hidden(self, hx: Tensor, expected: tuple[int, ...], batched: bool, what: str) -> None:
        if not isinstance(hx, Tensor):
            raise TypeError(f"{what} must be an mt.Tensor, got {type(hx).__name__}")
        if batched and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if not batched and hx.dim() != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {_size(hx)}")

    # ------------------------------------------------------------------ forward
    def _states(self, hx: Tensor | None, template: Tensor, batch: int, size: int) -> tuple:
        """The initial state of each layer and direction, from ``hx`` (``(L * D, B, size)``) or zeros."""
        if hx is None:
            zeros = Tensor._make(torch.zeros(batch, size, dtype=template.dtype, device=template.device), None)
            return (zeros,) * (self.num_layers * (2 if self.bidirectional else 1))
        return rnn_cells.unbind(hx)

    def _run(self, x: Tensor, h0: tuple, c0: tuple | None) -> tuple[Tensor, list, list]:
        """All layers over time-major ``x`` ``(T, B, features)``: the last layer's outputs and the
        final hidden (and cell) state of every layer and direction."""
        directions = 2 if self.bidirectional else 1
        final_h, final_c = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                out, h, c = self._direction(x, suffix, h0[index], None if c0 is None else c0[index], direction == 1)
                outputs.append(out)
                final_h.append(h)
                final_c.append(c)
            x = outputs[0] if directions == 1 else cat(outputs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, final_h, final_c

    def _direction(self, x: Tensor, suffix: str, h: Tensor, c: Tensor | None, reverse: bool):
        w_ih, w_hh = getattr(self, "weight_ih" + suffix), getattr(self, "weight_hh" + suffix)
        b_ih = getattr(self, "bias_ih" + suffix) if self.bias else None
        b_hh = getattr(self, "bias_hh" + suffix) if self.bias else None
        w_hr = getattr(self, "weight_hr" + suffix) if self.proj_size else None
        if self.mode == "LSTM" and w_hr is None:  # the whole layer as one node (ops/rnn_cells.py)
            return rnn_cells.lstm_layer(x, w_ih, b_ih, h, c, w_hh, b_hh, reverse)
        steps = rnn_cells.unbind(F.linear(x, w_ih, b_ih))
        outputs: list = [None] * len(steps)
        order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
        if self.mode == "LSTM":
            cell = rnn_cells.LSTMCell.apply
            for t in order:
                h, c = cell(steps[t], F.linear(h, w_hh, b_hh), c)
                if w_hr is not None:
                    h = F.linear(h, w_hr)
                outputs[t] = h
        else:
            cell = _CELLS[self.mode].apply
            if self.mode == "GRU":
                for t in order:
                    h = outputs[t] = cell(steps[t], F.linear(h, w_hh, b_hh), h)
            else:
                for t in order:
                    h = outputs[t] = cell(steps[t], F.linear(h, w_hh, b_hh))
        return stack(outputs, 0), h, c

    def _forward(self, input: Tensor, hx: Tensor | None, cx: Tensor | None, lstm: bool):
        batched = self._check_input(input)
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        if x.shape[0] == 0:
            raise RuntimeError(f"{type(self).__name__}: the input has no time steps (shape {_size(input)})")
        batch = x.shape[1]
        out_size = self.proj_size or self.hidden_size
        if hx is not None:
            what = "hidden[0]" if lstm else "hidden"
            self._check_hidden(hx, self._expected_hidden(batch if batched else None, out_size), batched, what)
            if not batched:
                hx = hx.unsqueeze(1)
        if cx is not None:
            self._check_hidden(
                cx, self._expected_hidden(batch if batched else None, self.hidden_size), batched, "hidden[1]"
            )
            if not batched:
                cx = cx.unsqueeze(1)
        h0 = self._states(hx, x, batch, out_size)
        c0 = self._states(cx, x, batch, self.hidden_size) if lstm else None
        out, final_h, final_c = self._run(x, h0, c0)
        h_n = stack(final_h, 0)
        c_n = stack(final_c, 0) if lstm else None
        if batched and self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out, h_n = out.squeeze(1), h_n.squeeze(1)
            c_n = c_n.squeeze(1) if lstm else None
        return out, h_n, c_n


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU).

    ``input`` is ``(T, B, input_size)`` (``(B, T, input_size)`` with ``batch_first``) or unbatched
    ``(T, input_size)``; ``hx`` is ``(num_layers * directions, B, hidden_size)`` (no batch dim when
    unbatched). Returns ``(output, h_n)``, ``output`` holding the last layer's ``h_t`` for every
    step (both directions concatenated).

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> out, h_n = nn.RNN(4, 6, num_layers=2)(mt.randn(5, 3, 4))
    >>> out.shape, h_n.shape
    (torch.Size([5, 3, 6]), torch.Size([2, 3, 6]))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(
            mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, 0, device, dtype
        )

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        out, h_n, _ = self._forward(input, hx, None, lstm=False)
        return out, h_n

    def extra_repr(self) -> str:
        text = super().extra_repr()
        return text if self.nonlinearity == "tanh" else text + ", nonlinearity='relu'"


class LSTM(RNNBase):
    """Long short-term memory, PyTorch's gates ``i, f, g, o`` (and ``proj_size``: ``h_t`` projected
    by ``weight_hr``). ``hx`` is ``(h_0, c_0)``; returns ``(output, (h_n, c_n))``; shapes as ``RNN``'s
    with ``h`` of size ``proj_size or hidden_size`` and ``c`` of size ``hidden_size``.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> out, (h_n, c_n) = nn.LSTM(4, 6, batch_first=True)(mt.randn(3, 5, 4))
    >>> out.shape, c_n.shape
    (torch.Size([3, 5, 6]), torch.Size([1, 3, 6]))
    """

    def __init__(self, input_size: int, hidden_size: int, *args, **kwargs) -> None:
        super().__init__("LSTM", input_size, hidden_size, *args, **kwargs)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None):
        h0 = c0 = None
        if hx is not None:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"LSTM: hx must be a tuple (h_0, c_0), got {type(hx).__name__}")
            h0, c0 = hx
        out, h_n, c_n = self._forward(input, h0, c0, lstm=True)
        return out, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit, PyTorch's gates ``r, z, n`` (``b_hn`` inside ``r * (...)``). Shapes
    and returns as ``RNN``'s.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> out, h_n = nn.GRU(4, 6, bidirectional=True)(mt.randn(5, 4))
    >>> out.shape, h_n.shape
    (torch.Size([5, 12]), torch.Size([2, 6]))
    """

    def __init__(self, input_size: int, hidden_size: int, *args, **kwargs) -> None:
        super().__init__("GRU", input_size, hidden_size, *args, **kwargs)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        out, h_n, _ = self._forward(input, hx, None, lstm=False)
        return out, h_n


# ---------------------------------------------------------------------- cells
class RNNCellBase(Module):
    """One step: ``weight_ih`` ``(gates * hidden, input)``, ``weight_hh`` ``(gates * hidden, hidden)``,
    ``bias_ih``, ``bias_hh``, all from U(-1/sqrt(hidden), 1/sqrt(hidden))."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        options = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(torch.empty((num_chunks * hidden_size, input_size), **options))
        self.weight_hh = Parameter(torch.empty((num_chunks * hidden_size, hidden_size), **options))
        if bias:
            self.bias_ih = Parameter(torch.empty(num_chunks * hidden_size, **options))
            self.bias_hh = Parameter(torch.empty(num_chunks * hidden_size, **options))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        return text if nonlinearity == "tanh" else text + f", nonlinearity={nonlinearity}"

    def _prepare(self, input: Tensor, hx: Tensor | None, what: str = "hx") -> tuple[Tensor, Tensor | None, bool]:
        """Check ``input`` ``(B, input_size)`` or ``(input_size,)`` and ``hx``; give both batched."""
        name = type(self).__name__
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}: expected an mt.Tensor input, got {type(input).__name__}")
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        batched = input.dim() == 2
        if hx is not None:
            expected = (input.shape[0], self.hidden_size) if batched else (self.hidden_size,)
            if not isinstance(hx, Tensor):
                raise TypeError(f"{name}: {what} must be an mt.Tensor, got {type(hx).__name__}")
            if tuple(hx.shape) != expected:
                raise RuntimeError(f"{name}: Expected {what} size {expected}, got {_size(hx)}")
            if not batched:
                hx = hx.unsqueeze(0)
        return (input if batched else input.unsqueeze(0)), hx, batched

    def _zeros(self, x: Tensor) -> Tensor:
        return Tensor._make(torch.zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device), None)


class RNNCell(RNNCellBase):
    """``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ReLU); ``hx`` defaults to zeros.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> nn.RNNCell(4, 6)(mt.randn(3, 4)).shape
    torch.Size([3, 6])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}. Select from 'tanh' or 'relu'.")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, hx, batched = self._prepare(input, hx)
        if hx is None:
            hx = self._zeros(x)
        cell = rnn_cells.RNNTanhCell if self.nonlinearity == "tanh" else rnn_cells.RNNReLUCell
        h = cell.apply(F.linear(x, self.weight_ih, self.bias_ih), F.linear(hx, self.weight_hh, self.bias_hh))
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; ``hx`` is ``(h, c)`` (zeros by default); returns ``(h', c')``.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> h, c = nn.LSTMCell(4, 6)(mt.randn(3, 4))
    >>> h.shape
    torch.Size([3, 6])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        h0 = c0 = None
        if hx is not None:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"LSTMCell: hx must be a tuple (h_0, c_0), got {type(hx).__name__}")
            h0, c0 = hx
        x, h0, batched = self._prepare(input, h0, "hx[0]")
        _, c0, _ = self._prepare(input, c0, "hx[1]")
        if h0 is None:
            h0 = self._zeros(x)
        if c0 is None:
            c0 = self._zeros(x)
        h, c = rnn_cells.LSTMCell.apply(
            F.linear(x, self.weight_ih, self.bias_ih), F.linear(h0, self.weight_hh, self.bias_hh), c0
        )
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step; ``hx`` defaults to zeros.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> nn.GRUCell(4, 6)(mt.randn(4)).shape
    torch.Size([6])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, hx, batched = self._prepare(input, hx)
        if hx is None:
            hx = self._zeros(x)
        h = rnn_cells.GRUCell.apply(
            F.linear(x, self.weight_ih, self.bias_ih), F.linear(hx, self.weight_hh, self.bias_hh), hx
        )
        return h if batched else h.squeeze(0)
