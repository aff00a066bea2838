"""One torchrun agent (one "node" of `torchrun --nnodes=MIN:MAX --nproc_per_node=1` with the c10d
rendezvous), started through the launcher's API: Debian's torch 1.13 `torchrun` command cannot parse
its own --redirects/--tee defaults under Python 3.11. Same elastic behaviour: a node joining or
leaving restarts every worker.

    python3 torchrun_agent.py MIN MAX HOST:PORT script.py [args...]
"""
import sys

from torch.distributed.elastic.multiprocessing import Std
from torch.distributed.launcher.api import LaunchConfig, elastic_launch

config = LaunchConfig(min_nodes=int(sys.argv[1]), max_nodes=int(sys.argv[2]), nproc_per_node=1,
                      rdzv_backend="c10d", rdzv_endpoint=sys.argv[3], run_id="edl-bench", max_restarts=20,
                      monitor_interval=1, redirects=Std.NONE, tee=Std.NONE,
                      # A first round closes 1 s after MIN nodes, so that a node started later joins
                      # as a change of membership, as on a cluster.
                      rdzv_configs={"last_call_timeout": 1, "join_timeout": 300})
elastic_launch(config, sys.executable)("-u", *sys.argv[4:])
