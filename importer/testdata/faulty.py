"""Modules the importer refuses, each for one reason, for its tests."""
import torch
import torch.nn as nn


class Running(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, 0)


class CumsumInBlock(nn.Module):
    """An op the importer has no statement for, in a submodule."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))
        self.h = nn.ModuleList([Running()])

    def forward(self, x):
        return self.h[0](x * self.w).sum()


class NotScalar(nn.Module):
    """A forward that returns a vector, not a loss."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))

    def forward(self, x):
        return x * self.w


class Broken(nn.Module):
    """A module whose constructor fails."""

    def __init__(self, width=4):
        super().__init__()
        raise ValueError("width %d is not supported" % width)
