#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""hixl's Python example flow (hicann/hixl examples/python/hixl/
hixl_d2rd_multiproc_sample.py), as two processes on memreg: a server
engine registers a device buffer and hands its address to the client
over a TCP socket beside the engine's port; the client registers its own
device buffer, connects, reads the server's buffer in 16 KiB blocks with
transfer_sync, checks every byte, writes half of it back shifted, and
disconnects; the server checks what was written.  The device buffers are
aclrtMalloc's (npu_mem.py), where the example has torch_npu tensors.

  hixl_pair.py --role server|client [--local-engine IP:PORT]
               [--remote-engine IP:PORT] [--device N] [--size BYTES]

Prints "pass ..." lines and exits 0, or says what failed and exits 1."""

import argparse
import json
import socket
import struct
import sys
import time

import hixl
from npu_mem import Acl, pattern

BLOCK = 16 * 1024
SOCKET_OFFSET = 1000
CONNECT_MS = 5000
TRANSFER_MS = 30000


def say(*args):
    print(*args, flush=True)


def fail(what):
    say(f"FAIL {what}")
    sys.exit(1)


def split(name):
    host, _, port = name.rpartition(":")
    return host, int(port)


def options():
    # As the example: auto connect, and a protocol hixl's hardware would
    # take (accepted and not used: memreg has one transport per peer).
    return {
        hixl.OPTION_AUTO_CONNECT: "1",
        hixl.OPTION_GLOBAL_RESOURCE_CONFIG: json.dumps(
            {"comm_resource_config.protocol_desc": ["roce:device"]}),
    }


def check(ret, what):
    if ret != hixl.SUCCESS:
        fail(f"{what}: status {ret}")


def server(args, acl):
    engine = hixl.Hixl()
    check(engine.initialize(args.local_engine, options()), "server initialize")
    dev = acl.malloc(args.size)
    acl.write(dev, pattern(7, args.size))
    ret, handle = engine.register_mem(hixl.MemDesc(dev, args.size),
                                      hixl.MemType.MEM_DEVICE)
    check(ret, "server register_mem")
    host, port = split(args.local_engine)
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((host, port + SOCKET_OFFSET))
    srv.listen(1)
    say(f"ready server {args.local_engine} buffer 0x{dev:x}")
    srv.settimeout(120)
    conn, _ = srv.accept()
    conn.sendall(struct.pack("!Q", dev))
    # The client closes its socket once it has written and disconnected.
    conn.settimeout(120)
    while conn.recv(64):
        pass
    conn.close()
    srv.close()
    half = args.size // 2
    want = pattern(7, args.size)
    if acl.read(dev, half) != want[half:]:
        fail("server: the client's write did not land")
    if acl.read(dev + half, half) != want[half:]:
        fail("server: the second half changed")
    say("pass server: the client's write-back checked")
    check(engine.deregister_mem(handle), "server deregister_mem")
    engine.finalize()
    acl.free(dev)
    say("pass server finalized")


def client(args, acl):
    engine = hixl.Hixl()
    check(engine.initialize(args.local_engine, options()), "client initialize")
    dev = acl.malloc(args.size)
    acl.write(dev, bytes(args.size))
    ret, handle = engine.register_mem(hixl.MemDesc(dev, args.size),
                                      hixl.MEM_DEVICE)
    check(ret, "client register_mem")
    host, port = split(args.remote_engine)
    for _ in range(100):
        try:
            sock = socket.create_connection((host, port + SOCKET_OFFSET), 2)
            break
        except OSError:
            time.sleep(0.2)
    else:
        fail("client: the server's socket never answered")
    data = b""
    while len(data) < 8:
        chunk = sock.recv(8 - len(data))
        if not chunk:
            fail("client: the server closed before the address")
        data += chunk
    remote = struct.unpack("!Q", data)[0]
    check(engine.connect(args.remote_engine, timeout_in_millis=CONNECT_MS),
          "client connect")
    n = args.size // BLOCK
    descs = [hixl.TransferOpDesc(local_addr=dev + i * BLOCK,
                                 remote_addr=remote + i * BLOCK, len=BLOCK)
             for i in range(n)]
    t0 = time.monotonic()
    check(engine.transfer_sync(args.remote_engine, hixl.TransferOp.READ, descs,
                               timeout_in_millis=TRANSFER_MS),
          "client transfer_sync READ")
    secs = time.monotonic() - t0
    if acl.read(dev, args.size) != pattern(7, args.size):
        fail("client: the bytes read differ")
    say(f"pass client READ {args.size} bytes in {n} blocks checked "
        f"({secs:.3f} s)")
    # The second half over the first half, in one descriptor.
    half = args.size // 2
    check(engine.transfer_sync(args.remote_engine, hixl.WRITE,
                               [hixl.TransferOpDesc(dev + half, remote, half)],
                               timeout_in_millis=TRANSFER_MS),
          "client transfer_sync WRITE")
    say(f"pass client WRITE {half} bytes")
    check(engine.disconnect(args.remote_engine, timeout_in_millis=CONNECT_MS),
          "client disconnect")
    sock.close()
    check(engine.deregister_mem(handle), "client deregister_mem")
    engine.finalize()
    acl.free(dev)
    say("pass client finalized")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--role", required=True, choices=["server", "client"])
    p.add_argument("--device", type=int)
    p.add_argument("--local-engine")
    p.add_argument("--remote-engine", default="127.0.0.1:16001")
    p.add_argument("--size", type=int, default=8 << 20)
    args = p.parse_args()
    is_client = args.role == "client"
    if args.device is None:
        args.device = 0 if is_client else 1
    if args.local_engine is None:
        args.local_engine = "127.0.0.1:16000" if is_client else "127.0.0.1:16001"
    acl = Acl()
    acl.set_device(args.device)
    (client if is_client else server)(args, acl)


if __name__ == "__main__":
    main()
