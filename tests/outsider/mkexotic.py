#!/usr/bin/python3
"""mkexotic.py - write a synthetic .amber file whose samples use sample
layouts amber-rec cannot record on a VM (READ groups, branch stacks with
hw_idx, REGS_INTR, AUX, STREAM_ID, TRANSACTION, CGROUP, ...), in either
byte order, written from FORMAT.md (§2, §3, §5.1, §5.2, §5.6, §6) and
include/uapi/linux/perf_event.h as the kernel documents it.

Its RING blocks are stored with zstd. Re-encode them with the reference
encoder (`recodec -c sample IN OUT`) and decode OUT with amber_read.py:
every codec 2 field rule (§4.1 steps 4-22) is then checked against the
reference encoder through raw_checksum.

Usage: mkexotic.py [--be] [--seed N] [--layout NAME] OUT
Layouts: all (default), read, branch, regs, weight_struct, minimal.
"""

import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from amber_read import xxh3, FILE_MAGIC, BLOCK_MAGIC  # noqa: E402
import zstandard  # noqa: E402

B = {n: 1 << i for i, n in enumerate((
    "IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
    "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
    "DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR",
    "AUX", "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT"))}

LAYOUTS = {
    "all": (sum(B[n] for n in B if n not in ("WEIGHT_STRUCT",)), 0x1F),
    "read": (B["IDENTIFIER"] | B["IP"] | B["TID"] | B["TIME"] | B["READ"]
             | B["PERIOD"], 0x0F),
    "readnogroup": (B["IDENTIFIER"] | B["TIME"] | B["READ"], 0x17),
    "branch": (B["IDENTIFIER"] | B["IP"] | B["TIME"] | B["BRANCH_STACK"]
               | B["CALLCHAIN"], 0),
    "regs": (B["IDENTIFIER"] | B["IP"] | B["TID"] | B["TIME"] | B["CPU"]
             | B["REGS_USER"] | B["STACK_USER"] | B["REGS_INTR"]
             | B["CALLCHAIN"], 0),
    "weight_struct": (B["IDENTIFIER"] | B["IP"] | B["TID"] | B["TIME"]
                      | B["ADDR"] | B["WEIGHT_STRUCT"] | B["DATA_SRC"]
                      | B["PHYS_ADDR"] | B["DATA_PAGE_SIZE"]
                      | B["CODE_PAGE_SIZE"], 0),
    "minimal": (B["IP"], 0),
    "notime": (B["IDENTIFIER"] | B["IP"] | B["TID"] | B["CALLCHAIN"]
               | B["REGS_USER"], 0),
}

REGS_USER = 0xff0fff        # x86-64 as amber-rec asks for them
REGS_INTR = 0x1f3
HW_IDX = True


class Writer:
    def __init__(self, be, rnd):
        self.e = ">" if be else "<"
        self.be = be
        self.rnd = rnd
        self.blocks = []      # (offset, header fields) for the index
        self.out = bytearray()
        self.seq = 0

    def file_header(self):
        h = bytearray(64)
        struct.pack_into("<8sHHIBBHI", h, 0, FILE_MAGIC, 1, 0, 64,
                         2 if self.be else 1, 8, 62, 0)
        h[24:40] = bytes(self.rnd.getrandbits(8) for _ in range(16))
        struct.pack_into("<QQ", h, 40, time.time_ns(), 0)
        struct.pack_into("<Q", h, 56, xxh3(bytes(h[:56])))
        self.out += h

    def block(self, btype, payload, records, stream=0xFFFFFFFF, codec=0,
              t0=0, t1=0):
        raw = payload
        if codec == 1:
            payload = zstandard.ZstdCompressor(level=3).compress(raw)
        h = bytearray(80)
        struct.pack_into("<4sHHBBHIQQQQQQQ", h, 0, BLOCK_MAGIC, 80, btype,
                         codec, 0, 0, stream, self.seq, len(raw),
                         len(payload), records, t0, t1, xxh3(payload))
        struct.pack_into("<Q", h, 72, xxh3(bytes(h[:72])))
        self.blocks.append((len(self.out), self.seq, btype, codec, 0, stream,
                            len(raw), len(payload), records, t0, t1))
        self.out += h + payload
        self.seq += 1

    def close(self):
        entries = b"".join(struct.pack("<QQHBBIQQQQQ", *b)
                           for b in self.blocks)
        n = len(self.blocks)
        index_offset = len(self.out)
        self.block(11, struct.pack("<II", 64, 0) + entries, n)
        self.block(12, struct.pack("<QQQ", index_offset, n, index_offset), 0)


