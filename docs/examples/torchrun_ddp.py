"""A plain torchrun script, unchanged for EDL: run it with `torchrun --nnodes=1:4 --nproc-per-node=1
torchrun_ddp.py --checkpoint ck.pt` on your own machines, or on YARN with

    bin/edl submit --torchrun docs/examples/torchrun_ddp.py --python /usr/bin/python3 \
        --gpus-per-worker 0 --workers 2 --min-workers 1 --max-workers 4 -- --checkpoint /shared/ck.pt

Every process reads its place from the launcher's environment (RANK, WORLD_SIZE, LOCAL_RANK,
MASTER_ADDR, ...). At each change of membership every process is restarted and loads the last
checkpoint rank 0 wrote, so the checkpoint must be where every node can read it (on one host, any
directory; across hosts, a shared mount).
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--checkpoint", required=True)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--epoch-seconds", type=float, default=1.0, help="a pause after each epoch, to watch it")
args = parser.parse_args()

cuda = torch.cuda.is_available()
if cuda:
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl" if cuda else "gloo")
rank, world = dist.get_rank(), dist.get_world_size()
device = torch.device("cuda") if cuda else torch.device("cpu")

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.BatchNorm1d(64), torch.nn.ReLU(),
                            torch.nn.Linear(64, 4)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.epochs)
first = 0
if os.path.exists(args.checkpoint):
    state = torch.load(args.checkpoint, map_location=device)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    schedule.load_state_dict(state["schedule"])
    first = state["epoch"]
ddp = torch.nn.parallel.DistributedDataParallel(model)

generator = torch.Generator().manual_seed(1)
x = torch.randn(4096, 16, generator=generator)
data = TensorDataset(x, x[:, :4].argmax(dim=1))
print(f"rank {rank} of {world} (restart {os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}) starts at epoch"
      f" {first}", flush=True)
for epoch in range(first, args.epochs):
    sampler = DistributedSampler(data, seed=0)
    sampler.set_epoch(epoch)
    total = torch.zeros(2, device=device)
    for xb, yb in DataLoader(data, batch_size=64, sampler=sampler, num_workers=1):
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(ddp(xb), yb)
        loss.backward()
        optimizer.step()
        total += torch.stack([loss.detach() * len(yb), torch.tensor(float(len(yb)), device=device)])
    schedule.step()
    dist.all_reduce(total)
    if rank == 0:
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "schedule": schedule.state_dict(), "epoch": epoch + 1}, args.checkpoint + ".tmp")
        os.replace(args.checkpoint + ".tmp", args.checkpoint)
        print(f"epoch {epoch}: loss {total[0].item() / total[1].item():.4f} on {world} processes,"
              f" lr {schedule.get_last_lr()[0]:.4f}", flush=True)
    time.sleep(args.epoch_seconds)
dist.destroy_process_group()
