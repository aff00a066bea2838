"""torch.distributed process groups, one per ring version, and the state that moves between them."""

import copy
import datetime
import gc
import hashlib
import hmac
import io
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from edl import _wire

# How long a group's gathering or collective may wait for a member: the worker's failure
# detection acts within seconds, so this only bounds a script stuck on a member that hangs.
TIMEOUT = datetime.timedelta(seconds=60)


def serve_store(host):
    """The rendezvous store this member serves for its life, on the ring's own address ``host``
    (the only one the other members dial) and a port the system picks (its ``port`` says which);
    a group gathers at its first member's."""
    return dist.TCPStore(host, 0, None, True, TIMEOUT, wait_for_workers=False)


def store_prefix(secret, version):
    """Where group ``version``'s rendezvous keys go in the store: a name derived from the job's
    secret, which every member's script holds and nothing else on the network does. The store
    (torch's TCPStore) takes anyone's connection and has no way to list its keys, so a stranger
    who reaches it cannot find, read or overwrite the group's (the ranks' addresses, the barrier's
    count): only their number shows."""
    return hmac.new(secret, b"edl-group-store/%d" % version, hashlib.sha256).hexdigest()[:32]


def _timed_allreduce(groups, bucket):
    """DDP's own all-reduce of a gradient bucket, noting when the bucket was ready."""
    from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
    groups._last_bucket = time.perf_counter()
    return allreduce_hook(None, bucket)


class Extras:
    """The state a script attached besides its model and optimizer, by the keyword it gave."""

    def __init__(self, state):
        self._state = dict(state)

    def state_dict(self):
        return {name: dict(v) if isinstance(v, dict) else v.state_dict() for name, v in self._state.items()}

    def load_state_dict(self, saved):
        """Loads what a checkpoint holds; a keyword it lacks (attached since) keeps its value."""
        for name, v in self._state.items():
            if name not in saved:
                continue
            if isinstance(v, dict):
                v.clear()
                v.update(saved[name])
            else:
                v.load_state_dict(saved[name])