def kv(pairs):
    return b"".join(struct.pack("<I", len(k)) + k + struct.pack("<I", len(v))
                    + v for k, v in pairs)


def attr(e, sample_type, read_format, branch_type):
    a = bytearray(128)
    struct.pack_into(e + "IIQQQQQ", a, 0, 1, 128, 0, 4000, sample_type,
                     read_format, (1 << 18))   # sample_id_all
    struct.pack_into(e + "QQIiQ", a, 72, branch_type, REGS_USER, 8192, 1,
                     REGS_INTR)
    return bytes(a)


def event_attr(e, sample_type, read_format, branch_type, ident):
    a = attr(e, sample_type, read_format, branch_type)
    name = b"synthetic"
    body = (struct.pack("<I", len(a)) + a + struct.pack("<I", len(name))
            + name + struct.pack("<III", 0xFFFFFFFF, 0, 1)
            + struct.pack("<Q", ident))
    return struct.pack("<I", len(body)) + body


class Samples:
    """Kernel-shaped samples (perf_event.h, PERF_RECORD_SAMPLE)."""

    def __init__(self, e, rnd, st, rf, ident):
        self.e, self.rnd, self.st, self.rf, self.id = e, rnd, st, rf, ident
        self.t = 10 ** 12
        self.chains = [self.make_chain() for _ in range(12)]
        self.regs = {}

    def q(self, v):
        return struct.pack(self.e + "Q", v & (2 ** 64 - 1))

    def make_chain(self):
        r = self.rnd
        ch = [2 ** 64 - 128]                       # PERF_CONTEXT_KERNEL
        ch += [0xffffffff81000000 + r.randrange(1 << 20)
               for _ in range(r.randrange(0, 4))]
        if r.random() < 0.8:
            ch.append(2 ** 64 - 512)               # PERF_CONTEXT_USER
            ch += [0x400000 + r.randrange(1 << 16)
                   for _ in range(r.randrange(1, 8))]
        if r.random() < 0.1:
            ch = []
        return ch

    def sample(self, i, tid, cpu):
        r, st, e, q = self.rnd, self.st, self.e, self.q
        f = []
        if st & B["IDENTIFIER"]:
            f.append(q(self.id))
        if st & B["IP"]:
            f.append(q(r.choice((0x401000, 0xffffffff81001234,
                                 0x7f0000001000)) + r.randrange(4096)))
        if st & B["TID"]:
            f.append(struct.pack(e + "II", tid - tid % 4, tid))
        if st & B["TIME"]:
            self.t += 250000 + r.randrange(-3000, 3000)
            if r.random() < 0.05:
                self.t += 10 ** 7
            f.append(q(self.t))
        if st & B["ADDR"]:
            f.append(q(0x7ffd0000 + r.randrange(1 << 20)))
        if st & B["ID"]:
            f.append(q(self.id))
        if st & B["STREAM_ID"]:
            f.append(q(self.id + 1))
        if st & B["CPU"]:
            f.append(struct.pack(e + "II", cpu, 0 if r.random() < .9 else 7))
        if st & B["PERIOD"]:
            f.append(q(250000 + r.randrange(100)))
        if st & B["READ"]:
            rf = self.rf
            times = (rf & 1) + ((rf >> 1) & 1)
            per = 1 + ((rf >> 2) & 1) + ((rf >> 4) & 1)
            if rf & 8:
                nr = r.randrange(1, 4) if r.random() < .9 else 12
                f.append(q(nr))
                n = times + nr * per
            else:
                n = times + per
            f.extend(q(i * 1000 + k + r.randrange(50)) for k in range(n))
        if st & B["CALLCHAIN"]:
            ch = r.choice(self.chains)
            if r.random() < 0.1:
                ch = self.make_chain()
                self.chains.append(ch)
            f.append(q(len(ch)))
            f.extend(q(a) for a in ch)
        if st & B["RAW"]:
            n = r.choice((4, 12, 60, 100))
            f.append(struct.pack(e + "I", n) + bytes(r.getrandbits(8)
                                                     for _ in range(n)))
        if st & B["BRANCH_STACK"]:
            nr = r.choice((0, 1, 4, 16))
            f.append(q(nr))
            if HW_IDX:
                f.append(q(r.randrange(32)))
            for _ in range(nr):
                a = 0x401000 + r.randrange(1 << 16)
                f.append(q(a) + q(a + r.randrange(-300, 300))
                         + q(r.randrange(1 << 20)))
        if st & B["REGS_USER"]:
            n = bin(REGS_USER).count("1")
            if r.random() < 0.1:
                f.append(q(0))
            else:
                f.append(q(2))
                old = self.regs.get(tid) or [r.getrandbits(64)
                                             for _ in range(n)]
                new = [v if r.random() < .5 else r.getrandbits(64)
                       for v in old]
                self.regs[tid] = new
                f.extend(q(v) for v in new)
        if st & B["STACK_USER"]:
            if r.random() < 0.15:
                f.append(q(0))
            else:
                size = 512
                dyn = r.choice((0, 64, 200, 512))
                stale = bytes(r.getrandbits(8) for _ in range(size - dyn)) \
                    if r.random() < 0.3 else bytes(size - dyn)
                f.append(q(size) + bytes(r.getrandbits(8) for _ in range(dyn))
                         + stale + q(dyn))
        if st & (B["WEIGHT"] | B["WEIGHT_STRUCT"]):
            f.append(q(r.randrange(1000)))
        if st & B["DATA_SRC"]:
            f.append(q(0x29080142 + r.randrange(3)))
        if st & B["TRANSACTION"]:
            f.append(q(r.randrange(4)))
        if st & B["REGS_INTR"]:
            if r.random() < 0.1:
                f.append(q(0))
            else:
                f.append(q(2))
                f.extend(q(r.getrandbits(48))
                         for _ in range(bin(REGS_INTR).count("1")))
        if st & B["PHYS_ADDR"]:
            f.append(q(0x100000000 + r.randrange(1 << 30)))
        if st & B["CGROUP"]:
            f.append(q(1234))
        if st & B["DATA_PAGE_SIZE"]:
            f.append(q(4096))
        if st & B["CODE_PAGE_SIZE"]:
            f.append(q(2 << 20))
        if st & B["AUX"]:
            n = r.choice((0, 8, 64))
            f.append(q(n) + bytes(r.getrandbits(8) for _ in range(n)))
        body = b"".join(f)
        misc = r.choice((1, 1, 1, 2, 2, 0x4002))   # KERNEL, USER, EXACT_IP
        rec = struct.pack(e + "IHH", 9, misc, 8 + len(body)) + body
        return rec, (self.t if st & B["TIME"] else 0)

    def comm(self, tid):
        """PERF_RECORD_COMM (3) without sample_id_all trailer fields we
        would have to match: stored verbatim by the codec."""
        name = b"thread-%d\0" % tid
        name += bytes(-len(name) % 8)
        body = struct.pack(self.e + "II", tid, tid) + name
        return struct.pack(self.e + "IHH", 3, 0, 8 + len(body)) + body


