"""EDL for PyTorch scripts: the script trains, the EDL worker that started it keeps it a member
of the elastic job (ZooKeeper, leader, switches, checkpoints, failures).

A script uses it in a few lines::

    import edl
    job = edl.init(dataset_size=len(data))      # connects to the worker that started this script
    model, optimizer = Net(), torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=1000)
    job.attach(model, optimizer, scheduler=scheduler)  # the state EDL saves, restores and broadcasts
    for step in job.steps():                     # ends when this member's part of the job is over
        x, y = data[step.samples]                # or a DataLoader: see Job.batch_sampler
        optimizer.zero_grad()
        loss_sum = F.cross_entropy(job.model(x), y, reduction="sum")
        step.backward(loss_sum)                  # the global batch's mean gradient, on every member
        optimizer.step()
        scheduler.step()
        step.done(loss_sum.item())

EDL never sets a learning rate: the optimizer trains at the rates the script and its schedulers
give it. ``step.learning_rate`` and ``step.lr_scale`` offer the job's ``--learning-rate`` as the
batch rule scales it with the ring's size, for a script that wants it.

Between two steps the package asks the worker what to do next: train the next step on the samples
the leader assigned to this member, join a new process group (torch.distributed: gloo on the CPU,
nccl on GPUs) when the ring changed, save or load the state for a checkpoint, or end. At a new
group the model and optimizer state go from a member that holds the job's state to every member
that does not (newcomers), so the members that train on stop only for that broadcast.
"""

import atexit
import contextlib
import os
import sys
import traceback

from edl import _channel

__all__ = ["init", "read_state", "Job", "Step", "RngState"]


def init(dataset_size):
    """Connects to the worker that started this script (its environment says where) and returns
    the job. ``dataset_size``: the number of samples the script indexes; the leader assigns
    each step's samples among ``range(dataset_size)``."""
    port = os.environ.get("EDL_SCRIPT_PORT")
    secret_file = os.environ.get("EDL_SCRIPT_SECRET_FILE")
    if not port or not secret_file:
        raise RuntimeError("edl.init(): EDL_SCRIPT_PORT and EDL_SCRIPT_SECRET_FILE are not set; "
                           "run this script through `edl submit --script`, not directly")
    with open(secret_file, "rb") as f:
        secret = f.read()
    channel = _channel.connect("127.0.0.1", int(port), secret)
    from edl import _groups
    # The store is bound (on a port the system picks) before the worker learns of it: a port chosen
    # first and bound later could be taken in between by another process on the node.
    store = _groups.serve_store(os.environ.get("EDL_SCRIPT_STORE_HOST", "127.0.0.1"))
    hello = channel.hello(os.getpid(), int(dataset_size), store.port)
    job = Job(channel, hello, store, secret)
    device = os.environ.get("EDL_CUDA_DEVICE")
    if device is not None and hello.backend == "nccl":
        # This process's GPU among its container's (one per process): NCCL and the script's
        # tensors on "cuda" use it.
        import torch
        torch.cuda.set_device(int(device))
    sys.excepthook = job._excepthook
    _exit_with_parent()
    _signs_of_life(int(port), secret)
    return job


def _signs_of_life(port, secret):
    """Tells the worker every second, on a connection of its own, that this process runs: one that
    is paused or hung gives no sign for a few seconds, and its worker ends it so that its group's
    other members do not wait for it until the group's timeout."""
    import threading
    import time

    def beat():
        try:
            channel = _channel.connect("127.0.0.1", port, secret)
            while True:
                channel.alive()
                time.sleep(1)
        except Exception:
            pass  # the worker is gone or closed the script: nothing to tell

    threading.Thread(target=beat, name="edl-signs-of-life", daemon=True).start()


