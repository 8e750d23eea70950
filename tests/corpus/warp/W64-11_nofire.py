# Look-alike for W64-11: 32 as a tile size, a bit width and a batch size.
# EXPECT: none
import torch

TILE = 32
bits = 32
batch_size = 32
x = torch.zeros(batch_size, TILE, device="cuda")
