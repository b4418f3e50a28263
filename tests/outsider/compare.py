#!/usr/bin/python3
"""compare.py - check amber_read.py against the reference tools.

For each FILE: re-encode its RING blocks with `recodec -c zstd` and
`recodec -c sample`, decode all three files with amber_read.py, and
require that
  - amber_read.py exits 0 on each (every checksum, including codec 2's
    raw_checksum, verified),
  - the decoded payload of every block is byte-identical across the
    three files (codec 2 against plain zstd, same records),
  - `amber-analyze verify` agrees that the file is sound.

Usage: compare.py [--build DIR] [--work DIR] FILE...
(defaults: the repository's build/ and $TMPDIR/outsider-compare)
"""

import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
READER = os.path.join(HERE, "amber_read.py")


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def read_blocks(path, out):
    t = time.time()
    r = run(["/usr/bin/python3", READER, "--out", out, path])
    dt = time.time() - t
    lines = [l.split("\t") for l in r.stdout.splitlines()]
    return r.returncode, lines, r.stderr, dt


def main(argv):
    build = os.path.join(HERE, "..", "..", "build")
    work = os.path.join(tempfile.gettempdir(), "outsider-compare")
    files = []
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == "--build":
            build = args.pop(0)
        elif a == "--work":
            work = args.pop(0)
        else:
            files.append(a)
    os.makedirs(work, exist_ok=True)
    failures = 0
    for f in files:
        base = os.path.join(work, os.path.basename(f))
        variants = {"orig": f}
        for codec in ("zstd", "sample"):
            dst = "%s.%s.amber" % (base, codec)
            if os.path.exists(dst):
                os.unlink(dst)
            r = run([os.path.join(build, "tools/recodec"), "-c", codec, f,
                     dst])
            if r.returncode != 0:
                print("%s: recodec -c %s failed: %s" % (f, codec,
                                                        r.stderr.strip()))
                failures += 1
                continue
            variants[codec] = dst
        results = {}
        for name, path in variants.items():
            out = "%s.%s.out" % (base, name)
            if os.path.isdir(out):
                for x in os.listdir(out):
                    os.unlink(os.path.join(out, x))
            rc, lines, err, dt = read_blocks(path, out)
            ver = run([os.path.join(build, "amber-analyze"), "verify", path])
            results[name] = (rc, lines, out, dt)
            codecs = {}
            for l in lines:
                if l[1] == "RING":
                    codecs[l[3]] = codecs.get(l[3], 0) + 1
            recs = sum(int(l[4]) for l in lines if l[1] == "RING")
            print("%-48s %-6s rc=%d blocks=%d ring=%s samples/records=%d "
                  "%.2fs verify=%d" % (os.path.basename(path), name, rc,
                                       len(lines), codecs, recs, dt,
                                       ver.returncode))
            if rc != 0:
                failures += 1
                print(err.strip())
                for l in lines:
                    if l[-1] != "ok":
                        print("   ", "\t".join(l))
            if (rc == 0) != (ver.returncode == 0):
                failures += 1
                print("  reference verify disagrees:",
                      (ver.stdout + ver.stderr).strip()[-400:])
        ref = results["orig"]
        for name in ("zstd", "sample"):
            if name not in results:
                continue
            other = results[name]
            if len(other[1]) != len(ref[1]):
                print("  %s: %d blocks vs %d" % (name, len(other[1]),
                                                 len(ref[1])))
                failures += 1
                continue
            diff = 0
            for i, (a, b) in enumerate(zip(ref[1], other[1])):
                if a[1] in ("INDEX", "TRAILER"):
                    continue   # block offsets differ after re-encoding
                pa = os.path.join(ref[2], "%d.bin" % i)
                pb = os.path.join(other[2], "%d.bin" % i)
                if not (os.path.exists(pa) and os.path.exists(pb)):
                    diff += 1
                    continue
                with open(pa, "rb") as x, open(pb, "rb") as y:
                    if x.read() != y.read():
                        diff += 1
                        print("  block %d (%s) differs between orig and %s"
                              % (i, a[1], name))
            if diff:
                failures += 1
            else:
                print("  orig == %s: all %d decoded payloads identical "
                      "(INDEX, TRAILER excepted)" % (name, len(ref[1])))
    print("FAILURES: %d" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