def main(argv):
    be = False
    seed = 1
    layout = "all"
    args = argv[1:]
    out = None
    while args:
        a = args.pop(0)
        if a == "--be":
            be = True
        elif a == "--seed":
            seed = int(args.pop(0))
        elif a == "--layout":
            layout = args.pop(0)
        else:
            out = a
    if out is None or layout not in LAYOUTS:
        sys.stderr.write(__doc__)
        return 2
    rnd = random.Random(seed)
    st, rf = LAYOUTS[layout]
    w = Writer(be, rnd)
    w.file_header()
    w.block(1, kv([(b"clock", b"monotonic"), (b"amber.version",
                                              b"outsider-mkexotic")]), 2)
    ident = 0x1234
    w.block(2, event_attr(w.e, st, rf, (1 << 17) if HW_IDX else 0, ident), 1)
    sm = Samples(w.e, rnd, st, rf, ident)
    for cpu in (0, 1):
        recs = []
        times = []
        for i in range(300):
            tid = rnd.choice((100, 101, 102, 205))
            if i % 97 == 5:
                recs.append(sm.comm(tid))
            rec, t = sm.sample(i, tid, cpu)
            recs.append(rec)
            if t:
                times.append(t)
        w.block(3, b"".join(recs), len(recs), stream=cpu, codec=1,
                t0=min(times) if times else 0, t1=max(times) if times else 0)
    w.close()
    with open(out, "wb") as f:
        f.write(w.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