def _export_group(g):
    """torchrun's variables for the group just formed, for library code that reads them: the
    process's rank among all of the job's, its rank among its worker's (--procs-per-worker) and its
    worker's rank as the node's. MASTER_ADDR and MASTER_PORT name the group's rendezvous store (its
    first worker's first process's)."""
    local_rank = g.localRank if g.localRank is not None else 0
    local_size = g.localSize if g.localSize is not None else 1
    os.environ.update({
        "RANK": str(g.rank), "WORLD_SIZE": str(g.size), "GROUP_RANK": str(g.rank // local_size),
        "LOCAL_RANK": str(local_rank), "LOCAL_WORLD_SIZE": str(local_size),
        "MASTER_ADDR": g.storeHost, "MASTER_PORT": str(g.storePort),
    })


def _exit_with_parent():
    """The script must not outlive its worker (killed with -9, its container gone): it would hold
    the GPU and the group's port. A daemon thread exits the process once it is reparented."""
    import threading
    import time
    parent = os.getppid()

    def watch():
        while True:
            time.sleep(1)
            if os.getppid() != parent:
                os._exit(3)

    threading.Thread(target=watch, name="edl-parent-watch", daemon=True).start()


def read_state(path):
    """The state a script job's ``model.bin`` (or a checkpoint's ``model.bin``) holds, copied from
    HDFS first (``hdfs dfs -get``): a dict with the ``"model"`` and ``"optimizer"`` state dicts as
    torch.save wrote them, and under ``"state"`` each keyword ``job.attach`` was given (absent in
    checkpoints of EDL before it kept them). Runs without a worker:
    ``model.load_state_dict(read_state(p)["model"])``."""
    import io
    import struct

    import torch
    with open(path, "rb") as f:
        data = f.read()
    # The worker's framing: the model's name (Java's writeUTF), then the state's length and bytes.
    (n,) = struct.unpack(">H", data[:2])
    name = data[2:2 + n].decode("utf-8")
    if not name.startswith("script:"):
        raise ValueError("%s holds the state of %s, not of a script job" % (path, name))
    (size,) = struct.unpack(">i", data[2 + n:6 + n])
    return torch.load(io.BytesIO(data[6 + n:6 + n + size]))


class Step:
    """One step of this member: the job's step number, its samples and what it reports back."""

    def __init__(self, job, number, samples, learning_rate, lr_scale, global_batch_share):
        self._job = job
        self.number = number
        self.samples = samples
        # The loader's batch of exactly these samples, where job.steps(loader) was given one.
        self.batch = None
        # Offered, never applied: the job's --learning-rate as the batch rule scales it now, and
        # the factor (the ring's size under fixed-per-worker, 1 under fixed-global).
        self.learning_rate = learning_rate
        self.lr_scale = lr_scale
        self._scale = global_batch_share
        self._loss_sum = None
        self._lost = None
        self._compute = None

    def backward(self, loss_sum):
        """Backpropagates ``loss_sum`` (the sum over this member's samples) so that, once the
        process group has averaged it, every member holds the global batch's mean gradient.

        Then it gives every member rank 0's buffers (BatchNorm's running statistics), which DDP
        would otherwise broadcast at the next forward pass (not before the backward: autograd
        checks that the forward's buffers were not changed in place). Where the group fails in
        either because a member is gone, the gradients are dropped (the optimizer's step then
        changes nothing: it skips parameters without one) and the worker is told; it recovers the
        job and orders a new group before the next step.

        After a member was found lost earlier in the step (in a collective of the script's own) it
        enters no collective: the step is dropped anyway, and a member waiting in a collective for
        one that never comes would wait for the group's timeout."""
        if self._lost is not None:
            self._drop_gradients()
            return
        with self.collective():
            (loss_sum * self._scale).backward()
            self._compute = self._job._groups.compute_seconds()
            self._job._groups.sync_buffers()

    @contextlib.contextmanager
    def collective(self):
        """For the script's own collectives in a step (a metric's all_reduce, a ZeRO optimizer's
        step): where the group fails inside because a member is gone, the step is dropped as in
        ``backward``, and the script goes on to ``step.done``; any other error is raised."""
        try:
            yield
        except RuntimeError as e:
            # Once the step is lost, the group is gone: whatever fails after that is that.
            if self._lost is None and not self._job._member_lost(e):
                raise
            if self._lost is None:
                self._lost = str(e).splitlines()[0] if str(e) else repr(e)
                self._job._abandon_group()
            self._drop_gradients()

    def _drop_gradients(self):
        for p in self._job._module.parameters():
            p.grad = None

    def done(self, loss_sum):
        """The step is trained; ``loss_sum`` (a float) is the summed loss of its samples."""
        self._loss_sum = float(loss_sum)


class Job:
    def __init__(self, channel, hello, store, secret):
        self._channel = channel
        self._secret = secret
        self.worker_id = hello.workerId
        # This process among its worker's (edl submit --procs-per-worker), and how many it runs.
        self.local_rank = int(os.environ.get("EDL_LOCAL_RANK", "0"))
        self.local_size = int(os.environ.get("EDL_LOCAL_WORLD_SIZE", "1"))
        # The job's --data, copied by the worker into its working directory (None if it named none).
        self.data = os.environ.get("EDL_DATA")
        self.seed = hello.seed
        self._store = store
        self._backend = hello.backend
        self._groups = None
        self._sampler = None
        self._feed = None
        self._module = None
        self._optimizer = None
        self.model = None
        self.rank = -1
        self.size = 0
        # Whether the script's failure was already reported to the worker.
        self._reported = False

    def attach(self, model, optimizer=None, **state):
        """The model (an nn.Module), its optimizer and any other state the script trains with,
        which EDL saves in every checkpoint, restores at a recovery and gives to newcomers.

        Each keyword is either an object with ``state_dict()`` and ``load_state_dict()`` (an LR
        scheduler, a ``GradScaler``, :class:`RngState`, anything following PyTorch's
        checkpointing protocol) or a ``dict`` (a script's counters: restored in place)."""
        from edl import _groups, _wire
        for name, value in state.items():
            if not isinstance(value, dict) and not (callable(getattr(value, "state_dict", None))
                                                    and callable(getattr(value, "load_state_dict", None))):
                raise TypeError("edl: job.attach(%s=...): a %s has no state_dict() and load_state_dict(); pass an "
                                "object that has both (a scheduler, a GradScaler, edl.RngState()) or a dict"
                                % (name, type(value).__name__))
            # Sent to newcomers as tensors and plain values: what cannot be is refused now.
            _wire.check(value if isinstance(value, dict) else value.state_dict(), "job.attach(%s=...)" % name)
        self._module = model
        self._optimizer = optimizer
        self.model = model
        self._groups = _groups.Groups(self._backend, self._store, self._secret, model, optimizer, _groups.Extras(state))

    def batch_sampler(self):
        """The ``batch_sampler`` for this job's ``torch.utils.data.DataLoader``: pass the loader to
        :meth:`steps`, and each step's ``step.batch`` is the loader's batch of ``step.samples``,
        prefetched by its worker processes while the steps before it train."""
        from edl import _loader
        if self._sampler is None:
            self._sampler = _loader.ElasticBatchSampler(self._channel)
        return self._sampler

    def steps(self, loader=None):
        """This member's steps, one at a time, until its part of the job is over. With ``loader`` (a
        DataLoader built with ``batch_sampler=job.batch_sampler()``) each step carries its batch."""
        if self._module is None:
            raise RuntimeError("edl: call job.attach(model, optimizer) before job.steps()")
        if loader is not None:
            from edl import _loader
            if self._sampler is None or getattr(loader, "batch_sampler", None) is not self._sampler:
                raise TypeError("edl: job.steps(loader): build the loader with batch_sampler=job.batch_sampler() "
                                "(its batch_sampler is %r)" % (getattr(loader, "batch_sampler", None),))
            self._feed = _loader.Feed(loader, self._sampler)
        from edl_gen.ttypes import ScriptAction, ScriptReport
        report = ScriptReport()
        try:
            for step in self._orders(report, ScriptAction, ScriptReport):
                yield step
        except GeneratorExit:
            # The loop was left early: a break or return, or an error the excepthook reports
            # (it runs first at exit, and then this says nothing more).
            atexit.register(self._left_early)
            raise

    def _left_early(self):
        if not self._reported:
            self._reported = True
            self._channel.failed("the script left job.steps() before its member's part of the job was over"
                                 " (a break or return in the loop?); the job's length is its --steps")

    def _orders(self, report, ScriptAction, ScriptReport):
        while True:
            order = self._channel.nextOrder(report)
            report = ScriptReport()
            if order.action == ScriptAction.STEP:
                step = Step(self, order.step, list(order.samples), order.learningRate,
                            order.learningRateScale if order.learningRateScale is not None else 1.0,
                            self.size / float(order.globalBatch))
                if self._feed is not None:
                    step.batch = self._feed.batch(order.step, step.samples)
                self._groups.begin_step()
                self._groups.step_started()
                yield step
                if step._loss_sum is None:
                    raise RuntimeError("edl: step %d ended without step.done(loss_sum)" % step.number)
                report.step = step.number
                report.lossSum = step._loss_sum
                if step._compute is not None:
                    report.computeSeconds = step._compute
                if step._lost is not None:
                    report.lost = step._lost
                    self._groups.drop_step()
                    self._groups.lost()
            elif order.action == ScriptAction.FORM_GROUP:
                g = order.group
                self._drop_prefetched()
                try:
                    self.model = self._groups.form(g.version, g.rank, g.size, g.storeHost, g.storePort)
                    self.rank, self.size = g.rank, g.size
                    _export_group(g)
                except RuntimeError as e:
                    if not self._member_lost(e):
                        raise
                    report.lost = str(e).splitlines()[0] if str(e) else repr(e)
                    self._groups.lost()
            elif order.action == ScriptAction.SAVE_STATE:
                report.state = self._groups.save()
            elif order.action == ScriptAction.LOAD_STATE:
                self._drop_prefetched()
                self._groups.load(order.state)
            elif order.action == ScriptAction.FINISH:
                self._drop_prefetched()
                self._groups.close()
                return
            else:
                raise RuntimeError("edl: unknown order %r" % (order.action,))

    def _abandon_group(self):
        """A member is gone: this one leaves the group at once, closing its connections, so that a
        member still waiting for it in a collective fails now instead of at the group's timeout
        (in gloo a member can wait on a live neighbour that already gave up on the dead one). The
        rest of the step runs on the bare module; the worker orders a new group before the next."""
        self._groups.abandon()
        self.model = self._module

    def _drop_prefetched(self):
        """The ring changed, the job went back to a checkpoint, or it ended: batches the loader
        prefetched for the steps planned before are not this member's any more."""
        if self._feed is not None:
            self._feed.drop()

    def _member_lost(self, error):
        """Whether ``error`` is the process group failing (a member gone), not the script's own."""
        text = str(error)
        return self._groups is not None and self._groups.formed() and any(
            s in text for s in ("Connection closed", "Connection reset", "Broken pipe", "gloo", "Gloo",
                                "NCCL", "Timed out", "timed out", "Socket Timeout"))

    def _excepthook(self, kind, value, tb):
        self._reported = True
        try:
            self._channel.failed("".join(traceback.format_exception(kind, value, tb)))
        except Exception:
            pass
        sys.__excepthook__(kind, value, tb)


class RngState:
    """The random number generators a script draws from (torch's CPU generator, Python's ``random``
    and, where installed, NumPy's), as one piece of state for ``job.attach(..., rng=edl.RngState())``:
    dropout masks and augmentations after a recovery continue where the checkpoint left them."""

    def state_dict(self):
        import random

        import torch
        saved = {"torch": torch.get_rng_state(), "python": random.getstate()}
        try:
            import numpy
            kind, keys, pos, has_gauss, gauss = numpy.random.get_state()
            # As a tensor: newcomers receive state as tensors and plain values only.
            saved["numpy"] = (kind, torch.from_numpy(keys.astype(numpy.int64)), pos, has_gauss, gauss)
        except ImportError:
            pass
        return saved

    def load_state_dict(self, saved):
        import random

        import torch
        torch.set_rng_state(saved["torch"])
        random.setstate(saved["python"])
        if "numpy" in saved:
            import numpy
            kind, keys, pos, has_gauss, gauss = saved["numpy"]
            numpy.random.set_state((kind, keys.numpy().astype(numpy.uint32), pos, has_gauss, gauss))
