"""Models exported with the README's torch-mlir flow for the benchmarks.

Each function returns ``(model, inputs)``: a torch module in eval mode and
the tuple of example inputs it is exported with. Run by
``examples/torch_mlir.py --model bench/torch_models.py:NAME`` in torch's
python (these need torch; memplan never imports this file):

* :func:`gpt2_124m`: GPT-2 small (12 layers, 768 wide, 12 heads, vocabulary
  50257, 124M parameters, the output head tied to the token embedding) on
  256 tokens; written out here, as in the GPT-2 paper, so that nothing is
  downloaded.
* :func:`gru_unrolled`: a 2-layer GRU over 128 steps (64 inputs, 128 hidden,
  batch 4), which torch's decompositions unroll into one op sequence per step.
"""

from __future__ import annotations

import math

import torch
from torch import nn


class _Attention(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(width, 3 * width)
        self.c_proj = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, steps, width = x.shape
        q, k, v = self.c_attn(x).split(width, dim=2)
        shape = (batch, steps, self.heads, width // self.heads)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(width // self.heads))
        causal = torch.tril(torch.ones(steps, steps, dtype=torch.bool))
        scores = scores.masked_fill(~causal, float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).reshape(batch, steps, width))


class _Block(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = _Attention(width, heads)
        self.ln_2 = nn.LayerNorm(width)
        self.c_fc = nn.Linear(width, 4 * width)
        self.c_proj = nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(_gelu(self.c_fc(self.ln_2(x))))


def _gelu(x: torch.Tensor) -> torch.Tensor:
    """GPT-2's GELU (the tanh approximation), written out as GPT-2's code
    does: torch-mlir lowers ``gelu(approximate="tanh")`` with 0.797724 for
    sqrt(2 / pi) = 0.7978846, 1.5e-4 off, which shows at a tolerance of
    1e-4."""
    return (
        0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
    )


class GPT2(nn.Module):
    """GPT-2 (Radford et al. 2019), logits for every position."""

    def __init__(
        self,
        layers: int = 12,
        width: int = 768,
        heads: int = 12,
        vocabulary: int = 50257,
        positions: int = 1024,
    ):
        super().__init__()
        self.wte = nn.Embedding(vocabulary, width)
        self.wpe = nn.Embedding(positions, width)
        self.blocks = nn.ModuleList(_Block(width, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.shape[1])
        x = self.wte(tokens) + self.wpe(positions)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.t()  # the head is the embedding, transposed


def _gpt2_init(model: GPT2) -> None:
    """GPT-2's initialization: weights N(0, 0.02) (the residual projections
    scaled by 1/sqrt(2 * layers)), biases 0, layer norms 1 and 0."""
    scale = 0.02 / math.sqrt(2 * len(model.blocks))
    for name, p in model.named_parameters():
        if name.endswith("bias"):
            nn.init.zeros_(p)
        elif ".ln_" in name or name.startswith("ln_"):
            nn.init.ones_(p)
        else:
            nn.init.normal_(p, std=scale if name.endswith("c_proj.weight") else 0.02)


def gpt2_124m() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """GPT-2 small on 256 tokens, initialized as GPT-2 is."""
    torch.manual_seed(0)
    model = GPT2()
    _gpt2_init(model)
    return model.eval(), (torch.randint(0, 50257, (1, 256)),)


class _GRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(64, 128, num_layers=2, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.gru(x)[0]


def gru_unrolled() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """A 2-layer GRU over 128 steps."""
    torch.manual_seed(0)
    return _GRU().eval(), (torch.randn(4, 128, 64),)