class Groups:
    def __init__(self, backend, store, secret, module, optimizer, extras):
        self._backend = backend
        self._secret = secret
        self._module = module
        self._optimizer = optimizer
        self._extras = extras
        self._step_start = time.perf_counter()
        self._last_bucket = None
        self._server = store
        self._ddp = None
        # True while this member holds the job's current state: newcomers, and every member sent
        # back to the job's start, take it from one that does.
        self._has_state = False
        self._starting = self._snapshot()

    def form(self, version, rank, size, store_host, store_port):
        self._leave()
        store = dist.TCPStore(store_host, store_port, None, False, TIMEOUT)
        dist.init_process_group(self._backend, store=dist.PrefixStore(store_prefix(self._secret, version), store),
                                rank=rank, world_size=size, timeout=TIMEOUT)
        source = self._source(size)
        if source >= 0:
            self._broadcast(source, rank)
        self._has_state = True
        # Without DDP's buffer broadcast at the top of every forward: a member lost then would fail
        # the others inside the script's own code, outside anything EDL can drop. sync_buffers
        # does it in step.backward instead.
        self._ddp = DistributedDataParallel(self._module, broadcast_buffers=False) if size > 1 else None
        if self._ddp is not None:
            self._ddp.register_comm_hook(self, _timed_allreduce)
        return self._ddp if self._ddp is not None else self._module

    def step_started(self):
        self._step_start = time.perf_counter()
        self._last_bucket = None

    def compute_seconds(self):
        """From the step's start to the last gradient bucket handed to the all-reduce (or to now,
        alone): the member's own computing, without the wait for the slowest that follows."""
        end = self._last_bucket if self._last_bucket is not None else time.perf_counter()
        return end - self._step_start

    def sync_buffers(self):
        """Rank 0's buffers (BatchNorm's running statistics) to every member, one broadcast per
        dtype, as DDP would have done at the forward: the members' models stay identical."""
        if self._ddp is None:
            return
        by_dtype = {}
        for b in self._module.buffers():
            by_dtype.setdefault(b.dtype, []).append(b)
        for buffers in by_dtype.values():
            flat = torch.cat([b.detach().reshape(-1) for b in buffers])
            dist.broadcast(flat, 0)
            offset = 0
            with torch.no_grad():
                for b in buffers:
                    b.copy_(flat[offset:offset + b.numel()].view_as(b))
                    offset += b.numel()

    def _source(self, size):
        """The lowest rank that holds the job's state, rank 0 if none does (the first ring), or -1
        when every member holds it (a scale-in, a recovery: nothing needs to move)."""
        if size == 1:
            return -1
        flags = [torch.zeros(1) for _ in range(size)]
        dist.all_gather(flags, torch.tensor([1.0 if self._has_state else 0.0]))
        holders = [r for r, f in enumerate(flags) if f.item() > 0]
        if len(holders) == size:
            return -1
        return holders[0] if holders else 0

    def _broadcast(self, source, rank):
        with torch.no_grad():
            for t in self._module.state_dict().values():
                dist.broadcast(t, source)
        # As tensors and a JSON outline, never pickled: what a member receives is data.
        device = torch.device("cuda", torch.cuda.current_device()) if self._backend == "nccl" else torch.device("cpu")
        if rank == source:
            _wire.send(self._others(), source, device, "the optimizer's or the attached state")
        else:
            self._load_others(_wire.receive(source, device))

    def _others(self):
        """Everything but the model's own tensors (which go as tensors)."""
        return {"optimizer": self._optimizer.state_dict() if self._optimizer is not None else None,
                "state": self._extras.state_dict()}

    def _load_others(self, saved):
        if self._optimizer is not None and saved.get("optimizer") is not None:
            self._optimizer.load_state_dict(saved["optimizer"])
        # Absent in checkpoints written before EDL kept a script's other state.
        self._extras.load_state_dict(saved.get("state", {}))

    def formed(self):
        return dist.is_initialized()

    def begin_step(self):
        """Remembers what a dropped step must leave as it was: the attached state (a scheduler's
        position, counters) and the optimizer's hyperparameters, which a scheduler's step sets."""
        groups = [] if self._optimizer is None else [
            {k: copy.deepcopy(v) for k, v in g.items() if k != "params"} for g in self._optimizer.param_groups]
        self._before_step = (copy.deepcopy(self._extras.state_dict()), groups)

    def drop_step(self):
        """The step was not applied (a member was lost): the script's own steps of its schedulers
        and counters in it are undone, as the worker retrains or skips it with the others."""
        extras, groups = self._before_step
        self._extras.load_state_dict(extras)
        if self._optimizer is not None:
            for g, saved in zip(self._optimizer.param_groups, groups):
                g.update(saved)

    def lost(self):
        """A collective failed: this member's state may not be the others' (it takes theirs at the
        next group, if any holds it)."""
        self._has_state = False

    def abandon(self):
        """Leaves the group now (a member is gone), closing this member's connections to the others."""
        self._leave()

    def _leave(self):
        if self._ddp is not None:
            self._ddp = None
            gc.collect()
        if dist.is_initialized():
            try:
                dist.destroy_process_group()
            except RuntimeError:
                pass  # a group whose member is gone: nothing left to tear down cleanly

    def _snapshot(self):
        buf = io.BytesIO()
        torch.save(dict(self._others(), model=self._module.state_dict()), buf)
        return buf.getvalue()

    def save(self):
        return self._snapshot()

    def load(self, state):
        """Loads a checkpoint's state; empty: the state the script was attached with."""
        starting = not state
        saved = torch.load(io.BytesIO(self._starting if starting else state))
        self._module.load_state_dict(saved["model"])
        self._load_others(saved)
        # Members sent back to the start may have started differently: they take one member's.
        self._has_state = not starting

    def close(self):
        self._leave()
