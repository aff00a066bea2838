"""A DataLoader for an elastic job: the batch sampler hands the loader the samples the leader
assigns this member, step by step and ahead of time (so the loader's worker processes prefetch),
and the job matches each step with the loader's batch of exactly that step's samples."""

import collections


class ElasticBatchSampler:
    """The ``batch_sampler`` of ``torch.utils.data.DataLoader(dataset, batch_sampler=...,
    num_workers=N)`` for an elastic job; the loader is then iterated only through
    ``job.steps(loader)``. It yields, in step order, the samples this member will train if its ring
    stays as it is, asking its worker 16 steps at a time. Where the ring changed (a newcomer, a
    leaver, a recovery), what was prefetched is dropped and the loader starts again from the step
    being trained: a batch is trained only if its samples are the step's own."""

    AHEAD = 16

    def __init__(self, channel):
        self._channel = channel
        # (step, samples) in the order the loader took them; the loader returns batches in order.
        self._taken = collections.deque()
        self._start = None

    def __iter__(self):
        if self._start is None:
            raise RuntimeError("edl: a loader with job.batch_sampler() is iterated by job.steps(loader), "
                               "not directly")
        # A DataLoader's iterator asks for the sampler's more than once as it starts (torch 1.13:
        # twice); each starts at the step being trained and only one is ever drawn from.
        return self._samples_from(self._start)

    def _samples_from(self, step):
        self._taken.clear()
        while True:
            planned = self._channel.upcomingSamples(step, self.AHEAD)
            if not planned:
                return  # the job's end
            for samples in planned:
                self._taken.append((step, list(samples)))
                step += 1
                yield list(samples)

    def __len__(self):
        raise TypeError("edl: an elastic job's loader has no length: the number of steps each member "
                        "trains depends on the job's size over time (the job's length is its --steps)")


class Feed:
    """One loader's batches matched with the job's steps (see :class:`ElasticBatchSampler`)."""

    def __init__(self, loader, sampler):
        self._loader = loader
        self._sampler = sampler
        self._batches = None

    def batch(self, step, samples):
        """The loader's batch of ``samples`` for ``step``: from the running iterator where it planned
        them, else from a fresh one started at this step."""
        if self._batches is not None:
            batch, planned = self._next()
            if planned == (step, samples):
                return batch
            self.drop()
        self._sampler._start = step
        self._batches = iter(self._loader)
        batch, planned = self._next()
        if planned != (step, samples):
            raise RuntimeError("edl: the loader's first batch from step %d holds %s, not the step's samples %s"
                               % (step, planned, samples))
        return batch

    def _next(self):
        try:
            batch = next(self._batches)
        except StopIteration:
            return None, None
        return batch, self._sampler._taken.popleft()

    def drop(self):
        """Drops the prefetched batches (the ring changed) and stops the loader's worker processes."""
        batches, self._batches = self._batches, None
        shutdown = getattr(batches, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()
