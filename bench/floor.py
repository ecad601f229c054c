#!/usr/bin/env python3
"""The cheapest client possible: the kernel's share of a query round trip.

N processes, each with one blocking connection to MariaDB (TCP or socket)
or PostgreSQL (--pg, TCP; a prepared statement run with Bind/Execute/Sync
as fairbench and pgbench -M prepared do), send point selects over and over:
one send() and one recv() per query, no parsing beyond finding the end of
the result, no statistics. Its
CPU per query (mostly system time: the loopback send, waking the server,
sleeping until the answer) is a floor that no load generator can go below
on this machine, whatever its language. bench.py runs it beside fairbench
and sysbench so the client-CPU targets can be judged against it.

Prints `queries: N (Q per sec.)` like sysbench, so the harness parses it
the same way.

    floor.py [--pg [--int8] [--binary]] --host 127.0.0.1 --port 3306 | --socket PATH
             --user U --password P --db D [--clients 4] [--time 10]
             [--tables 1] [--table-size 100000]
"""

import argparse
import base64
import hashlib
import hmac
import os
import random
import socket
import struct
import time

CAPS = 0x00000001 | 0x00000008 | 0x00000200 | 0x00008000 | 0x00080000  # long password, with db, protocol 41, secure connection, plugin auth


def read_framed(s, buf, frame):
    """The next message in `buf` (a bytearray refilled from `s`): `frame(buf)`
    gives (message, its length on the wire) once one is whole, else None."""
    while True:
        got = frame(buf)
        if got:
            del buf[: got[1]]
            return got[0]
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError("server closed the connection")
        buf += chunk


def my_frame(buf):
    if len(buf) >= 4:
        n = buf[0] | buf[1] << 8 | buf[2] << 16
        if len(buf) >= 4 + n:
            return bytes(buf[4 : 4 + n]), 4 + n
    return None


def read_packet(s, buf):
    """One packet's payload."""
    return read_framed(s, buf, my_frame)


def timed_loop(a, wfd, s, qs, answer):
    """Send the pre-encoded queries round-robin, `answer()` reading each
    reply, until --time is up; the count goes to the parent through `wfd`."""
    n = 0
    mask = len(qs) - 1
    end = time.monotonic() + a.time
    while True:
        s.sendall(qs[n & mask])
        answer()
        n += 1
        if n & 63 == 0 and time.monotonic() >= end:
            break
    os.write(wfd, struct.pack("<Q", n))


# Rows are picked as the benchmark picks them (uniform over every row of
# every table), not from a small hot set: a hot set stays in the server's
# buffer cache, so its server CPU per query would be a floor the benchmark's
# reads could never reach.
POOL = 1 << 16


def rows(a, seed):
    """POOL (table, id) pairs, uniform over --tables x --table-size."""
    r = random.Random(seed)
    return [(r.randint(1, a.tables), r.randint(1, a.table_size)) for _ in range(POOL)]


def packet(seq, payload):
    return struct.pack("<I", len(payload))[:3] + bytes([seq]) + payload


def scramble(password, salt):
    """mysql_native_password: SHA1(pw) XOR SHA1(salt + SHA1(SHA1(pw)))."""
    if not password:
        return b""
    h1 = hashlib.sha1(password.encode()).digest()
    h2 = hashlib.sha1(h1).digest()
    h3 = hashlib.sha1(salt + h2).digest()
    return bytes(a ^ b for a, b in zip(h1, h3))


