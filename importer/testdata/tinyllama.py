"""A small Llama for the importer's tests: RMSNorm, attention with a
boolean causal mask (torch.where), a SwiGLU MLP (silu), no biases, and
the head tied to the token embedding; the loss is the cross-entropy of
the next token."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, width, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(width) + 0.1 * torch.randn(width))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(nn.Module):
    def __init__(self, width, heads, seq):
        super().__init__()
        self.heads = heads
        self.wq = nn.Linear(width, width, bias=False)
        self.wk = nn.Linear(width, width, bias=False)
        self.wv = nn.Linear(width, width, bias=False)
        self.wo = nn.Linear(width, width, bias=False)
        self.register_buffer("causal", torch.ones(seq, seq, dtype=torch.bool).tril(), persistent=False)

    def forward(self, x):
        b, t, c = x.shape
        h = self.heads
        q = self.wq(x).view(b, t, h, c // h).transpose(1, 2)
        k = self.wk(x).view(b, t, h, c // h).transpose(1, 2)
        v = self.wv(x).view(b, t, h, c // h).transpose(1, 2)
        s = q @ k.transpose(-2, -1) / (c // h) ** 0.5
        s = torch.where(self.causal, s, torch.tensor(float("-inf")))
        return self.wo((s.softmax(-1) @ v).transpose(1, 2).reshape(b, t, c))


class FeedForward(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.w1 = nn.Linear(width, hidden, bias=False)
        self.w2 = nn.Linear(hidden, width, bias=False)
        self.w3 = nn.Linear(width, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, width, heads, seq):
        super().__init__()
        self.attention_norm = RMSNorm(width)
        self.attention = Attention(width, heads, seq)
        self.ffn_norm = RMSNorm(width)
        self.feed_forward = FeedForward(width, 3 * width)

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.ffn_norm(x))


class TinyLlama(nn.Module):
    def __init__(self, vocab=48, width=32, heads=4, layers=2, seq=16):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList([Block(width, heads, seq) for _ in range(layers)])
        self.norm = RMSNorm(width)
        self.output = nn.Linear(width, vocab, bias=False)
        self.output.weight = self.tok_embeddings.weight  # tied

    def forward(self, tokens, targets):
        x = self.tok_embeddings(tokens)
        for layer in self.layers:
            x = layer(x)
        logits = self.output(self.norm(x))
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
