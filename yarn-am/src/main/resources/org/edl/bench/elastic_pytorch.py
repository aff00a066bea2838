"""`edl bench pytorch`'s training script: the same MLP and data under EDL (`--mode edl`, through the
edl package) and under torchrun (`--mode torchrun`, torchrun's own elastic pattern: every change
of membership restarts every worker, which loads the newest snapshot and goes on).

Each process appends `wall_time,step,workers` for every step it ends to `<log>/<pid>.csv`, after
a first line `start,<wall_time of its start>`.
"""
import argparse
import os
import time

START = time.time()

import torch
import torch.distributed as dist
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--mode", choices=["edl", "torchrun"], required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--hidden", type=int, default=512)
parser.add_argument("--batch", type=int, default=256, help="the global batch")
parser.add_argument("--snapshot", help="torchrun: the snapshot file every restart loads")
parser.add_argument("--snapshot-every", type=int, default=20)
args = parser.parse_args()

g = torch.Generator().manual_seed(7)
x = torch.randn(8192, 256, generator=g)
y = (x[:, :10].argmax(dim=1))
torch.set_num_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(256, args.hidden), torch.nn.ReLU(), torch.nn.Linear(args.hidden, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
log = open(os.path.join(args.log, "%d.csv" % os.getpid()), "a", buffering=1)
log.write("start,%.6f\n" % START)


def record(step, workers):
    log.write("%.6f,%d,%d\n" % (time.time(), step, workers))


if args.mode == "edl":
    import edl
    job = edl.init(dataset_size=len(x))
    job.attach(model, optimizer)
    for step in job.steps():
        optimizer.zero_grad()
        loss = F.cross_entropy(job.model(x[step.samples]), y[step.samples], reduction="sum")
        step.backward(loss)
        optimizer.step()
        step.done(loss.item())
        record(step.number, job.size)
else:
    dist.init_process_group("gloo")
    rank, size = dist.get_rank(), dist.get_world_size()
    step = 0
    if os.path.exists(args.snapshot):
        saved = torch.load(args.snapshot)
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        step = saved["step"]
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    while True:
        first = (step * args.batch) % len(x)
        share = [(first + i) % len(x) for i in range(rank * args.batch // size, (rank + 1) * args.batch // size)]
        optimizer.zero_grad()
        loss = F.cross_entropy(ddp(x[share]), y[share], reduction="sum")
        (loss * size / args.batch).backward()
        optimizer.step()
        step += 1
        record(step, size)
        if rank == 0 and step % args.snapshot_every == 0:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step},
                       args.snapshot + ".tmp")
            os.replace(args.snapshot + ".tmp", args.snapshot)
