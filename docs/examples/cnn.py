"""A small CNN on a synthetic image set, trained as an elastic EDL job.

    bin/edl submit --script docs/examples/cnn.py --python /usr/bin/python3 --gpus-per-worker 0 \
        --workers 2 --max-workers 4 --steps 3000 --batch-size 64 -- --images 4096
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

import edl

parser = argparse.ArgumentParser()
parser.add_argument("--images", type=int, default=4096)
parser.add_argument("--seed", type=int, default=0, help="the data set's seed (the same on every worker)")
args = parser.parse_args()

# Every worker builds the same data set: 1-channel 16x16 images whose class is the quadrant
# holding a bright square.
g = torch.Generator().manual_seed(args.seed)
labels = torch.randint(0, 4, (args.images,), generator=g)
images = torch.rand(args.images, 1, 16, 16, generator=g) * 0.3
for i, c in enumerate(labels.tolist()):
    r, q = divmod(c, 2)
    images[i, 0, r * 8 + 2:r * 8 + 6, q * 8 + 2:q * 8 + 6] += 1.0


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


job = edl.init(dataset_size=len(images))
torch.manual_seed(job.seed)  # the first group takes its first member's model anyway
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
job.attach(model, optimizer)

for step in job.steps():
    x, y = images[step.samples], labels[step.samples]
    optimizer.zero_grad()
    loss_sum = F.cross_entropy(job.model(x), y, reduction="sum")
    step.backward(loss_sum)
    optimizer.step()
    step.done(loss_sum.item())
    if step.number % 100 == 0:
        print("member %d of %d, step %d: loss %.4f" % (job.rank, job.size, step.number,
                                                       loss_sum.item() / len(step.samples)), flush=True)
