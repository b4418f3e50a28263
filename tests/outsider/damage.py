#!/usr/bin/python3
"""damage.py - damage copies of .amber files and check amber_read.py.

Two kinds of damage, N trials each per FILE:
  flip   flip one random byte anywhere after the file header: the reader
         must exit 1 (never a traceback), report the damaged block or the
         damaged header, and still decode every block it does not touch.
  codec2 flip a byte inside a codec 2 payload (after its 64-byte header)
         and fix the block's payload and header checksums, so the damage
         reaches the §4.1 decoder itself: it must refuse the block with a
         reason (or, rarely, decode it to the same raw_checksum).

Usage: damage.py [-n N] [--seed S] FILE...
"""

import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from amber_read import xxh3  # noqa: E402

READER = os.path.join(HERE, "amber_read.py")


def run(path):
    r = subprocess.run(["/usr/bin/python3", READER, path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    return r.returncode, r.stdout.splitlines(), r.stderr


def blocks_of(data):
    """(offset, header_len, codec, stored_size) by walking the headers."""
    hl = struct.unpack_from("<I", data, 12)[0]
    pos, out = hl, []
    while pos + 80 <= len(data):
        bhl, btype, codec = struct.unpack_from("<HHB", data, pos + 4)
        stored = struct.unpack_from("<Q", data, pos + 32)[0]
        out.append((pos, bhl, btype, codec, stored))
        pos += bhl + stored
    return out


def main(argv):
    n = 20
    seed = 1
    files = []
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == "-n":
            n = int(args.pop(0))
        elif a == "--seed":
            seed = int(args.pop(0))
        else:
            files.append(a)
    rnd = random.Random(seed)
    failures = 0
    tmp = tempfile.mkdtemp(prefix="amber-damage-")
    for f in files:
        with open(f, "rb") as fp:
            orig = fp.read()
        rc0, lines0, _ = run(f)
        good = {l.split("\t")[6] for l in lines0 if l.endswith("\tok")}
        blocks = blocks_of(orig)
        stats = {"flip": {}, "codec2": {}}
        for trial in range(n):
            # -- flip --------------------------------------------------
            data = bytearray(orig)
            hl = struct.unpack_from("<I", data, 12)[0]
            off = rnd.randrange(hl, len(data))
            data[off] ^= 1 << rnd.randrange(8)
            p = os.path.join(tmp, "flip.amber")
            with open(p, "wb") as fp:
                fp.write(data)
            rc, lines, err = run(p)
            kept = {l.split("\t")[6] for l in lines if l.endswith("\tok")}
            lost = len(good - kept)
            key = "rc=%d lost=%d" % (rc, lost)
            stats["flip"][key] = stats["flip"].get(key, 0) + 1
            if "Traceback" in err or rc != 1 or lost > 1 or (
                    not [l for l in lines if "BAD" in l] and not err):
                failures += 1
                print("%s flip at %d: rc=%d lost=%d\n%s" % (f, off, rc, lost,
                                                           err[-500:]))
            # -- codec2 ------------------------------------------------
            c2 = [b for b in blocks if b[3] == 2 and b[4] > 70]
            if not c2:
                continue
            pos, bhl, btype, codec, stored = rnd.choice(c2)
            data = bytearray(orig)
            po = pos + bhl
            k = po + 64 + rnd.randrange(stored - 64)
            data[k] ^= 1 << rnd.randrange(8)
            struct.pack_into("<Q", data, pos + 64,
                             xxh3(bytes(data[po:po + stored])))
            struct.pack_into("<Q", data, pos + 72,
                             xxh3(bytes(data[pos:pos + 72])))
            p = os.path.join(tmp, "c2.amber")
            with open(p, "wb") as fp:
                fp.write(data)
            rc, lines, err = run(p)
            bad = [l for l in lines if "BAD" in l]
            reason = bad[0].split(": ", 1)[1][:40] if bad else "decoded"
            key = "rc=%d %s" % (rc, reason.split(" (")[0])
            stats["codec2"][key] = stats["codec2"].get(key, 0) + 1
            if "Traceback" in err or rc not in (0, 1) or len(bad) > 1:
                failures += 1
                print("%s codec2 flip at %d: rc=%d\n%s\n%s" % (
                    f, k, rc, "\n".join(bad), err[-500:]))
        print("%s:" % f)
        for kind in stats:
            for key, cnt in sorted(stats[kind].items()):
                print("   %-7s %3d x %s" % (kind, cnt, key))
    print("FAILURES: %d" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
