"""A learner's own MLP, as PyTorch writes it: the gallery's and the sixth
lesson's imported model (docs/import.md). Imported with Megatron-LM's
layout, fc1 column-parallel and fc2 row-parallel:

  stridelab import --model mlp.py:MLP --example x=float32:64,32 \
      --example target=float32:64,32 --placement 4 \
      --layout 'fc1.*=S(0)' --layout 'fc2.weight=S(1)' \
      --layout 'x=B' --layout 'target=B' -o docs/gallery/imported
"""
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, width=32, hidden=128):
        super().__init__()
        self.fc1 = nn.Linear(width, hidden)
        self.fc2 = nn.Linear(hidden, width)

    def forward(self, x, target):
        y = self.fc2(F.gelu(self.fc1(x), approximate="tanh"))
        return ((y - target) ** 2).mean()
