"""A small GPT for the importer's tests: token and position embeddings,
pre-LayerNorm blocks with a fused qkv projection split in three, a
causal mask, GELU (tanh form, GPT-2's gelu_new, by default; gelu is
torch's approximate word, or a list of them, block i taking the i-th
mod its length) and biases; the loss is the cross-entropy of the next
token. With tied=True the head is the token embedding, as in GPT-2
(124M parameters at GPT-2 small's size, 163M untied)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, width, heads, seq):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(width, 3 * width)
        self.c_proj = nn.Linear(width, width)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq, dtype=torch.bool)))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        a = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        a = a.masked_fill(~self.mask[:t, :t], float("-inf"))
        a = F.softmax(a, dim=-1)
        y = (a @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, width, gelu):
        super().__init__()
        self.gelu = gelu
        self.c_fc = nn.Linear(width, 4 * width)
        self.c_proj = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate=self.gelu))


class Block(nn.Module):
    def __init__(self, width, heads, seq, gelu):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = Attention(width, heads, seq)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp = MLP(width, gelu)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab=64, width=32, heads=4, layers=2, seq=16, tied=False, gelu="tanh"):
        super().__init__()
        gelus = [gelu] if isinstance(gelu, str) else gelu
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(seq, width)
        self.h = nn.ModuleList([Block(width, heads, seq, gelus[i % len(gelus)]) for i in range(layers)])
        self.ln_f = nn.LayerNorm(width)
        self.lm_head = nn.Linear(width, vocab, bias=False)
        if tied:  # GPT-2's head is its token embedding
            self.lm_head.weight = self.wte.weight

    def forward(self, idx, targets):
        b, t = idx.shape
        pos = torch.arange(t, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
