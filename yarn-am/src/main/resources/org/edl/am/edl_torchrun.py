"""An unchanged torchrun script on YARN (`edl submit --torchrun`), with torchrun's own elastic semantics.

Each worker container runs one node of the job: torch's elastic agent (the launcher API that the
`torchrun` command drives) with the c10d rendezvous, starting the script's processes with RANK,
WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR and MASTER_PORT set. When a node
joins or leaves, every agent stops its processes and starts them again in a new rendezvous round;
the script resumes from its own checkpoint, as under torchrun.

The ApplicationMaster's container hosts the rendezvous store (no agent does: an agent's container
may be the one that leaves) and hears each completed round as a line of JSON on standard output:

    python3 edl_torchrun.py agent --min-nodes 1 --max-nodes 4 --nproc-per-node 2 \
        --rdzv-endpoint HOST:PORT --run-id APP_ID [--max-restarts 100] -- train.py [args...]
    python3 edl_torchrun.py store --run-id APP_ID     # {"port": P}, then {"round": R, "nodes": N}
"""
import argparse
import base64
import datetime
import io
import json
import logging
import os
import pickle
import socket
import sys
import threading
import time

# The round closes this long after its minimum of nodes joined, so that the agents restarting
# after a change all make it into the same round.
LAST_CALL_SECONDS = 2
# A new container waits this long for a round it can join (a YARN container may start late).
JOIN_TIMEOUT_SECONDS = 600


def agent(args):
    from torch.distributed.elastic.multiprocessing import Std
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    if not args.script:
        sys.exit("edl_torchrun agent: no script given after --")
    announce_container(args.rdzv_endpoint)
    # The agent's rounds, restarts and failures, with times, as torchrun shows them.
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = LaunchConfig(min_nodes=args.min_nodes, max_nodes=args.max_nodes, nproc_per_node=args.nproc_per_node,
                          rdzv_backend="c10d", rdzv_endpoint=args.rdzv_endpoint, run_id=args.run_id,
                          max_restarts=args.max_restarts, monitor_interval=1, redirects=Std.NONE, tee=Std.NONE,
                          rdzv_configs={"is_host": False, "last_call_timeout": LAST_CALL_SECONDS,
                                        "join_timeout": JOIN_TIMEOUT_SECONDS})
    try:
        elastic_launch(config, sys.executable)("-u", *args.script)
    except ChildFailedError as e:
        print(f"edl_torchrun: the script failed: {e}", file=sys.stderr, flush=True)
        sys.exit(1)


def container_key(fqdn, pid):
    """Where an agent says which YARN container it runs in, under its rendezvous node's name."""
    return f"edl.container/{fqdn}_{pid}"


def announce_container(endpoint):
    """Tells the store this agent's container, so that the AM's reports name each round's members.

    The rendezvous names a node by its host's name and its agent's process id (this process: the
    launcher runs the agent in it), before it joins any round.
    """
    from torch.distributed import TCPStore

    host, port = endpoint.rsplit(":", 1)
    store = TCPStore(host, int(port), is_master=False, timeout=datetime.timedelta(seconds=60))
    store.set(container_key(socket.getfqdn(), os.getpid()), os.environ.get("CONTAINER_ID", ""))


class _RendezvousStateOnly(pickle.Unpickler):
    """Reads torch's own rendezvous state and nothing else: the store takes anyone's writes."""
    ALLOWED = {("torch.distributed.elastic.rendezvous.dynamic_rendezvous", "_RendezvousState"),
               ("torch.distributed.elastic.rendezvous.dynamic_rendezvous", "_NodeDesc"),
               ("datetime", "datetime"), ("builtins", "set")}

    def find_class(self, module, name):
        if (module, name) not in self.ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a rendezvous state")
        return super().find_class(module, name)


def read_state(raw):
    return _RendezvousStateOnly(io.BytesIO(base64.b64decode(raw))).load()


def container_of(hosted, node):
    """The container of a round's node, as its agent announced it ("" if it did not)."""
    try:
        return hosted.get(container_key(node.fqdn, node.pid)).decode()
    except RuntimeError:
        return ""


def store(args):
    from torch.distributed import TCPStore

    hosted = TCPStore(args.host, args.port, is_master=True, wait_for_workers=False,
                      timeout=datetime.timedelta(seconds=60))
    print(json.dumps({"port": hosted.port}), flush=True)
    # The ApplicationMaster holds the other end of standard input: when it goes, so does the store.
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    # A get waits for its key (here until the first agent opens the rendezvous), then times out.
    hosted.set_timeout(datetime.timedelta(seconds=5))
    key = "torch.rendezvous." + args.run_id
    last = None
    while True:
        try:
            raw = hosted.get(key)
        except RuntimeError:  # not there yet (a timeout), or a connection that broke: ask again
            time.sleep(0.25)
            continue
        try:
            state = read_state(raw)
        except Exception as e:  # a stranger's value: said, and read again next time
            print(json.dumps({"unreadable": str(e)}), flush=True)
        else:
            # Once a round completes, its nodes leave it one by one for the next (a change under
            # way): only a new round's first complete state says who trains.
            if state.complete and state.round != last:
                last = state.round
                members = [container_of(hosted, node) for node in state.participants]
                print(json.dumps({"round": state.round, "nodes": len(state.participants), "members": members}),
                      flush=True)
        time.sleep(0.25)


def main(argv):
    parser = argparse.ArgumentParser(prog="edl_torchrun.py")
    modes = parser.add_subparsers(dest="mode", required=True)
    a = modes.add_parser("agent")
    a.add_argument("--min-nodes", type=int, required=True)
    a.add_argument("--max-nodes", type=int, required=True)
    a.add_argument("--nproc-per-node", type=int, default=1)
    a.add_argument("--rdzv-endpoint", required=True)
    a.add_argument("--run-id", required=True)
    a.add_argument("--max-restarts", type=int, default=100)
    a.add_argument("script", nargs=argparse.REMAINDER)
    s = modes.add_parser("store")
    s.add_argument("--host", default="0.0.0.0")
    s.add_argument("--port", type=int, default=0)
    s.add_argument("--run-id", required=True)
    args = parser.parse_args(argv)
    if args.mode == "agent":
        if args.script and args.script[0] == "--":
            args.script = args.script[1:]
        agent(args)
    else:
        store(args)


if __name__ == "__main__":
    main(sys.argv[1:])
