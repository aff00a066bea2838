"""The script's end of ScriptChannel: a loopback connection to its worker that first passes the
job-secret handshake (org.edl.job.rpc.SecretHandshake), then speaks framed binary Thrift."""

import hashlib
import hmac
import os
import socket

from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from edl_gen import ScriptChannel

MAGIC = b"EDL-HS1\n"
NONCE_BYTES = 32
MAC_BYTES = 32


def _read_exactly(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the worker closed the connection during the handshake (wrong job secret?)")
        data += chunk
    return data


def _mac(secret, label, first, second):
    return hmac.new(secret, label + first + second, hashlib.sha256).digest()


def handshake(sock, secret):
    """The connecting side: both prove they hold the secret; it never crosses the wire."""
    magic = _read_exactly(sock, len(MAGIC))
    if magic != MAGIC:
        raise ConnectionError("not an EDL endpoint (bad handshake magic)")
    server_nonce = _read_exactly(sock, NONCE_BYTES)
    client_nonce = os.urandom(NONCE_BYTES)
    sock.sendall(client_nonce + _mac(secret, b"edl-client", server_nonce, client_nonce))
    server_mac = _read_exactly(sock, MAC_BYTES)
    if not hmac.compare_digest(server_mac, _mac(secret, b"edl-server", client_nonce, server_nonce)):
        raise ConnectionError("the worker does not know the job secret")


def connect(host, port, secret):
    sock = socket.create_connection((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    handshake(sock, secret)
    tsocket = TSocket.TSocket()
    tsocket.setHandle(sock)
    transport = TTransport.TFramedTransport(tsocket)
    client = ScriptChannel.Client(TBinaryProtocol.TBinaryProtocol(transport))
    return client
