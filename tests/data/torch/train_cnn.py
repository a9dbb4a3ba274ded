#!/usr/bin/python3
"""A few training steps of a small convolutional network in PyTorch, for `dlcheck run` tests.

Two 3x3 convolutions with ReLU and max pooling, then a linear classifier, trained with SGD on
random 1x16x16 images for a few steps on one thread. PyTorch 1.13 runs the convolutions (forward
and backward) through oneDNN; the linear layer does not. Prints one line per step and a summary;
the last line has no line feed, as a progress line would.

    python3 train_cnn.py [--steps 4] [--batch 8]
"""
import argparse
import sys

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=4)
parser.add_argument("--batch", type=int, default=8)
args = parser.parse_args()

torch.set_num_threads(1)
torch.manual_seed(1)
model = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(8 * 4 * 4, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
images = torch.randn(args.steps, args.batch, 1, 16, 16)
labels = torch.randint(0, 10, (args.steps, args.batch))

for step in range(args.steps):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(images[step]), labels[step])
    loss.backward()
    optimizer.step()
    # A carriage-return progress mark, then the step's line: both must reach the user intact.
    print(f"step {step + 1}/{args.steps}\r", end="", flush=True)
    print(f"train_cnn step={step + 1} loss={loss.item():.4f}", flush=True)
sys.stdout.write(f"train_cnn done steps={args.steps}")
sys.stdout.flush()
