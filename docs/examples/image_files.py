"""A small CNN trained from image files on disk through a Dataset and a DataLoader with worker
processes, as an elastic EDL job.

    bin/edl submit --script docs/examples/image_files.py --python /usr/bin/python3 --gpus-per-worker 0 \
        --workers 2 --max-workers 3 --steps 600 --batch-size 64 -- --images 2048 --loader-workers 2

Each worker first writes the image set into its working directory (``--dir``, 8-bit PGM files in
one folder per class, as an ``ImageFolder`` holds them) unless it is there already; a real job
would point ``--dir`` at its images instead. The loader's worker processes read and decode the
files of the steps ahead while the current step trains; EDL hands each step exactly its samples.
"""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import edl

parser = argparse.ArgumentParser()
parser.add_argument("--images", type=int, default=2048)
parser.add_argument("--dir", default="images")
parser.add_argument("--loader-workers", type=int, default=2)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--seed", type=int, default=0, help="the image set's seed (the same on every worker)")
args = parser.parse_args()

CLASSES = 4
SIDE = 16


def write_images(root, count, seed):
    """``count`` 16x16 grey images whose class is the quadrant holding a bright square."""
    g = torch.Generator().manual_seed(seed)
    for c in range(CLASSES):
        os.makedirs(os.path.join(root, str(c)), exist_ok=True)
    for i in range(count):
        c = int(torch.randint(0, CLASSES, (1,), generator=g))
        pixels = torch.rand(SIDE, SIDE, generator=g) * 0.3
        r, q = divmod(c, 2)
        pixels[r * 8 + 2:r * 8 + 6, q * 8 + 2:q * 8 + 6] += 0.7
        data = bytes((pixels.clamp(0, 1) * 255).round().to(torch.uint8).flatten().tolist())
        with open(os.path.join(root, str(c), "%06d.pgm" % i), "wb") as f:
            f.write(b"P5\n%d %d\n255\n" % (SIDE, SIDE) + data)


class PgmFolder(Dataset):
    """Images in one folder per class, read and decoded when the loader asks for them."""

    def __init__(self, root):
        self.files = sorted((os.path.join(root, c, n), int(c)) for c in os.listdir(root)
                            for n in os.listdir(os.path.join(root, c)))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        path, label = self.files[i]
        with open(path, "rb") as f:
            raw = f.read()
        magic, size, depth, pixels = raw.split(b"\n", 3)
        if magic != b"P5":
            raise ValueError("%s is not an 8-bit PGM file" % path)
        w, h = (int(v) for v in size.split())
        image = torch.frombuffer(bytearray(pixels), dtype=torch.uint8).reshape(1, h, w).float() / 255
        return image, label


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, CLASSES)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


if not os.path.isdir(args.dir):
    write_images(args.dir + ".tmp", args.images, args.seed)
    os.rename(args.dir + ".tmp", args.dir)
dataset = PgmFolder(args.dir)

job = edl.init(dataset_size=len(dataset))
torch.manual_seed(job.seed)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
job.attach(model, optimizer)
loader = DataLoader(dataset, batch_sampler=job.batch_sampler(), num_workers=args.loader_workers)

correct = seen = 0
for step in job.steps(loader):
    x, y = step.batch
    optimizer.zero_grad()
    out = job.model(x)
    loss_sum = F.cross_entropy(out, y, reduction="sum")
    step.backward(loss_sum)
    optimizer.step()
    step.done(loss_sum.item())
    correct += int((out.argmax(1) == y).sum())
    seen += len(y)
    if step.number % 100 == 0:
        print("member %d of %d, step %d: loss %.4f, accuracy since the last line %.3f"
              % (job.rank, job.size, step.number, loss_sum.item() / len(y), correct / max(seen, 1)), flush=True)
        correct = seen = 0
with open("accuracy.txt", "w") as f:
    f.write("%.4f\n" % (correct / max(seen, 1)))