def connect(a):
    if a.socket:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(a.socket)
    else:
        s = socket.create_connection((a.host, a.port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = bytearray()
    hs = read_packet(s, buf)
    i = hs.index(b"\0", 1) + 1 + 4
    salt = hs[i : i + 8]
    i += 8 + 1 + 2 + 1 + 2 + 2
    alen = hs[i]
    i += 1 + 10
    salt += hs[i : i + max(13, alen - 8) - 1]
    auth = scramble(a.password, salt)
    resp = struct.pack("<IIB", CAPS, 1 << 24, 33) + b"\0" * 23 + a.user.encode() + b"\0" + bytes([len(auth)]) + auth + a.db.encode() + b"\0" + b"mysql_native_password\0"
    s.sendall(packet(1, resp))
    r = read_packet(s, buf)
    if r[0] == 0xFE:  # auth switch: the plugin named, with a new salt
        j = r.index(b"\0", 1) + 1
        s.sendall(packet(3, scramble(a.password, r[j:].rstrip(b"\0"))))
        r = read_packet(s, buf)
    if r[0] != 0x00:
        raise SystemExit(f"floor: login failed: {r[3:]!r}")
    return s, buf


def query_loop(a, wfd):
    s, buf = connect(a)
    # Pre-encoded queries: the client does nothing per query but send and receive.
    qs = [packet(0, b"\x03" + f"SELECT c FROM sbtest{t} WHERE id={i}".encode()) for t, i in rows(a, os.getpid())]

    def answer():
        # Result set: column count, column definition, EOF, rows, EOF.
        eofs = 0
        while eofs < 2:
            p = read_packet(s, buf)
            if p[0] == 0xFF:
                raise SystemExit(f"floor: query failed: {p[3:]!r}")
            if p[0] == 0xFE and len(p) < 9:
                eofs += 1

    timed_loop(a, wfd, s, qs, answer)
    s.close()


# PostgreSQL: startup, SCRAM-SHA-256 (or cleartext/MD5), then one prepared
# statement executed over and over.


def pg_msg(kind, body):
    return kind + struct.pack("!I", len(body) + 4) + body


def pg_frame(buf):
    if len(buf) >= 5:
        n = struct.unpack("!I", buf[1:5])[0]
        if len(buf) >= 1 + n:
            return (bytes(buf[0:1]), bytes(buf[5 : 1 + n])), 1 + n
    return None


def pg_read(s, buf):
    """One backend message: (type byte, body)."""
    return read_framed(s, buf, pg_frame)


def pg_fail(body):
    fields = dict((f[:1], f[1:]) for f in body.split(b"\0") if f)
    raise SystemExit(f"floor: {fields.get(b'M', body).decode(errors='replace')}")


def pg_scram(s, buf, a):
    nonce = base64.b64encode(os.urandom(18)).decode()
    first_bare = f"n=,r={nonce}"
    init = ("n,," + first_bare).encode()
    s.sendall(pg_msg(b"p", b"SCRAM-SHA-256\0" + struct.pack("!i", len(init)) + init))
    t, body = pg_read(s, buf)
    if t == b"E":
        pg_fail(body)
    server_first = body[4:].decode()
    attrs = dict(x.split("=", 1) for x in server_first.split(","))
    salted = hashlib.pbkdf2_hmac("sha256", a.password.encode(), base64.b64decode(attrs["s"]), int(attrs["i"]))
    client_key = hmac.new(salted, b"Client Key", "sha256").digest()
    without_proof = f"c=biws,r={attrs['r']}"
    auth_msg = f"{first_bare},{server_first},{without_proof}".encode()
    sig = hmac.new(hashlib.sha256(client_key).digest(), auth_msg, "sha256").digest()
    proof = base64.b64encode(bytes(x ^ y for x, y in zip(client_key, sig))).decode()
    s.sendall(pg_msg(b"p", f"{without_proof},p={proof}".encode()))


def pg_connect(a):
    s = socket.create_connection((a.host, a.port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = bytearray()
    params = b"user\0" + a.user.encode() + b"\0database\0" + a.db.encode() + b"\0\0"
    s.sendall(struct.pack("!II", len(params) + 8, 196608) + params)
    while True:
        t, body = pg_read(s, buf)
        if t == b"E":
            pg_fail(body)
        if t == b"R":
            code = struct.unpack("!I", body[:4])[0]
            if code == 3:
                s.sendall(pg_msg(b"p", a.password.encode() + b"\0"))
            elif code == 5:
                inner = hashlib.md5(a.password.encode() + a.user.encode()).hexdigest().encode()
                s.sendall(pg_msg(b"p", b"md5" + hashlib.md5(inner + body[4:8]).hexdigest().encode() + b"\0"))
            elif code == 10:
                pg_scram(s, buf, a)
        if t == b"Z":
            return s, buf


def pg_query_loop(a, wfd):
    s, buf = pg_connect(a)

    def answer():
        """Every message up to ReadyForQuery; an error ends the run."""
        while True:
            t, body = pg_read(s, buf)
            if t == b"E":
                pg_fail(body)
            if t == b"Z":
                return

    # One prepared statement per table. By default the parameter is INT4 (the
    # column's type) sent as text and the result asked as text; --int8 and
    # --binary ask what fairbench's wire client asks instead, so the server's
    # cost of each choice can be measured on its own.
    oid = 20 if a.int8 else 23
    for t in range(1, a.tables + 1):
        s.sendall(pg_msg(b"P", f"p{t}\0SELECT c FROM sbtest{t} WHERE id=$1\0".encode() + struct.pack("!hI", 1, oid)) + pg_msg(b"S", b""))
        answer()
    qs = []
    for t, i in rows(a, os.getpid()):
        if a.binary:
            v = struct.pack("!q" if a.int8 else "!i", i)
            params = struct.pack("!hhhI", 1, 1, 1, len(v)) + v
            results = struct.pack("!hh", 1, 1)
        else:
            v = str(i).encode()
            params = struct.pack("!hhI", 0, 1, len(v)) + v
            results = struct.pack("!hh", 1, 0)
        bind = pg_msg(b"B", f"\0p{t}\0".encode() + params + results)
        qs.append(bind + pg_msg(b"E", b"\0" + struct.pack("!I", 0)) + pg_msg(b"S", b""))
    timed_loop(a, wfd, s, qs, answer)
    s.sendall(pg_msg(b"X", b""))
    s.close()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pg", action="store_true", help="PostgreSQL instead of MariaDB")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=3306)
    p.add_argument("--socket")
    p.add_argument("--user", required=True)
    p.add_argument("--password", default="")
    p.add_argument("--db", required=True)
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--time", type=float, default=10)
    p.add_argument("--tables", type=int, default=1)
    p.add_argument("--table-size", type=int, default=100000)
    p.add_argument("--int8", action="store_true", help="PostgreSQL: an INT8 parameter (fairbench's wire client types every integer so)")
    p.add_argument("--binary", action="store_true", help="PostgreSQL: binary parameter and result formats (as fairbench's wire client asks)")
    a = p.parse_args()
    r, w = os.pipe()
    t0 = time.monotonic()
    kids = []
    for _ in range(a.clients):
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                (pg_query_loop if a.pg else query_loop)(a, w)
            finally:
                os._exit(0)
        kids.append(pid)
    os.close(w)
    for pid in kids:
        os.waitpid(pid, 0)
    wall = time.monotonic() - t0
    data = os.read(r, 8 * a.clients)
    total = sum(struct.unpack(f"<{len(data) // 8}Q", data))
    print(f"    queries:                             {total} ({total / wall:.2f} per sec.)")


if __name__ == "__main__":
    main()
