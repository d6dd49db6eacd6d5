"""Export a zoo of PyTorch models to linalg-on-tensors MLIR with torch-mlir.

    /path/to/torch-venv/bin/python bench/export_models.py OUTDIR [--only NAME ...] [--list]

Run it with a Python that has ``torch`` (a CPU build) and ``torch-mlir``, not
memplan's: torch-mlir's MLIR bindings are another release than memplan's, and
text is the bridge. Each model is written as ``OUTDIR/NAME.mlir`` with its
parameters as function arguments after the input (entry ``@forward``, like
``../shared/workloads``), so the files stay small and the planner sees every
weight as an argument. ``OUTDIR/README.md`` lists what was written.

The models are written here from their architectures, at small sizes, with
random weights: they are inputs for measuring the memory planner on shapes
the shared workloads do not have (gated MLPs and rotary embeddings, window
attention with ``torch.roll``, depthwise and strided convolutions with pads,
skip-connection concats, dense blocks' growing concats, cross-attention,
dilated causal convolutions with residual and skip sums, transposed
convolutions and interpolation, recurrences, conv + attention hybrids,
learned latents, masked embedding bags and gathers, pixel shuffles and
strided slices, dynamic dimensions), not models to evaluate.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F


class Functional(nn.Module):
    """``model`` with its parameters and buffers as arguments after the input."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model
        self.names = [n for n, _ in model.named_parameters()] + [
            n for n, _ in model.named_buffers()
        ]

    def tensors(self) -> list[torch.Tensor]:
        state = dict(self.model.named_parameters()) | dict(self.model.named_buffers())
        return [state[n].detach() for n in self.names]

    def forward(self, x, *state):
        return torch.func.functional_call(self.model, dict(zip(self.names, state)), (x,))


# --- transformers -----------------------------------------------------------------------------


class Attention(nn.Module):
    def __init__(self, h: int, heads: int, causal: bool, rotary: bool = False):
        super().__init__()
        self.h, self.heads, self.causal, self.rotary = h, heads, causal, rotary
        self.qkv = nn.Linear(h, 3 * h)
        self.out = nn.Linear(h, h)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).split(h, dim=-1)
        d = h // self.heads
        q, k, v = (t.reshape(b, s, self.heads, d).transpose(1, 2) for t in (q, k, v))
        if self.rotary:
            q, k = rope(q), rope(k)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d)
        if self.causal:
            mask = torch.ones(s, s, dtype=torch.bool).tril()
            att = att.masked_fill(~mask, float("-inf"))
        y = att.softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, s, h))


def rope(x):
    """Rotary embedding with rotate-half (a concat of the negated second half)."""
    s, d = x.shape[-2], x.shape[-1]
    inv = 1.0 / (10000 ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
    ang = torch.arange(s, dtype=torch.float32)[:, None] * inv[None, :]
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return x * cos + torch.cat([-x2, x1], -1) * sin


class GPTBlock(nn.Module):
    def __init__(self, h: int, heads: int):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.att = Attention(h, heads, causal=True)
        self.fc, self.proj = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)

    def forward(self, x):
        x = x + self.att(self.ln1(x))
        return x + self.proj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, layers: int, h: int, heads: int, vocab: int = 1000, ctx: int = 1024):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, h), nn.Embedding(ctx, h)
        self.blocks = nn.ModuleList(GPTBlock(h, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(h)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1])
        x = self.wte(ids) + self.wpe(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.ln(x)


class RMSNorm(nn.Module):
    def __init__(self, h: int):
        super().__init__()
        self.w = nn.Parameter(torch.ones(h))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w


class LlamaBlock(nn.Module):
    def __init__(self, h: int, heads: int, ffn: int):
        super().__init__()
        self.n1, self.n2 = RMSNorm(h), RMSNorm(h)
        self.att = Attention(h, heads, causal=True, rotary=True)
        self.gate, self.up = nn.Linear(h, ffn, bias=False), nn.Linear(h, ffn, bias=False)
        self.down = nn.Linear(ffn, h, bias=False)

    def forward(self, x):
        x = x + self.att(self.n1(x))
        y = self.n2(x)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


class Llama(nn.Module):
    def __init__(self, layers: int, h: int, heads: int, ffn: int):
        super().__init__()
        self.blocks = nn.ModuleList(LlamaBlock(h, heads, ffn) for _ in range(layers))
        self.norm = RMSNorm(h)

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x)


