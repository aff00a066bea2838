"""torch.distributed's gloo all_reduce, timed as `edl bench allreduce` times its own ring.

One process per member, one thread each, over loopback TCP; or, with --rank, this process is that
one member of a group whose rank 0 serves the rendezvous at --master-addr (the multi-host
benchmark starts one per simulated host this way). Every member starts with ones, so
after each all_reduce every element must equal the member count (checked, exit 3 otherwise).
Prints one line per size, `bytes,median_seconds`, where an iteration's time is the slowest
member's, from a barrier to the end of its all_reduce. Run by org.edl.worker.bench.GlooPeer.
"""
import argparse
import os
import queue
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def timed_iterations(size, iterations):
    return iterations * 10 if size < (1 << 20) else iterations


def member(rank, members, port, sizes, iterations, warmup, out, master_addr="127.0.0.1"):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = master_addr
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=members)
    try:
        for size in sizes:
            n = size // 4
            data = torch.ones(n, dtype=torch.float32)
            times = []
            for i in range(warmup + timed_iterations(size, iterations)):
                data.fill_(1.0)
                dist.barrier()
                start = time.perf_counter()
                dist.all_reduce(data)
                took = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
                dist.all_reduce(took, op=dist.ReduceOp.MAX)
                if i >= warmup:
                    times.append(took.item())
            if not torch.all(data == float(members)):
                print("member %d: all_reduce of %d bytes gave wrong sums" % (rank, size), file=sys.stderr)
                sys.exit(3)
            if rank == 0:
                out.put("%d,%.9f" % (size, statistics.median(times)))
    finally:
        dist.destroy_process_group()


class Printed:
    """The queue rank 0 puts its lines into, when it is a process of its own: standard output."""

    def put(self, line):
        print(line, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--members", type=int, required=True)
    p.add_argument("--sizes", required=True, help="message sizes in bytes, comma-separated")
    p.add_argument("--iterations", type=int, required=True, help="timed iterations (10x under 1 MiB)")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--rank", type=int, help="be this one member only (with --master-addr and --master-port)")
    p.add_argument("--master-addr", help="where rank 0 serves the rendezvous")
    p.add_argument("--master-port", type=int)
    a = p.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.rank is not None:
        member(a.rank, a.members, a.master_port, sizes, a.iterations, a.warmup, Printed(), a.master_addr)
        return
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    port = free_port()
    procs = [ctx.Process(target=member, args=(r, a.members, port, sizes, a.iterations, a.warmup, out))
             for r in range(a.members)]
    for proc in procs:
        proc.start()
    printed = 0
    while printed < len(sizes):
        try:
            print(out.get(timeout=1), flush=True)
            printed += 1
        except queue.Empty:
            dead = [p for p in procs if p.exitcode not in (None, 0)]
            if dead:
                for proc in procs:
                    proc.kill()
                sys.exit(dead[0].exitcode if dead[0].exitcode > 0 else 1)
    for proc in procs:
        proc.join()
        if proc.exitcode != 0:
            sys.exit(proc.exitcode or 1)


if __name__ == "__main__":
    main()
