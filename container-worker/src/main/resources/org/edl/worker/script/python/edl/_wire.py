"""State sent from one member to others as tensors and a JSON outline of what holds them: nothing
a member receives over the network is unpickled. Plain values (numbers, strings, booleans, None)
and dicts, lists and tuples of them and of tensors pass; anything else is refused by name."""

import json

import torch
import torch.distributed as dist

_PLAIN = (bool, int, float, str, type(None))


def _outline(value, tensors, where):
    if isinstance(value, torch.Tensor):
        tensors.append(value)
        return {"t": len(tensors) - 1, "dtype": str(value.dtype).replace("torch.", ""),
                "shape": list(value.shape), "cpu": value.device.type == "cpu"}
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, dict):
        for k in value:
            if not isinstance(k, _PLAIN):
                raise TypeError("edl: %s has a key of type %s; only plain keys can be sent to other members"
                                % (where, type(k).__name__))
        return {"d": [[k, _outline(v, tensors, "%s[%r]" % (where, k))] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        items = [_outline(v, tensors, "%s[%d]" % (where, i)) for i, v in enumerate(value)]
        return {"u": items} if isinstance(value, tuple) else {"l": items}
    raise TypeError("edl: %s is a %s, which cannot be sent to other members (tensors, numbers, strings, "
                    "booleans, None, and dicts, lists and tuples of them can)" % (where, type(value).__name__))


def check(value, where):
    """Raises TypeError naming ``where`` if ``value`` could not be sent."""
    _outline(value, [], where)


def _rebuild(outline, tensors):
    if not isinstance(outline, dict):
        return outline
    if "t" in outline:
        t = tensors[outline["t"]]
        return t.cpu() if outline["cpu"] else t
    if "d" in outline:
        return {k: _rebuild(v, tensors) for k, v in outline["d"]}
    if "u" in outline:
        return tuple(_rebuild(v, tensors) for v in outline["u"])
    return [_rebuild(v, tensors) for v in outline["l"]]


def _specs(outline, found):
    if isinstance(outline, dict):
        if "t" in outline:
            found.append(outline)
        else:
            for v in outline.get("d", []):
                _specs(v[1], found)
            for v in outline.get("u", outline.get("l", [])):
                _specs(v, found)
    return found


def send(value, source, device, where):
    """From ``source`` (this member): the outline, then every tensor, on the group's ``device``."""
    tensors = []
    text = json.dumps(_outline(value, tensors, where)).encode("utf-8")
    dist.broadcast(torch.tensor([len(text)], dtype=torch.int64, device=device), source)
    dist.broadcast(torch.tensor(list(text), dtype=torch.uint8, device=device), source)
    for t in tensors:
        dist.broadcast(t.detach().to(device).contiguous(), source)


def receive(source, device):
    """What ``send`` sent from ``source``."""
    size = torch.zeros(1, dtype=torch.int64, device=device)
    dist.broadcast(size, source)
    text = torch.zeros(int(size.item()), dtype=torch.uint8, device=device)
    dist.broadcast(text, source)
    outline = json.loads(bytes(text.cpu().tolist()).decode("utf-8"))
    tensors = []
    for spec in sorted(_specs(outline, []), key=lambda s: s["t"]):
        t = torch.empty(spec["shape"], dtype=getattr(torch, spec["dtype"]), device=device)
        dist.broadcast(t, source)
        tensors.append(t)
    return _rebuild(outline, tensors)