class EncoderBlock(nn.Module):
    def __init__(self, h: int, heads: int):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.att = Attention(h, heads, causal=False)
        self.fc1, self.fc2 = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)

    def forward(self, x):
        x = x + self.att(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class WhisperEncoder(nn.Module):
    def __init__(self, mels: int, h: int, layers: int, heads: int):
        super().__init__()
        self.c1 = nn.Conv1d(mels, h, 3, padding=1)
        self.c2 = nn.Conv1d(h, h, 3, stride=2, padding=1)
        self.blocks = nn.ModuleList(EncoderBlock(h, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(h)

    def forward(self, x):
        x = F.gelu(self.c2(F.gelu(self.c1(x)))).transpose(1, 2)
        for blk in self.blocks:
            x = blk(x)
        return self.ln(x)


class CrossAttention(nn.Module):
    """Queries from the decoder, keys and values from the encoder's output."""

    def __init__(self, h: int, heads: int):
        super().__init__()
        self.heads = heads
        self.q, self.kv, self.out = nn.Linear(h, h), nn.Linear(h, 2 * h), nn.Linear(h, h)

    def forward(self, x, mem):
        b, s, h = x.shape
        t, d = mem.shape[1], h // self.heads
        q = self.q(x).reshape(b, s, self.heads, d).transpose(1, 2)
        k, v = (
            m.reshape(b, t, self.heads, d).transpose(1, 2) for m in self.kv(mem).split(h, dim=-1)
        )
        y = ((q @ k.transpose(-2, -1)) / math.sqrt(d)).softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, s, h))


class DecoderBlock(nn.Module):
    def __init__(self, h: int, heads: int):
        super().__init__()
        self.n1, self.n2, self.n3 = RMSNorm(h), RMSNorm(h), RMSNorm(h)
        self.att = Attention(h, heads, causal=True)
        self.cross = CrossAttention(h, heads)
        self.fc1, self.fc2 = nn.Linear(h, 4 * h, bias=False), nn.Linear(4 * h, h, bias=False)

    def forward(self, x, mem):
        x = x + self.att(self.n1(x))
        x = x + self.cross(self.n2(x), mem)
        return x + self.fc2(F.relu(self.fc1(self.n3(x))))


class EncoderDecoder(nn.Module):
    """T5/BART-style: an encoder over the first ``src`` positions of the input, a causal
    decoder over the rest with cross-attention to the encoder's output in every layer."""

    def __init__(self, h: int, heads: int, layers: int, src: int):
        super().__init__()
        self.src = src
        self.enc = nn.ModuleList(EncoderBlock(h, heads) for _ in range(layers))
        self.dec = nn.ModuleList(DecoderBlock(h, heads) for _ in range(layers))
        self.n_enc, self.n_dec = RMSNorm(h), RMSNorm(h)

    def forward(self, x):
        mem, y = x[:, : self.src], x[:, self.src :]
        for blk in self.enc:
            mem = blk(mem)
        mem = self.n_enc(mem)
        for blk in self.dec:
            y = blk(y, mem)
        return self.n_dec(y)


class ViT(nn.Module):
    def __init__(self, img: int, patch: int, h: int, layers: int, heads: int, classes: int = 10):
        super().__init__()
        self.embed = nn.Conv2d(3, h, patch, stride=patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, h))
        self.pos = nn.Parameter(torch.zeros(1, (img // patch) ** 2 + 1, h))
        self.blocks = nn.ModuleList(EncoderBlock(h, heads) for _ in range(layers))
        self.head = nn.Linear(h, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        for blk in self.blocks:
            x = blk(x)
        return self.head(x[:, 0])


class MixerBlock(nn.Module):
    def __init__(self, tokens: int, h: int):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.t1, self.t2 = nn.Linear(tokens, 2 * tokens), nn.Linear(2 * tokens, tokens)
        self.c1, self.c2 = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)

    def forward(self, x):
        y = self.ln1(x).transpose(1, 2)
        x = x + self.t2(F.gelu(self.t1(y))).transpose(1, 2)
        return x + self.c2(F.gelu(self.c1(self.ln2(x))))


class Mixer(nn.Module):
    def __init__(self, img: int, patch: int, h: int, layers: int):
        super().__init__()
        self.embed = nn.Conv2d(3, h, patch, stride=patch)
        self.blocks = nn.ModuleList(MixerBlock((img // patch) ** 2, h) for _ in range(layers))
        self.ln = nn.LayerNorm(h)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        for blk in self.blocks:
            x = blk(x)
        return self.ln(x).mean(1)


class SwinBlock(nn.Module):
    """Window attention over a shifted grid (``torch.roll``), as Swin's."""

    def __init__(self, h: int, heads: int, window: int, shift: int):
        super().__init__()
        self.window, self.shift = window, shift
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.att = Attention(h, heads, causal=False)
        self.fc1, self.fc2 = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)

    def forward(self, x):
        b, hh, ww, c = x.shape
        w = self.window
        y = self.ln1(x)
        if self.shift:
            y = torch.roll(y, (-self.shift, -self.shift), (1, 2))
        y = y.reshape(b, hh // w, w, ww // w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, w * w, c)
        y = self.att(y)
        y = y.reshape(b, hh // w, ww // w, w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(b, hh, ww, c)
        if self.shift:
            y = torch.roll(y, (self.shift, self.shift), (1, 2))
        x = x + y
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Swin(nn.Module):
    def __init__(self, h: int, heads: int, layers: int, window: int = 4):
        super().__init__()
        self.embed = nn.Conv2d(3, h, 4, stride=4)
        self.blocks = nn.ModuleList(
            SwinBlock(h, heads, window, (window // 2) * (i % 2)) for i in range(layers)
        )
        self.ln = nn.LayerNorm(h)

    def forward(self, x):
        x = self.embed(x).permute(0, 2, 3, 1)
        for blk in self.blocks:
            x = blk(x)
        return self.ln(x).mean((1, 2))


# --- convolutional ----------------------------------------------------------------------------


def conv_bn(cin: int, cout: int, k: int, stride: int = 1, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)
    )


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.a, self.b = conv_bn(cin, cout, 3, stride), conv_bn(cout, cout, 3)
        self.skip = conv_bn(cin, cout, 1, stride) if stride != 1 or cin != cout else nn.Identity()

    def forward(self, x):
        return F.relu(self.b(F.relu(self.a(x))) + self.skip(x))


class ResNet(nn.Module):
    def __init__(self, widths: tuple[int, ...], classes: int = 10):
        super().__init__()
        self.stem = conv_bn(3, widths[0], 7, 2)
        layers, cin = [], widths[0]
        for i, w in enumerate(widths):
            layers += [BasicBlock(cin, w, 1 if i == 0 else 2), BasicBlock(w, w, 1)]
            cin = w
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.stem(x)), 3, 2, 1)
        return self.fc(self.layers(x).mean((2, 3)))


class MBConv(nn.Module):
    """EfficientNet's inverted bottleneck with squeeze-and-excitation."""

    def __init__(self, cin: int, cout: int, expand: int, k: int, stride: int):
        super().__init__()
        mid = cin * expand
        self.expand = conv_bn(cin, mid, 1)
        self.dw = conv_bn(mid, mid, k, stride, groups=mid)
        self.se1, self.se2 = (
            nn.Conv2d(mid, max(1, cin // 4), 1),
            nn.Conv2d(max(1, cin // 4), mid, 1),
        )
        self.project = conv_bn(mid, cout, 1)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = F.silu(self.dw(F.silu(self.expand(x))))
        y = y * torch.sigmoid(self.se2(F.silu(self.se1(y.mean((2, 3), keepdim=True)))))
        y = self.project(y)
        return x + y if self.residual else y


class EfficientNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(3, 16, 3, 2)
        self.blocks = nn.Sequential(
            MBConv(16, 16, 1, 3, 1),
            MBConv(16, 24, 6, 3, 2),
            MBConv(24, 24, 6, 3, 1),
            MBConv(24, 40, 6, 5, 2),
            MBConv(40, 80, 6, 3, 2),
        )
        self.head = conv_bn(80, 256, 1)
        self.fc = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc(F.silu(self.head(self.blocks(F.silu(self.stem(x))))).mean((2, 3)))


class MobileNetV2(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(3, 32, 3, 2)
        cfg = [
            (32, 16, 1, 1),
            (16, 24, 6, 2),
            (24, 24, 6, 1),
            (24, 32, 6, 2),
            (32, 32, 6, 1),
            (32, 64, 6, 2),
        ]
        self.blocks = nn.Sequential(*(MBConv(i, o, e, 3, s) for i, o, e, s in cfg))
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc(F.relu6(self.blocks(F.relu6(self.stem(x)))).mean((2, 3)))


class ConvNeXtBlock(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.ln = nn.LayerNorm(c)
        self.fc1, self.fc2 = nn.Linear(c, 4 * c), nn.Linear(4 * c, c)

    def forward(self, x):
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.fc2(F.gelu(self.fc1(self.ln(y))))
        return x + y.permute(0, 3, 1, 2)


class ConvNeXt(nn.Module):
    def __init__(self, widths: tuple[int, ...] = (48, 96, 192)):
        super().__init__()
        self.stem = nn.Conv2d(3, widths[0], 4, stride=4)
        stages, cin = [], widths[0]
        for i, w in enumerate(widths):
            if i:
                stages.append(nn.Conv2d(cin, w, 2, stride=2))
            stages += [ConvNeXtBlock(w), ConvNeXtBlock(w)]
            cin = w
        self.stages = nn.Sequential(*stages)
        self.fc = nn.Linear(cin, 10)

    def forward(self, x):
        return self.fc(self.stages(self.stem(x)).mean((2, 3)))


class UNet(nn.Module):
    """Two levels down, two up, skip connections as channel concats."""

    def __init__(self, c: int = 16):
        super().__init__()
        self.d1, self.d2 = conv_bn(3, c, 3), conv_bn(c, 2 * c, 3)
        self.mid = conv_bn(2 * c, 4 * c, 3)
        self.u2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
        self.c2 = conv_bn(4 * c, 2 * c, 3)
        self.u1 = nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.c1 = conv_bn(2 * c, c, 3)
        self.out = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        a = F.relu(self.d1(x))
        b = F.relu(self.d2(F.max_pool2d(a, 2)))
        m = F.relu(self.mid(F.max_pool2d(b, 2)))
        y = F.relu(self.c2(torch.cat([self.u2(m), b], 1)))
        y = F.relu(self.c1(torch.cat([self.u1(y), a], 1)))
        return self.out(y)


class DenseNet(nn.Module):
    """DenseNet-style blocks: each layer reads the concat of every earlier output of its block
    (BN-ReLU-1x1-BN-ReLU-3x3), transitions halve channels and resolution."""

    def __init__(self, growth: int = 12, blocks: tuple[int, ...] = (4, 4, 4), c0: int = 24):
        super().__init__()
        self.stem = nn.Conv2d(3, c0, 3, padding=1, bias=False)
        self.blocks, self.trans = nn.ModuleList(), nn.ModuleList()
        c = c0
        for i, n in enumerate(blocks):
            layers = nn.ModuleList()
            for _ in range(n):
                layers.append(
                    nn.Sequential(
                        nn.BatchNorm2d(c),
                        nn.ReLU(),
                        nn.Conv2d(c, 4 * growth, 1, bias=False),
                        nn.BatchNorm2d(4 * growth),
                        nn.ReLU(),
                        nn.Conv2d(4 * growth, growth, 3, padding=1, bias=False),
                    )
                )
                c += growth
            self.blocks.append(layers)
            if i + 1 < len(blocks):
                self.trans.append(
                    nn.Sequential(nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c // 2, 1, bias=False))
                )
                c //= 2
        self.bn = nn.BatchNorm2d(c)
        self.fc = nn.Linear(c, 10)

    def forward(self, x):
        x = self.stem(x)
        for i, layers in enumerate(self.blocks):
            feats = [x]
            for layer in layers:
                feats.append(layer(torch.cat(feats, 1)))
            x = torch.cat(feats, 1)
            if i < len(self.trans):
                x = F.avg_pool2d(self.trans[i](x), 2)
        return self.fc(F.relu(self.bn(x)).mean((2, 3)))


class WaveNetBlock(nn.Module):
    def __init__(self, c: int, skip: int, dilation: int):
        super().__init__()
        self.dilation = dilation
        self.conv = nn.Conv1d(c, 2 * c, 2, dilation=dilation)
        self.res, self.skip = nn.Conv1d(c, c, 1), nn.Conv1d(c, skip, 1)

    def forward(self, x):
        y = self.conv(F.pad(x, (self.dilation, 0)))  # causal: pad on the left only
        a, g = y.chunk(2, 1)
        z = torch.tanh(a) * torch.sigmoid(g)
        return x + self.res(z), self.skip(z)


class WaveNet(nn.Module):
    """WaveNet/TCN-style: dilated causal Conv1d, gated activations, residual sums and a sum
    of every block's skip output."""

    def __init__(self, cin: int, c: int, skip: int, dilations: tuple[int, ...]):
        super().__init__()
        self.inp = nn.Conv1d(cin, c, 1)
        self.blocks = nn.ModuleList(WaveNetBlock(c, skip, d) for d in dilations)
        self.out1, self.out2 = nn.Conv1d(skip, skip, 1), nn.Conv1d(skip, cin, 1)

    def forward(self, x):
        x = self.inp(x)
        total = None
        for blk in self.blocks:
            x, s = blk(x)
            total = s if total is None else total + s
        return self.out2(F.relu(self.out1(F.relu(total))))


class ConvAutoencoder(nn.Module):
    """Strided Conv2d down; up by ConvTranspose2d, nearest and bilinear ``F.interpolate``."""

    def __init__(self, c: int = 16):
        super().__init__()
        self.e1 = nn.Conv2d(3, c, 3, 2, 1)
        self.e2 = nn.Conv2d(c, 2 * c, 3, 2, 1)
        self.e3 = nn.Conv2d(2 * c, 4 * c, 3, 2, 1)
        self.d3 = nn.ConvTranspose2d(4 * c, 2 * c, 4, stride=2, padding=1)
        self.d2 = nn.Conv2d(2 * c, c, 3, padding=1)
        self.d1 = nn.Conv2d(c, 3, 3, padding=1)

    def forward(self, x):
        z = F.relu(self.e3(F.relu(self.e2(F.relu(self.e1(x))))))
        y = F.relu(self.d3(z))
        y = F.relu(self.d2(F.interpolate(y, scale_factor=2, mode="nearest")))
        y = F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False)
        return torch.sigmoid(self.d1(y))


# --- hybrids, latents, embeddings, conv recurrences, pixel shuffles ---------------------------


class MobileViTBlock(nn.Module):
    """MobileViT: local 3x3 and 1x1 convolutions, the map unfolded into p x p patches
    (reshape and permute: one sequence per position in the patch), transformer layers over
    each sequence, folded back, a channel concat with the input and a fusing 3x3 convolution."""

    def __init__(self, c: int, d: int, layers: int, heads: int, p: int = 2):
        super().__init__()
        self.p = p
        self.local = nn.Sequential(conv_bn(c, c, 3), nn.SiLU(), nn.Conv2d(c, d, 1, bias=False))
        self.blocks = nn.ModuleList(EncoderBlock(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.proj, self.fuse = conv_bn(d, c, 1), conv_bn(2 * c, c, 3)

    def forward(self, x):
        b, _, hh, ww = x.shape
        p, y = self.p, self.local(x)
        d, nh, nw = y.shape[1], hh // p, ww // p
        y = y.reshape(b, d, nh, p, nw, p).permute(0, 3, 5, 2, 4, 1).reshape(b * p * p, nh * nw, d)
        for blk in self.blocks:
            y = blk(y)
        y = self.ln(y).reshape(b, p, p, nh, nw, d).permute(0, 5, 3, 1, 4, 2).reshape(b, d, hh, ww)
        return F.silu(self.fuse(torch.cat([x, F.silu(self.proj(y))], 1)))


class MobileViT(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, 16, 3, 2), nn.SiLU(), conv_bn(16, 32, 3, 2), nn.SiLU())
        self.vit1 = MobileViTBlock(32, 64, 2, 4)
        self.down = nn.Sequential(conv_bn(32, 48, 3, 2), nn.SiLU())
        self.vit2 = MobileViTBlock(48, 80, 2, 4)
        self.fc = nn.Linear(48, classes)

    def forward(self, x):
        x = self.vit2(self.down(self.vit1(self.stem(x))))
        return self.fc(x.mean((2, 3)))


class Perceiver(nn.Module):
    """Perceiver-style: learned latents (a parameter expanded over the batch) cross-attend
    to the projected input in every layer, then self-attend; a head over their mean."""

    def __init__(self, cin: int, h: int, latents: int, heads: int, layers: int):
        super().__init__()
        self.inp = nn.Linear(cin, h)
        self.latents = nn.Parameter(torch.randn(1, latents, h) * 0.02)
        self.nq = nn.ModuleList(nn.LayerNorm(h) for _ in range(layers))
        self.nkv = nn.LayerNorm(h)
        self.cross = nn.ModuleList(CrossAttention(h, heads) for _ in range(layers))
        self.blocks = nn.ModuleList(EncoderBlock(h, heads) for _ in range(layers))
        self.head = nn.Linear(h, 10)

    def forward(self, x):
        mem = self.nkv(self.inp(x))
        z = self.latents.expand(x.shape[0], -1, -1)
        for nq, cross, blk in zip(self.nq, self.cross, self.blocks):
            z = blk(z + cross(nq(z), mem))
        return self.head(z.mean(1))


class DLRM(nn.Module):
    """DLRM-style recommendation over ids (batch, fields, bag), hashed into the tables
    (``remainder``, as Criteo-style models do): per field an embedding lookup of its bag,
    id 0 masked out (masked_fill) and the bag averaged over its nonzero ids (torch.where
    against an empty bag), a shared table read by index_select, dense features (log1p of
    the hashed ids) through a bottom MLP, the pairwise dot products of all of them (bmm)
    gathered below the diagonal, and a top MLP."""

    def __init__(self, fields: int, vocab: int, d: int):
        super().__init__()
        self.vocab = vocab
        self.tables = nn.ModuleList(nn.Embedding(vocab, d) for _ in range(fields))
        self.shared = nn.Parameter(torch.randn(vocab, d) * 0.1)
        self.bottom = nn.Sequential(nn.Linear(fields, 64), nn.ReLU(), nn.Linear(64, d), nn.ReLU())
        n = fields + 2
        li, lj = torch.tril_indices(n, n, -1)
        self.register_buffer("li", li)
        self.register_buffer("lj", lj)
        self.top = nn.Sequential(
            nn.Linear(d + li.numel(), 128),
            nn.ReLU(),
            nn.Linear(128, 64),
            nn.ReLU(),
            nn.Linear(64, 1),
        )

    def forward(self, raw):
        b, ids = raw.shape[0], torch.remainder(raw, self.vocab)
        feats = []
        for f, table in enumerate(self.tables):
            bag = ids[:, f]
            keep = raw[:, f] != 0
            e = table(bag).masked_fill(~keep.unsqueeze(-1), 0.0).sum(1)
            count = keep.sum(1, keepdim=True).to(e.dtype)
            feats.append(torch.where(count > 0, e / count.clamp(min=1.0), torch.zeros_like(e)))
        shared = torch.index_select(self.shared, 0, ids[:, :, 0].reshape(-1))
        feats.append(shared.reshape(b, -1, shared.shape[-1]).sum(1))
        dense = self.bottom(torch.log1p(ids[:, :, 0].to(torch.float32)))
        z = torch.stack([dense] + feats, 1)
        inter = torch.bmm(z, z.transpose(1, 2))[:, self.li, self.lj]
        return torch.sigmoid(self.top(torch.cat([dense, inter], 1)))


class ConvLSTM(nn.Module):
    """ConvLSTM cells unrolled over time: a 3x3 convolution of the concat of the step's
    input and the hidden state gives the four gates (chunk), cell and hidden states."""

    def __init__(self, cin: int, c: int, layers: int):
        super().__init__()
        self.c = c
        self.convs = nn.ModuleList(
            nn.Conv2d((cin if i == 0 else c) + c, 4 * c, 3, padding=1) for i in range(layers)
        )

    def forward(self, x):  # (batch, time, channels, height, width)
        b, t, _, hh, ww = x.shape
        hs = [x.new_zeros(b, self.c, hh, ww) for _ in self.convs]
        cs = [x.new_zeros(b, self.c, hh, ww) for _ in self.convs]
        for step in range(t):
            y = x[:, step]
            for i, conv in enumerate(self.convs):
                gi, gf, go, gg = conv(torch.cat([y, hs[i]], 1)).chunk(4, 1)
                cs[i] = torch.sigmoid(gf) * cs[i] + torch.sigmoid(gi) * torch.tanh(gg)
                hs[i] = y = torch.sigmoid(go) * torch.tanh(cs[i])
        return hs[-1]


class ShuffleNetSR(nn.Module):
    """Pixel shuffles and strided slices: a Focus stem (the concat of the four strided
    slices x[..., i::2, j::2]), GroupNorm + SiLU residual blocks, pixel_unshuffle, a
    ShuffleNet channel shuffle, a channel concat of 8 slices in reversed order, and
    pixel_shuffle back up to the input's size."""

    def __init__(self, c: int, blocks: int):
        super().__init__()
        self.stem = nn.Conv2d(12, c, 3, padding=1)
        self.blocks = nn.ModuleList(
            nn.Sequential(
                nn.GroupNorm(4, c),
                nn.SiLU(),
                nn.Conv2d(c, c, 3, padding=1),
                nn.GroupNorm(4, c),
                nn.SiLU(),
                nn.Conv2d(c, c, 3, padding=1),
            )
            for _ in range(blocks)
        )
        self.mid = nn.Sequential(nn.Conv2d(4 * c, 4 * c, 1), nn.GroupNorm(8, 4 * c), nn.SiLU())
        self.up = nn.Conv2d(c + c // 2 + c // 4, 12, 3, padding=1)

    def forward(self, x):
        y = torch.cat(
            [x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1
        )
        y = self.stem(y)
        for blk in self.blocks:
            y = y + blk(y)
        b, c, hh, ww = y.shape
        z = self.mid(F.pixel_unshuffle(y, 2))
        z = z.reshape(b, 4, c, hh // 2, ww // 2).transpose(1, 2).reshape(b, 4 * c, hh // 2, ww // 2)
        z = F.pixel_shuffle(z, 2)
        parts = y.chunk(8, 1)
        y = torch.cat([z[:, : c // 2]] + list(reversed(parts)) + [z[:, c // 2 :: 2]], 1)
        return torch.sigmoid(F.pixel_shuffle(self.up(y), 2))


# --- recurrent and plain ----------------------------------------------------------------------


class GRUCellStack(nn.Module):
    """A stack of GRU cells unrolled over the sequence (the importer unrolls nn.GRU too)."""

    def __init__(self, features: int, h: int, layers: int):
        super().__init__()
        self.cells = nn.ModuleList(nn.GRUCell(features if i == 0 else h, h) for i in range(layers))
        self.h = h

    def forward(self, x):
        states = [x.new_zeros(x.shape[0], self.h) for _ in self.cells]
        for t in range(x.shape[1]):
            y = x[:, t]
            for i, cell in enumerate(self.cells):
                states[i] = y = cell(y, states[i])
        return states[-1]


class MLP(nn.Module):
    def __init__(self, widths: tuple[int, ...]):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths, widths[1:]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = F.relu(x)
        return x


# --- the zoo ----------------------------------------------------------------------------------

#: name -> (model factory, example input factory, dynamic dims of the input or None, what it is);
#: a dynamic dim is ``axis: label`` (at least 2) or ``axis: (label, least size)``
MODELS: dict[str, tuple[Callable[[], nn.Module], Callable[[], torch.Tensor], dict | None, str]] = {
    "gpt2_l4_h256_s128": (
        lambda: GPT(4, 256, 4),
        lambda: torch.randint(0, 1000, (1, 128)),
        None,
        "GPT-2-style decoder, 4 layers, hidden 256, tanh GELU",
    ),
    "gpt2_l4_h256_dynseq": (
        lambda: GPT(4, 256, 4),
        lambda: torch.randint(0, 1000, (1, 128)),
        {1: "seq"},
        "the same with a dynamic sequence length (exported at 128)",
    ),
    "llama_l2_h256_s128": (
        lambda: Llama(2, 256, 4, 688),
        lambda: torch.randn(1, 128, 256),
        None,
        "Llama-style decoder: RMSNorm, rotary (rotate-half concat), SiLU-gated MLP",
    ),
    "whisper_enc_l2_h256": (
        lambda: WhisperEncoder(80, 256, 2, 4),
        lambda: torch.randn(1, 80, 256),
        None,
        "Whisper-style encoder: two conv1d, then transformer layers",
    ),
    "vit_l4_h192_i64": (
        lambda: ViT(64, 8, 192, 4, 3),
        lambda: torch.randn(1, 3, 64, 64),
        None,
        "ViT, 64x64 image, 8x8 patches, class-token concat",
    ),
    "mixer_l4_h128_i64": (
        lambda: Mixer(64, 8, 128, 4),
        lambda: torch.randn(1, 3, 64, 64),
        None,
        "MLP-Mixer: token mixing through transposes",
    ),
    "swin_l4_h96_i64": (
        lambda: Swin(96, 3, 4),
        lambda: torch.randn(1, 3, 64, 64),
        None,
        "Swin-style window attention with torch.roll shifts",
    ),
    "resnet10_w32_i64": (
        lambda: ResNet((32, 64, 128)),
        lambda: torch.randn(1, 3, 64, 64),
        None,
        "ResNet with basic blocks, padded 3x3 convolutions",
    ),
    "efficientnet_i64": (
        lambda: EfficientNet(),
        lambda: torch.randn(1, 3, 64, 64),
        None,
        "EfficientNet-style MBConv blocks with squeeze-and-excitation",
    ),
    "mobilenetv2_i64": (
        lambda: MobileNetV2(),
        lambda: torch.randn(1, 3, 64, 64),
        None,
        "MobileNet-V2-style inverted residuals, depthwise convolutions",
    ),
    "convnext_i64": (
        lambda: ConvNeXt(),
        lambda: torch.randn(1, 3, 64, 64),
        None,
        "ConvNeXt-style blocks: 7x7 depthwise, channels-last MLP",
    ),
    "unet_c16_i64": (
        lambda: UNet(16),
        lambda: torch.randn(1, 3, 64, 64),
        None,
        "U-Net, two levels, skip-connection concats",
    ),
    "densenet_g12_i32": (
        lambda: DenseNet(12, (4, 4, 4), 24),
        lambda: torch.randn(1, 3, 32, 32),
        None,
        "DenseNet-style: three dense blocks of 4 layers, growth 12, a channel concat per layer",
    ),
    "t5_encdec_l2_h128": (
        lambda: EncoderDecoder(128, 4, 2, 64),
        lambda: torch.randn(1, 96, 128),
        None,
        "T5/BART-style encoder-decoder, 2+2 layers, hidden 128, cross-attention (64 in, 32 out)",
    ),
    "wavenet_c32_t256": (
        lambda: WaveNet(16, 32, 64, (1, 2, 4, 8, 16, 32, 1, 2, 4, 8)),
        lambda: torch.randn(1, 16, 256),
        None,
        "WaveNet/TCN-style: 10 dilated causal conv1d, gated tanh-sigmoid, residual and skip sums",
    ),
    "wavenet_c32_dynt": (
        lambda: WaveNet(16, 32, 64, (1, 2, 4, 8, 16, 32, 1, 2, 4, 8)),
        lambda: torch.randn(1, 16, 256),
        {2: "time"},
        "the same with a dynamic length (exported at 256)",
    ),
    "convae_c16_i64": (
        lambda: ConvAutoencoder(16),
        lambda: torch.randn(1, 3, 64, 64),
        None,
        "conv autoencoder: strided conv down, ConvTranspose2d, nearest and bilinear interpolate up",
    ),
    "convae_c16_dynhw": (
        lambda: ConvAutoencoder(16),
        lambda: torch.randn(1, 3, 64, 64),
        {2: ("height", 16), 3: ("width", 16)},
        "the same with dynamic height and width (exported at 64x64)",
    ),
    "mobilevit_i64": (
        lambda: MobileViT(),
        lambda: torch.randn(1, 3, 64, 64),
        None,
        "MobileViT-style conv + attention hybrid: 2x2 patches unfolded by reshape and permute",
    ),
    "perceiver_l2_h128_dynlen": (
        lambda: Perceiver(32, 128, 32, 4, 2),
        lambda: torch.randn(1, 256, 32),
        {1: "length"},
        "Perceiver-style: 32 learned latents cross-attend to an input of dynamic length (256)",
    ),
    "dlrm_f8_e32_b16": (
        lambda: DLRM(8, 1000, 32),
        lambda: torch.randint(0, 1000, (16, 8, 4)) * (torch.rand(16, 8, 4) > 0.25),
        None,
        "DLRM-style: embedding bags with masked_fill and torch.where, index_select, bmm, gather",
    ),
    "dlrm_f8_e32_dynbatch": (
        lambda: DLRM(8, 1000, 32),
        lambda: torch.randint(0, 1000, (16, 8, 4)) * (torch.rand(16, 8, 4) > 0.25),
        {0: "batch"},
        "the same with a dynamic batch (exported at 16)",
    ),
    "convlstm_c16_t6": (
        lambda: ConvLSTM(8, 16, 2),
        lambda: torch.randn(1, 6, 8, 16, 16),
        None,
        "two ConvLSTM cells unrolled over 6 steps, 16x16 maps",
    ),
    "shufflesr_c32_i64": (
        lambda: ShuffleNetSR(32, 3),
        lambda: torch.randn(1, 3, 64, 64),
        None,
        "Focus stem of strided slices, GroupNorm blocks, pixel (un)shuffle, channel shuffle, "
        "a concat of slices",
    ),
    "gru_l2_h128_t32": (
        lambda: GRUCellStack(64, 128, 2),
        lambda: torch.randn(4, 32, 64),
        None,
        "two GRU cells unrolled over 32 steps",
    ),
    "mlp5_w1024_b32": (
        lambda: MLP((1024,) * 6),
        lambda: torch.randn(32, 1024),
        None,
        "5-layer MLP, width 1024, batch 32",
    ),
    "mlp5_w1024_dynbatch": (
        lambda: MLP((1024,) * 6),
        lambda: torch.randn(32, 1024),
        {0: "batch"},
        "the same with a dynamic batch (exported at 32)",
    ),
}


def export(name: str, out: str) -> str:
    from torch_mlir import fx

    make_model, make_input, dynamic, _ = MODELS[name]
    torch.manual_seed(0)
    model = Functional(make_model().eval())
    x, state = make_input(), model.tensors()
    shapes = None
    if dynamic:
        dims = {}
        for axis, spec in dynamic.items():  # a label, or (label, least size)
            label, least = spec if isinstance(spec, tuple) else (spec, 2)
            dims[axis] = torch.export.Dim(label, min=least, max=4096)
        shapes = (dims, tuple(None for _ in state))  # (x, *state)
    module = fx.export_and_import(
        model,
        x,
        *state,
        output_type="linalg-on-tensors",
        func_name="forward",
        dynamic_shapes=shapes,
    )
    path = os.path.join(out, f"{name}.mlir")
    with open(path, "w") as f:
        f.write(str(module))
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?")
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if args.list or not args.out:
        for name, (_, _, _, what) in MODELS.items():
            print(f"{name}: {what}")
        return 0
    os.makedirs(args.out, exist_ok=True)
    names = [n for n in MODELS if not args.only or any(o in n for o in args.only)]
    failed = []
    for name in names:
        try:
            path = export(name, args.out)
            print(f"{name}: {os.path.getsize(path)} bytes", flush=True)
        except Exception as err:  # report and go on: one model's exporter bug is not the zoo's
            failed.append(name)
            print(
                f"{name}: export failed: {type(err).__name__}: {str(err).splitlines()[0][:200]}",
                flush=True,
            )
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write(
            "# Models exported by bench/export_models.py (entry @forward, weights as arguments)\n\n"
        )
        for name, (_, _, _, what) in MODELS.items():
            if os.path.exists(os.path.join(args.out, f"{name}.mlir")):
                f.write(f"- `{name}.mlir`: {what}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
