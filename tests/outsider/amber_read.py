#!/usr/bin/python3
"""amber_read.py - an independent reader of .amber recordings.

Written from docs/FORMAT.md alone (version 1.0, including codec 2, §4.1),
without reading amber's C sources. Every function cites the section it
implements. See README.md next to this file for the questions the
document left open and how this reader answers them.

Usage: amber_read.py [--out DIR] [--index] [--stats] FILE

  --out DIR  write each block's decoded payload to DIR/<index>.bin
  --index    say on stderr whether the INDEX agrees with the scan
  --stats    describe each codec 2 block (layout, samples, chains) on stderr

Prints one line per block, in file order, tab-separated:
  index  type  stream  codec  record_count  decoded_size  xxh3  status
where status is `ok` or `BAD <reason>`. Exit status: 0 when every block
decoded and checked, 1 otherwise, 2 on usage or I/O errors (or a file
header that makes the file unreadable, §7 step 1).

Block list: this reader always SCANS the file (§7 step 3/4). The
INDEX/TRAILER pair (§6) is only cross-checked against the scan, and a
disagreement is reported on stderr (with --index, also when it agrees).
"""

import os
import struct
import sys

import xxhash
import zstandard

# ---------------------------------------------------------------------------
# §1 conventions

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
MiB = 1 << 20
KiB = 1 << 10


class FormatError(Exception):
    """A violation of FORMAT.md; the message names the rule broken."""


def xxh3(data):
    """§1 Checksums: XXH3-64, seed 0."""
    return xxhash.xxh3_64_intdigest(data)


def u16le(b, o):
    return struct.unpack_from("<H", b, o)[0]


def u32le(b, o):
    return struct.unpack_from("<I", b, o)[0]


def u64le(b, o):
    return struct.unpack_from("<Q", b, o)[0]


# ---------------------------------------------------------------------------
# §2 File header

FILE_MAGIC = b"\x89AMBER\r\n"
FILE_HEADER_MIN = 64
FILE_HEADER_MAX = 4096


def read_file_header(data):
    """§2 File header, checked as §7 step 1 says (all problems fatal).

    Returns a dict of its fields. Fields beyond offset 56 that a later
    minor adds are skipped using header_len (§2, last paragraph)."""
    if len(data) < 16:
        raise FormatError("file shorter than its header (AMB_E_TRUNCATED)")
    if data[:8] != FILE_MAGIC:
        raise FormatError("bad file magic (AMB_E_MAGIC)")
    major, minor, header_len = struct.unpack_from("<HHI", data, 8)
    if major != 1:
        raise FormatError("format major version %d, this reader knows 1 "
                          "(AMB_E_VERSION)" % major)
    if not FILE_HEADER_MIN <= header_len <= FILE_HEADER_MAX:
        raise FormatError("file header_len %d out of range [64, 4096]"
                          % header_len)
    if len(data) < header_len:
        raise FormatError("file shorter than its header (AMB_E_TRUNCATED)")
    stored = u64le(data, header_len - 8)
    computed = xxh3(data[:header_len - 8])
    if stored != computed:
        raise FormatError("file header checksum mismatch (stored 0x%016x, "
                          "computed 0x%016x) (AMB_E_HDR_CHECKSUM)"
                          % (stored, computed))
    endian, word, machine, flags = struct.unpack_from("<BBHI", data, 16)
    if endian not in (1, 2):
        raise FormatError("producer_endian %d is neither 1 nor 2" % endian)
    # §2 says "4 or 8" without saying another value is an error (it does
    # for producer_endian); amber-analyze verify refuses it, so do we.
    if word not in (4, 8):
        raise FormatError("producer_word_size %d is neither 4 nor 8" % word)
    return {
        "major": major, "minor": minor, "header_len": header_len,
        "producer_endian": endian, "producer_word_size": word,
        "producer_machine": machine, "flags": flags,
        "uuid": bytes(data[24:40]), "created_ns": u64le(data, 40),
    }


# ---------------------------------------------------------------------------
# §3 Block header, §5 block types

BLOCK_MAGIC = b"AMBK"
BLOCK_HEADER_MIN = 80
BLOCK_HEADER_MAX = 4096
RAW_SIZE_CAP = 256 * MiB
STORED_SIZE_CAP = 257 * MiB
NO_STREAM = 0xFFFFFFFF

BLOCK_TYPES = {
    1: "META", 2: "EVENT_ATTR", 3: "RING", 4: "SYNTH", 5: "BUILDID",
    6: "TRACEFS", 7: "KSYMS", 8: "TOPOLOGY", 9: "COUNTS", 10: "FILE",
    11: "INDEX", 12: "TRAILER",
}
SMALL_TYPES = {1, 2, 5, 6, 7, 8, 9}      # §7 Budgets
CODEC_NAMES = {0: "none", 1: "zstd", 2: "sample"}


class BlockHeader:
    """§3: the fields of one 80-byte (or longer) block header."""

    FIELDS = ("header_len", "type", "codec", "flags", "reserved", "stream",
              "seq", "raw_size", "stored_size", "record_count",
              "first_time", "last_time", "payload_checksum")

    def __init__(self, offset, values):
        self.offset = offset
        for name, value in zip(self.FIELDS, values):
            setattr(self, name, value)

    @property
    def payload_offset(self):
        return self.offset + self.header_len

    @property
    def end(self):
        return self.offset + self.header_len + self.stored_size

    def identity(self):
        """What §7 "Repeated blocks" compares to call a block a copy."""
        return (self.seq, self.type, self.stream, self.codec, self.raw_size,
                self.stored_size, self.record_count, self.first_time,
                self.last_time)


class TornHeader(Exception):
    """§7 step 3: a partial block header at the end of the file."""


def parse_block_header(data, off):
    """§3 Block header, validated as §7 step 4 lists (magic, checksum,
    reserved field, size caps). Raises FormatError when the header is
    damaged, TornHeader when it is a partial header at the end of the
    file (§7 step 3)."""
    left = len(data) - off
    if left < 6 or left < BLOCK_HEADER_MIN:
        # partial header: what is there must agree with the magic.
        have = data[off:off + min(left, 4)]
        if BLOCK_MAGIC.startswith(bytes(have)):
            if left >= 6:
                hl = u16le(data, off + 4)
                if left < hl or left < BLOCK_HEADER_MIN:
                    raise TornHeader("partial block header (%d bytes)" % left)
            else:
                raise TornHeader("partial block header (%d bytes)" % left)
        raise FormatError("bad block magic")
    if data[off:off + 4] != BLOCK_MAGIC:
        raise FormatError("bad block magic")
    hl = u16le(data, off + 4)
    if hl < BLOCK_HEADER_MIN or hl > BLOCK_HEADER_MAX or hl % 8:
        raise FormatError("block header_len %d out of range" % hl)
    if left < hl:
        raise TornHeader("partial block header (%d of %d bytes)" % (left, hl))
    stored = u64le(data, off + hl - 8)
    computed = xxh3(data[off:off + hl - 8])
    if stored != computed:
        raise FormatError("block header checksum mismatch (stored 0x%016x, "
                          "computed 0x%016x)" % (stored, computed))
    values = struct.unpack_from("<HHBBHIQQQQQQQ", data, off + 4)
    h = BlockHeader(off, values)
    if h.reserved != 0:
        raise FormatError("block header reserved field is 0x%x, not 0"
                          % h.reserved)
    if h.raw_size > RAW_SIZE_CAP:
        raise FormatError("raw_size %d over the 256 MiB cap" % h.raw_size)
    if h.stored_size > STORED_SIZE_CAP:
        raise FormatError("stored_size %d over the 257 MiB cap"
                          % h.stored_size)
    return h


def check_stored_payload(h, stored):
    """§3: payload_checksum covers the bytes as stored."""
    computed = xxh3(stored)
    if computed != h.payload_checksum:
        raise FormatError("payload checksum mismatch (stored 0x%016x, "
                          "computed 0x%016x)" % (h.payload_checksum, computed))


# ---------------------------------------------------------------------------
# §4 Codecs

def zstd_frame_content_size(frame):
    """RFC 8878 §3.1.1.1: Frame_Content_Size from the frame header, or None
    when the frame does not name one. Needed by §4 codec 1 ("refuses a
    frame whose header names another size than raw_size before it
    allocates anything")."""
    if len(frame) < 5 or frame[:4] != b"\x28\xb5\x2f\xfd":
        raise FormatError("not a zstd frame (bad magic)")
    fhd = frame[4]
    fcs_flag = fhd >> 6
    single_segment = (fhd >> 5) & 1
    if (fhd >> 3) & 1:
        raise FormatError("zstd frame header reserved bit set")
    did_size = (0, 1, 2, 4)[fhd & 3]
    pos = 5 + (0 if single_segment else 1) + did_size
    fcs_size = (1 if single_segment else 0, 2, 4, 8)[fcs_flag]
    if fcs_size == 0:
        return None
    if len(frame) < pos + fcs_size:
        raise FormatError("truncated zstd frame header")
    value = int.from_bytes(frame[pos:pos + fcs_size], "little")
    if fcs_size == 2:
        value += 256
    return value


def zstd_decode(frame, size, what="payload"):
    """§4 codec 1 (and §4.1 zstd streams): exactly one complete zstd frame
    decoding to exactly `size` bytes; nothing may follow the frame."""
    named = zstd_frame_content_size(frame)
    if named is not None and named != size:
        raise FormatError("zstd frame of the %s names %d bytes, expected %d"
                          % (what, named, size))
    dctx = zstandard.ZstdDecompressor()
    try:
        if named is None:
            # no size in the frame: first a bounded decode, which refuses
            # a frame decoding to more than `size` (no bomb) ...
            dctx.decompress(frame, max_output_size=size)
        # ... then one that also sees what follows the frame.
        dobj = dctx.decompressobj()
        out = dobj.decompress(frame)
    except zstandard.ZstdError as e:
        raise FormatError("undecodable zstd frame in the %s: %s" % (what, e))
    if not dobj.eof:
        raise FormatError("incomplete zstd frame in the %s" % what)
    if dobj.unused_data:
        raise FormatError("%d bytes after the zstd frame of the %s"
                          % (len(dobj.unused_data), what))
    if len(out) != size:
        raise FormatError("zstd frame of the %s decodes to %d bytes, "
                          "expected %d" % (what, len(out), size))
    return out


def decode_payload(h, stored, producer_endian):
    """§4: turn the stored payload into the raw_size decoded bytes."""
    if h.type in SMALL_TYPES and h.raw_size > 64 * KiB + 256 * h.stored_size:
        raise FormatError("raw_size %d of a small block over 64 KiB + 256 x "
                          "stored_size (decompression bomb, §7 Budgets)"
                          % h.raw_size)
    if h.codec == 0:
        if h.stored_size != h.raw_size:
            raise FormatError("codec none with stored_size %d != raw_size %d"
                              % (h.stored_size, h.raw_size))
        return bytes(stored)
    if h.codec == 1:
        return zstd_decode(bytes(stored), h.raw_size)
    if h.codec == 2:
        if h.type != 3:
            raise FormatError("codec 2 on a %s block (RING only, §4)"
                              % BLOCK_TYPES.get(h.type, h.type))
        return SampleCodec(bytes(stored), h, producer_endian).decode()
    raise FormatError("unknown codec %d (AMB_E_CODEC)" % h.codec)


# ---------------------------------------------------------------------------
# §4.1 Codec 2: payload header, stream directory, columns

NSTREAMS = 32
STATS = None      # a file to describe codec 2 blocks to (--stats)
SAMPLE_TYPE_BITS = (1 << 25) - 1   # bits 0-24
READ_FORMAT_BITS = 0x1F            # bits 0-4

(COL_HEAD, COL_VERBATIM, COL_ID, COL_TID, COL_TIME, COL_CPU, COL_PERIOD,
 COL_IP, COL_CHAIN_REF, COL_CHAIN_NODES, COL_ADDR, COL_FIELDS, COL_REGS,
 COL_STACK_META, COL_STACK_DATA, COL_BYTES) = range(16)
COLUMN_NAMES = ("head", "verbatim", "id", "tid", "time", "cpu", "period",
                "ip", "chain_ref", "chain_nodes", "addr", "fields", "regs",
                "stack_meta", "stack_data", "bytes")
BYTE_COLUMNS = {COL_VERBATIM, COL_STACK_DATA, COL_BYTES}

# perf_event.h sample_type bits, as listed in §4.1 "Samples"
S_IP, S_TID, S_TIME, S_ADDR, S_READ, S_CALLCHAIN, S_ID, S_CPU, S_PERIOD, \
    S_STREAM_ID, S_RAW, S_BRANCH_STACK, S_REGS_USER, S_STACK_USER, \
    S_WEIGHT, S_DATA_SRC, S_IDENTIFIER, S_TRANSACTION, S_REGS_INTR, \
    S_PHYS_ADDR, S_AUX, S_CGROUP, S_DATA_PAGE_SIZE, S_CODE_PAGE_SIZE, \
    S_WEIGHT_STRUCT = [1 << i for i in range(25)]


def read_varint(buf, pos, what):
    """§4.1: LEB128, least significant group first, at most 10 bytes for
    64 bits. Returns (value, new position)."""
    value = 0
    shift = 0
    for i in range(10):
        if pos >= len(buf):
            raise FormatError("%s ends inside a varint" % what)
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            if value > MASK64:
                raise FormatError("%s: varint over 64 bits" % what)
            return value, pos
        shift += 7
    raise FormatError("%s: varint longer than 10 bytes" % what)


def zz(d):
    """§4.1 Notation: zigzag of a 64-bit difference."""
    d &= MASK64
    return ((d << 1) ^ (MASK64 if d >> 63 else 0)) & MASK64


def unzz(v):
    """§4.1 Notation: unzz(v) = (v >> 1) XOR -(v & 1), modulo 2^64."""
    return ((v >> 1) ^ (-(v & 1))) & MASK64


def unzz32(v):
    """§4.1 Notation, `zz32`'s inverse on 32 bits (the document names
    unzz32 without defining it; read as unzz modulo 2^32, the value being
    below 2^32)."""
    if v > MASK32:
        raise FormatError("32-bit difference value 0x%x out of range" % v)
    return ((v >> 1) ^ (-(v & 1))) & MASK32


def signed64(v):
    return v - (1 << 64) if v >> 63 else v


class ByteColumn:
    """§4.1: a byte column reads bytes of its stream 2k in order."""

    def __init__(self, name, stream):
        self.name = name
        self.buf = stream
        self.pos = 0

    def take(self, n):
        end = self.pos + n
        if end > len(self.buf):
            raise FormatError("column %s ends before %d bytes are read"
                              % (self.name, n))
        out = self.buf[self.pos:end]
        self.pos = end
        return out

    def used_up(self):
        return self.pos == len(self.buf)


class NumberColumn:
    """§4.1: value v = low byte from stream 2k, v >> 8 as a varint of
    stream 2k+1."""

    def __init__(self, name, low, rest):
        self.name = name
        self.low = low
        self.rest = rest
        self.lpos = 0
        self.rpos = 0

    def next(self):
        if self.lpos >= len(self.low):
            raise FormatError("column %s ends before a value is read"
                              % self.name)
        lo = self.low[self.lpos]
        self.lpos += 1
        hi, self.rpos = read_varint(self.rest, self.rpos,
                                    "column " + self.name)
        v = (hi << 8) | lo
        if v > MASK64:
            raise FormatError("column %s: value over 64 bits" % self.name)
        return v

    def next_below(self, limit, what):
        v = self.next()
        if v >= limit:
            raise FormatError("%s %d out of range (column %s)"
                              % (what, v, self.name))
        return v

    def used_up(self):
        return self.lpos == len(self.low) and self.rpos == len(self.rest)


def popcount(x):
    return bin(x).count("1")


def median3(a, b, c):
    """§4.1 Samples step 7: the median of three, compared as signed."""
    sa, sb, sc = signed64(a), signed64(b), signed64(c)
    return sorted((sa, sb, sc))[1] & MASK64


class ChainTree:
    """§4.1 "Call chains": the prefix tree, the address list, the chain
    list and the recent list of one block, all empty at its start."""

    RECENT = 256

    def __init__(self, refs, nodes):
        self.refs = refs        # column chain_ref
        self.col = nodes        # column chain_nodes
        # node 0 is the root: empty chain, entry 0, depth 0
        self.parent = [0]
        self.entry = [0]
        self.depth = [0]
        self.last_child = [-1]
        self.misc = [None]      # misc of the last sample of the chain
        # address list: entry 0 has address 0 (the root's)
        self.addr = [0]
        self.next = [-1]
        self.chains = []        # chain list: node numbers
        self.recent = []        # recent list: chain-list indexes

    def predicted_entry(self, p):
        """pred: entry of p's last child, else `next` of p's entry, else
        p's own entry."""
        if self.last_child[p] >= 0:
            return self.entry[self.last_child[p]]
        e = self.entry[p]
        if self.next[e] >= 0:
            return self.next[e]
        return e

    def new_entry(self, address):
        self.addr.append(address & MASK64)
        self.next.append(-1)
        return len(self.addr) - 1

    def make_node(self, p):
        """Make one node below p from the next value(s) of chain_nodes."""
        pred = self.predicted_entry(p)
        v = self.col.next()
        kind = v & 3
        if kind == 0:
            if v == 0:
                x = pred
            else:
                x = self.new_entry(self.addr[pred] + unzz(v >> 2))
        elif kind == 1:
            if v == 1:
                w = self.col.next()
                x = self.new_entry(self.addr[pred] + unzz(w))
            else:
                m = v >> 2
                if not 1 <= m <= 4095:
                    raise FormatError("chain marker %d out of range" % m)
                x = self.new_entry(-m)
        elif kind == 2:
            x = v >> 2
            if x >= len(self.addr):
                raise FormatError("chain node names address entry %d of %d"
                                  % (x, len(self.addr)))
        else:
            raise FormatError("chain node code with v & 3 = 3")
        n = len(self.parent)
        self.parent.append(p)
        self.entry.append(x)
        self.depth.append(self.depth[p] + 1)
        self.last_child.append(-1)
        self.misc.append(None)
        self.last_child[p] = n
        self.next[self.entry[p]] = x
        return n

    def to_front(self, idx, present):
        if present:
            self.recent.remove(idx)
        self.recent.insert(0, idx)
        if len(self.recent) > self.RECENT:
            del self.recent[self.RECENT:]

    def next_chain(self):
        """A sample's chain, from the next value r of chain_ref: returns
        the tree node c."""
        r = self.refs.next()
        if 1 <= r <= self.RECENT:
            if len(self.recent) < r:
                raise FormatError("chain_ref %d but the recent list holds %d"
                                  % (r, len(self.recent)))
            idx = self.recent[r - 1]
            self.to_front(idx, True)
        elif r > self.RECENT:
            idx = r - self.RECENT - 1
            if idx >= len(self.chains):
                raise FormatError("chain_ref names chain %d of %d"
                                  % (idx, len(self.chains)))
            if idx in self.recent:
                raise FormatError("chain_ref names chain %d by index but it "
                                  "is in the recent list" % idx)
            self.to_front(idx, False)
        else:
            b = self.col.next()
            if b >= len(self.parent):
                raise FormatError("new chain below node %d of %d"
                                  % (b, len(self.parent)))
            k = self.col.next()
            # each node costs at least one byte of chain_nodes
            if k > len(self.col.low) - self.col.lpos:
                raise FormatError("new chain of %d nodes, more than "
                                  "chain_nodes holds" % k)
            node = b
            for _ in range(k):
                node = self.make_node(node)
            self.chains.append(node)
            idx = len(self.chains) - 1
            self.to_front(idx, False)
        return self.chains[idx]

    def address(self, node):
        return self.addr[self.entry[node]]

    def entries(self, c):
        """The chain of node c, e[0..n-1] (§4.1 "Call chains": e[0] is the
        depth-1 node's address, e[1..n-1] those of c, its parent, ...,
        the depth-2 node)."""
        path = []
        node = c
        while node != 0:
            path.append(self.addr[self.entry[node]])
            node = self.parent[node]
        if not path:
            return []
        return [path[-1]] + path[:-1]


class SampleCodec:
    """§4.1 Codec 2: decodes one RING payload back to the kernel's bytes."""

    HDR = struct.Struct("<HBBB3sQQQQQII8s")

    def __init__(self, payload, block, producer_endian):
        self.payload = payload
        self.block = block
        self.producer_endian = producer_endian

    # -- payload header --------------------------------------------------
    def read_header(self):
        """§4.1 "Payload header" (64 bytes in version 1)."""
        p = self.payload
        if len(p) < 64:
            raise FormatError("codec 2 payload shorter than its 64-byte "
                              "header")
        (hdr_len, version, byte_order, flags, res1, sample_type, read_format,
         regs_user, regs_intr, raw_checksum, records, streams,
         res2) = self.HDR.unpack_from(p, 0)
        if hdr_len < 64 or hdr_len > len(p):
            raise FormatError("codec 2 hdr_len %d out of range" % hdr_len)
        if version != 1:
            raise FormatError("codec 2 version %d, this reader knows 1"
                              % version)
        if byte_order not in (1, 2):
            raise FormatError("codec 2 byte_order %d" % byte_order)
        if byte_order != self.producer_endian:
            raise FormatError("codec 2 byte_order %d differs from the file's "
                              "producer_endian %d"
                              % (byte_order, self.producer_endian))
        if flags & ~1:
            raise FormatError("codec 2 flags 0x%x: unknown bits" % flags)
        if res1 != b"\0\0\0" or res2 != b"\0" * 8:
            raise FormatError("codec 2 reserved header bytes not zero")
        if sample_type & ~SAMPLE_TYPE_BITS:
            raise FormatError("codec 2 sample_type 0x%x has bits above 24"
                              % sample_type)
        if read_format & ~READ_FORMAT_BITS:
            raise FormatError("codec 2 read_format 0x%x has bits above 4"
                              % read_format)
        if streams != NSTREAMS:
            raise FormatError("codec 2 streams = %d, version 1 has 32"
                              % streams)
        if records != self.block.record_count:
            raise FormatError("codec 2 records %d differ from the block's "
                              "record_count %d"
                              % (records, self.block.record_count))
        raw_size = self.block.raw_size
        if not 8 * records <= raw_size <= 65535 * records:
            raise FormatError("raw_size %d impossible for %d records"
                              % (raw_size, records))
        self.hdr_len = hdr_len
        self.endian = "<" if byte_order == 1 else ">"
        self.hw_idx = flags & 1
        self.sample_type = sample_type
        self.read_format = read_format
        self.regs_user = regs_user
        self.regs_intr = regs_intr
        self.raw_checksum = raw_checksum
        self.records = records

    # -- stream directory ------------------------------------------------
    def read_streams(self):
        """§4.1 "Stream directory and streams": 32 (raw_len, stored_len)
        varint pairs, then the stored streams back to back up to the end
        of the payload."""
        p = self.payload
        pos = self.hdr_len
        dirents = []
        cap = 2 * self.block.raw_size + 65536
        for i in range(NSTREAMS):
            raw_len, pos = read_varint(p, pos, "stream directory")
            stored_len = 0
            if raw_len > 0:
                stored_len, pos = read_varint(p, pos, "stream directory")
            if raw_len > cap:
                raise FormatError("stream %d raw_len %d over 2 x raw_size + "
                                  "65536" % (i, raw_len))
            if stored_len > raw_len:
                raise FormatError("stream %d stored_len %d > raw_len %d"
                                  % (i, stored_len, raw_len))
            dirents.append((raw_len, stored_len))
        if sum(r for r, s in dirents if s != r) > cap:
            raise FormatError("streams not stored as they are decode to "
                              "more than 2 x raw_size + 65536")
        total = sum(s for r, s in dirents)
        if pos + total != len(p):
            raise FormatError("codec 2 streams hold %d bytes, the payload "
                              "has %d after the directory"
                              % (total, len(p) - pos))
        streams = []
        for i, (raw_len, stored_len) in enumerate(dirents):
            stored = p[pos:pos + stored_len]
            pos += stored_len
            if stored_len == 0:
                streams.append(bytes(raw_len))
            elif stored_len == raw_len:
                streams.append(stored)
            else:
                streams.append(zstd_decode(stored, raw_len,
                                           "stream %d" % i))
        return streams

    def make_columns(self, streams):
        """§4.1: column k owns streams 2k and 2k+1."""
        cols = []
        for k, name in enumerate(COLUMN_NAMES):
            if k in BYTE_COLUMNS:
                if streams[2 * k + 1]:
                    raise FormatError("byte column %s has a non-empty "
                                      "stream %d" % (name, 2 * k + 1))
                cols.append(ByteColumn(name, streams[2 * k]))
            else:
                cols.append(NumberColumn(name, streams[2 * k],
                                         streams[2 * k + 1]))
        return cols

    # -- records ---------------------------------------------------------
    def decode(self):
        """§4.1 "Records": the whole payload; checks the stream use, the
        size and raw_checksum."""
        self.read_header()
        cols = self.make_columns(self.read_streams())
        self.cols = cols
        self.chains = ChainTree(cols[COL_CHAIN_REF], cols[COL_CHAIN_NODES])
        self.prev = dict.fromkeys(
            ("misc", "identifier", "ip", "pid", "tid", "time", "addr", "id",
             "stream_id", "cpu", "period", "weight", "data_src",
             "transaction", "phys_addr", "cgroup", "data_page_size",
             "code_page_size"), 0)
        self.d = [0, 0, 0]
        self.prev_read = [0] * 32
        self.prev_intr = [0] * popcount(self.regs_intr)
        self.thread_regs = {}
        self.stats = {"samples": 0, "verbatim": 0}
        out = []
        size = 0
        raw_size = self.block.raw_size
        head = cols[COL_HEAD]
        verbatim = cols[COL_VERBATIM]
        e = self.endian
        for _ in range(self.records):
            h = head.next()
            if h == 0:
                rec_head = verbatim.take(8)
                rsize = struct.unpack_from(e + "H", rec_head, 6)[0]
                if rsize < 8:
                    raise FormatError("verbatim record of size %d" % rsize)
                rec = rec_head + verbatim.take(rsize - 8)
                self.stats["verbatim"] += 1
            else:
                self.stats["samples"] += 1
                if h - 1 >= 65536:
                    raise FormatError("head value %d out of range" % h)
                rec = self.decode_sample(h - 1)
            size += len(rec)
            if size > raw_size:
                raise FormatError("codec 2 payload decodes past raw_size %d"
                                  % raw_size)
            out.append(rec)
        for col in cols:
            if not col.used_up():
                raise FormatError("column %s not used up" % col.name)
        data = b"".join(out)
        if len(data) != raw_size:
            raise FormatError("codec 2 payload decodes to %d bytes, raw_size "
                              "is %d" % (len(data), raw_size))
        got = xxh3(data)
        if got != self.raw_checksum:
            raise FormatError("codec 2 raw_checksum mismatch (stored 0x%016x,"
                              " computed 0x%016x) (AMB_E_PAYLOAD_CHECKSUM)"
                              % (self.raw_checksum, got))
        if STATS is not None:
            STATS.write("  codec 2 block seq %d: sample_type 0x%x read_format "
                        "0x%x regs_user 0x%x regs_intr 0x%x flags %d; %d "
                        "samples from columns, %d verbatim records, %d "
                        "chains, %d tree nodes\n" % (
                            self.block.seq, self.sample_type,
                            self.read_format, self.regs_user, self.regs_intr,
                            self.hw_idx, self.stats["samples"],
                            self.stats["verbatim"], len(self.chains.chains),
                            len(self.chains.parent)))
        return data

    def decode_sample(self, hm):
        """§4.1 "Samples", steps 1-22; returns the whole record."""
        st = self.sample_type
        c_ = self.cols
        prev = self.prev
        e = self.endian
        u64 = struct.Struct(e + "Q").pack
        u32 = struct.Struct(e + "I").pack
        f = []                              # the fields, in write order
        fields = c_[COL_FIELDS]
        chains = self.chains

        # 1. chain, 2. ip prediction, 3. misc
        c = chains.next_chain() if st & S_CALLCHAIN else 0
        pred_ip = chains.address(c) if c else prev["ip"]
        stored_misc = chains.misc[c]
        pred_misc = stored_misc if stored_misc is not None else prev["misc"]
        misc = hm ^ pred_misc
        chains.misc[c] = misc
        prev["misc"] = misc

        def delta(col, name):
            v = (prev[name] + unzz(c_[col].next())) & MASK64
            prev[name] = v
            f.append(u64(v))
            return v

        if st & S_IDENTIFIER:                               # 4
            delta(COL_ID, "identifier")
        if st & S_IP:                                       # 5
            ip = (pred_ip + unzz(c_[COL_IP].next())) & MASK64
            prev["ip"] = ip
            f.append(u64(ip))
        tid = 0
        if st & S_TID:                                      # 6
            col = c_[COL_TID]
            pid = (prev["pid"] + unzz32(col.next())) & MASK32
            tid = (prev["tid"] + unzz32(col.next())) & MASK32
            prev["pid"], prev["tid"] = pid, tid
            f.append(u32(pid) + u32(tid))
        if st & S_TIME:                                     # 7
            d1, d2, d3 = self.d
            d = (median3(d1, d2, d3) + unzz(c_[COL_TIME].next())) & MASK64
            self.d = [d, d1, d2]
            t = (prev["time"] + d) & MASK64
            prev["time"] = t
            f.append(u64(t))
        if st & S_ADDR:                                     # 8
            delta(COL_ADDR, "addr")
        if st & S_ID:                                       # 9
            delta(COL_ID, "id")
        if st & S_STREAM_ID:
            delta(COL_ID, "stream_id")
        if st & S_CPU:                                      # 10
            col = c_[COL_CPU]
            cpu = (prev["cpu"] + unzz32(col.next())) & MASK32
            prev["cpu"] = cpu
            res = col.next_below(1 << 32, "cpu res")
            f.append(u32(cpu) + u32(res))
        if st & S_PERIOD:                                   # 11
            delta(COL_PERIOD, "period")
        if st & S_READ:                                     # 12
            f.extend(self.decode_read(fields, u64))
        if st & S_CALLCHAIN:                                # 13
            ents = chains.entries(c)
            f.append(u64(len(ents)))
            f.extend(u64(a) for a in ents)
        if st & S_RAW:                                      # 14
            n = fields.next_below(1 << 32, "RAW size")
            f.append(u32(n))
            f.append(c_[COL_BYTES].take(n))
        if st & S_BRANCH_STACK:                             # 15
            f.extend(self.decode_branches(fields, u64))
        if st & S_REGS_USER:                                # 16
            f.extend(self.decode_regs_user(tid if st & S_TID else 0, u64))
        if st & S_STACK_USER:                               # 17
            f.extend(self.decode_stack(u64))
        if st & (S_WEIGHT | S_WEIGHT_STRUCT):               # 18
            delta(COL_FIELDS, "weight")
        if st & S_DATA_SRC:                                 # 19
            delta(COL_FIELDS, "data_src")
        if st & S_TRANSACTION:
            delta(COL_FIELDS, "transaction")
        if st & S_REGS_INTR:                                # 20
            abi = fields.next()
            f.append(u64(abi))
            if abi:
                for i in range(len(self.prev_intr)):
                    v = (self.prev_intr[i] + unzz(fields.next())) & MASK64
                    self.prev_intr[i] = v
                    f.append(u64(v))
        if st & S_PHYS_ADDR:                                # 21
            delta(COL_FIELDS, "phys_addr")
        if st & S_CGROUP:
            delta(COL_FIELDS, "cgroup")
        if st & S_DATA_PAGE_SIZE:
            delta(COL_FIELDS, "data_page_size")
        if st & S_CODE_PAGE_SIZE:
            delta(COL_FIELDS, "code_page_size")
        if st & S_AUX:                                      # 22
            n = fields.next_below(65536, "AUX size")
            f.append(u64(n))
            f.append(c_[COL_BYTES].take(n))

        body = b"".join(f)
        size = 8 + len(body)
        if size > 65535:
            raise FormatError("sample of %d bytes, over 65535" % size)
        return struct.pack(e + "IHH", 9, misc, size) + body

    def decode_read(self, fields, u64):
        """§4.1 Samples step 12 (PERF_SAMPLE_READ by read_format)."""
        rf = self.read_format
        times = (rf & 1) + ((rf >> 1) & 1)
        per = 1 + ((rf >> 2) & 1) + ((rf >> 4) & 1)
        out = []
        if rf & 8:
            nr = fields.next_below(65536, "READ group nr")
            out.append(u64(nr))
            n = times + nr * per
        else:
            n = times + per
        for i in range(n):
            d = unzz(fields.next())
            if i < 32:
                v = (self.prev_read[i] + d) & MASK64
                self.prev_read[i] = v
            else:
                v = d
            out.append(u64(v))
        return out

    def decode_branches(self, fields, u64):
        """§4.1 Samples step 15 (PERF_SAMPLE_BRANCH_STACK)."""
        nr = fields.next_below(65536 // 24 + 1, "branch stack nr")
        out = [u64(nr)]
        if self.hw_idx:
            out.append(u64(unzz(fields.next())))
        frm = 0
        for _ in range(nr):
            frm = (frm + unzz(fields.next())) & MASK64
            to = (frm + unzz(fields.next())) & MASK64
            flg = fields.next()
            out.append(u64(frm) + u64(to) + u64(flg))
        return out

    def decode_regs_user(self, tid, u64):
        """§4.1 Samples step 16 (PERF_SAMPLE_REGS_USER), predicted from the
        same thread's last sample with abi != 0."""
        regs = self.cols[COL_REGS]
        abi = regs.next()
        out = [u64(abi)]
        if abi:
            n = popcount(self.regs_user)
            ref = self.thread_regs.get(tid) or [0] * n
            vals = [(ref[i] + unzz(regs.next())) & MASK64 for i in range(n)]
            self.thread_regs[tid] = vals
            out.extend(u64(v) for v in vals)
        return out

    def decode_stack(self, u64):
        """§4.1 Samples step 17 (PERF_SAMPLE_STACK_USER)."""
        meta = self.cols[COL_STACK_META]
        data = self.cols[COL_STACK_DATA]
        size = meta.next_below(65536, "stack size")
        out = [u64(size)]
        if size:
            dyn = meta.next()
            if dyn > size:
                raise FormatError("stack dyn_size %d > size %d" % (dyn, size))
            tail = meta.next_below(2, "stack tail flag")
            if tail:
                out.append(data.take(size))
            else:
                out.append(data.take(dyn))
                out.append(bytes(size - dyn))
            out.append(u64(dyn))
        return out


# ---------------------------------------------------------------------------
# §5 payload structure: counting records to check record_count

def count_perf_records(data, endian):
    """§5.6: a RING/SYNTH payload is whole perf records; each header's
    size (u16 at offset 6, producer byte order) is >= 8."""
    fmt = "<H" if endian == 1 else ">H"
    pos = n = 0
    while pos < len(data):
        if len(data) - pos < 8:
            raise FormatError("perf record header cut at payload offset %d"
                              % pos)
        size = struct.unpack_from(fmt, data, pos + 6)[0]
        if size < 8 or pos + size > len(data):
            raise FormatError("perf record at payload offset %d has size %d"
                              % (pos, size))
        pos += size
        n += 1
    return n


def count_kv_pairs(data):
    """§5.1: key_len, key, value_len, value, until the payload ends."""
    pos = n = 0
    while pos < len(data):
        if len(data) - pos < 4:
            raise FormatError("key/value pair cut at offset %d" % pos)
        klen = u32le(data, pos)
        if klen > 4096 or pos + 4 + klen + 4 > len(data):
            raise FormatError("key_len %d at offset %d" % (klen, pos))
        pos += 4 + klen
        vlen = u32le(data, pos)
        if vlen > len(data) - pos - 4:
            raise FormatError("value_len %d at offset %d" % (vlen, pos))
        pos += 4 + vlen
        n += 1
    return n


def count_len_entries(data, what, minimum=0):
    """§5.2/§5.3/§5.4: entries led by a u32 entry_len (bytes after it)."""
    pos = n = 0
    while pos < len(data):
        if len(data) - pos < 4:
            raise FormatError("%s entry cut at offset %d" % (what, pos))
        elen = u32le(data, pos)
        if elen > len(data) - pos - 4 or elen < minimum:
            raise FormatError("%s entry_len %d at offset %d"
                              % (what, elen, pos))
        pos += 4 + elen
        n += 1
    return n


def count_index_entries(data):
    """§6: entry_size (>= 64), reserved, entries."""
    if len(data) < 8:
        raise FormatError("INDEX payload shorter than 8 bytes")
    esize = u32le(data, 0)
    if esize < 64 or (len(data) - 8) % esize:
        raise FormatError("INDEX entry_size %d does not divide its %d bytes"
                          % (esize, len(data) - 8))
    return (len(data) - 8) // esize


def count_records(h, data, endian):
    """§5 table, column record_count: the count the payload implies, or
    None where the document does not define it precisely enough."""
    t = h.type
    if t in (3, 4):
        return count_perf_records(data, endian)
    if t in (1, 6, 8):
        return count_kv_pairs(data)
    if t == 2:
        return count_len_entries(data, "EVENT_ATTR")
    if t == 5:
        return count_len_entries(data, "BUILDID")
    if t == 9:
        return count_len_entries(data, "COUNTS", 44)
    if t == 10:
        return 1
    if t == 11:
        return count_index_entries(data)
    if t == 12:
        if len(data) != 24:
            raise FormatError("TRAILER payload of %d bytes, not 24"
                              % len(data))
        return 0
    if t == 7:
        # "lines": counted as newline-terminated lines, plus an
        # unterminated last one (§5 does not say; real files end in \n).
        return data.count(b"\n") + (1 if data and
                                     not data.endswith(b"\n") else 0)
    return None   # unknown types


# ---------------------------------------------------------------------------
# §6 INDEX and TRAILER (cross-check only)

TRAILER_SIZE = 104


def check_index(data, blocks, decoded, note):
    """§6, §7 step 2: find the trailer at file_size - 104 and compare its
    INDEX with the scanned block headers. Only reports (to `note`)."""
    if len(data) < TRAILER_SIZE:
        note("no trailer (file too short): not closed cleanly")
        return
    off = len(data) - TRAILER_SIZE
    blocks = [b for b in blocks if not b.left_out]
    by_off = {b.offset: b for b in blocks}
    t = by_off.get(off)
    if t is None:
        # not in §6/§7: the last 104 bytes may be another recording's
        # trailer (cat a.amber b.amber); use this recording's last one.
        trailers = [b for b in blocks if b.type == 12]
        if trailers:
            t = trailers[-1]
            note("the last 104 bytes are no TRAILER of this recording; "
                 "using the TRAILER at offset %d" % t.offset)
    if t is None or t.type != 12 or t.header_len != 80:
        note("no valid TRAILER at offset %d: file not closed cleanly" % off)
        return
    off = t.offset
    tp = decoded.get(off)
    if tp is None or len(tp) != 24:
        note("TRAILER payload unreadable")
        return
    index_offset, block_count, data_end = struct.unpack_from("<QQQ", tp, 0)
    ib = by_off.get(index_offset)
    ip = decoded.get(index_offset)
    if ib is None or ib.type != 11 or ip is None:
        note("TRAILER names index_offset %d, which holds no valid INDEX"
             % index_offset)
        return
    if data_end != index_offset:
        note("TRAILER data_end %d != index_offset %d" % (data_end,
                                                         index_offset))
    esize = u32le(ip, 0)
    n = (len(ip) - 8) // esize
    if n != block_count:
        note("INDEX has %d entries, TRAILER says %d" % (n, block_count))
        return
    agree = True
    for i in range(n):
        e = struct.unpack_from("<QQHBBIQQQQQ", ip, 8 + i * esize)
        b = by_off.get(e[0])
        if b is None:
            note("index entry %d: no such block at offset %d" % (i, e[0]))
            agree = False
            continue
        mine = (b.offset, b.seq, b.type, b.codec, b.flags, b.stream,
                b.raw_size, b.stored_size, b.record_count, b.first_time,
                b.last_time)
        if mine != e:
            note("index entry %d disagrees with the block header at offset "
                 "%d" % (i, e[0]))
            agree = False
    if agree:
        note("index: %d entries, all agree with the scanned block headers"
             % n, quiet=True)


# ---------------------------------------------------------------------------
# §7 Reading: scanning, resynchronising, copies

def resync(data, start):
    """§7 step 4: the next offset >= start holding a valid block header,
    or None."""
    pos = start
    while True:
        pos = data.find(BLOCK_MAGIC, pos)
        if pos < 0:
            return None
        try:
            parse_block_header(data, pos)
            return pos
        except (FormatError, TornHeader):
            pos += 1


def scan(data, fh, report, warn):
    """§7 steps 3-5 and "Repeated blocks": walks the file from header_len,
    calling report(header, stored_payload_or_None, problem) for every
    block (problem is None, or why the block is left out), and
    warn(msg) for damage between blocks. Returns the list of valid block
    headers."""
    pos = fh["header_len"]
    blocks = []
    seen = {}               # seq -> identity of the first block with it
    foreign = False         # inside another recording's blocks
    after_trailer = False
    last_seq = None
    while pos < len(data):
        if data[pos:pos + 8] == FILE_MAGIC:
            # §7 "Repeated blocks": a file header where a block should be
            try:
                other = read_file_header(data[pos:])
            except FormatError as e:
                other = None
            if other is not None:
                foreign = other["uuid"] != fh["uuid"]
                warn("offset %d: file header of %s recording" %
                     (pos, "another" if foreign else "this same"))
                pos += other["header_len"]
                after_trailer = False
                continue
        try:
            h = parse_block_header(data, pos)
        except TornHeader as e:
            warn("offset %d: torn tail: %s, dropped" % (pos, e))
            report_seq_gaps(seen, warn)
            return blocks, False
        except FormatError as e:
            if after_trailer:
                warn("offset %d: %d bytes after the trailer of the closed "
                     "recording" % (pos, len(data) - pos))
                return blocks, False
            nxt = resync(data, pos + 1)
            warn("offset %d: damaged block header (%s); %s" % (
                pos, e, "resynchronised at offset %d" % nxt
                if nxt is not None else "no valid block header after it"))
            if nxt is None:
                return blocks, False
            pos = nxt
            continue
        if h.end > len(data):
            warn("block seq %d at offset %d: torn tail (payload ends at %d, "
                 "file at %d), dropped" % (h.seq, pos, h.end, len(data)))
            report_seq_gaps(seen, warn)
            return blocks, False
        stored = data[h.payload_offset:h.end]
        problem = None
        if foreign:
            problem = "left out: after another recording's file header"
        elif h.seq in seen:
            if seen[h.seq] == h.identity():
                problem = "left out: copy of the block with seq %d" % h.seq
            else:
                warn("block seq %d at offset %d: a different block claims "
                     "the same seq" % (h.seq, pos))
        else:
            seen[h.seq] = h.identity()
        if problem is None:
            # §7: "Sequence numbers must increase by one"
            # a step back is reported here; a gap at the end, as "a jump
            # over numbers that later blocks carry is no loss".
            if last_seq is not None and h.seq <= last_seq:
                warn("block seq %d at offset %d: seq %d after seq %d "
                     "(blocks out of order)" % (h.seq, pos, h.seq, last_seq))
            last_seq = h.seq
        h.left_out = problem is not None
        blocks.append(h)
        report(h, stored, problem)
        after_trailer = h.type == 12
        pos = h.end
    report_seq_gaps(seen, warn)
    return blocks, True


def report_seq_gaps(seen, warn):
    """§7: a seq number no block carries means blocks were lost."""
    if not seen:
        return
    missing = sorted(set(range(max(seen) + 1)) - set(seen))
    if missing:
        warn("blocks with seq %s missing (lost)" % ", ".join(
            str(m) for m in missing[:10]) + (" ..." if len(missing) > 10
                                             else ""))


# ---------------------------------------------------------------------------
# command line

def type_name(t):
    return BLOCK_TYPES.get(t, str(t))


def main(argv):
    args = argv[1:]
    out_dir = None
    show_index = False
    files = []
    while args:
        a = args.pop(0)
        if a == "--out" and args:
            out_dir = args.pop(0)
        elif a.startswith("--out="):
            out_dir = a[6:]
        elif a == "--index":
            show_index = True
        elif a == "--stats":
            global STATS
            STATS = sys.stderr
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif a.startswith("-") and a != "-":
            sys.stderr.write("amber_read: unknown option %s\n" % a)
            return 2
        else:
            files.append(a)
    if len(files) != 1:
        sys.stderr.write("usage: amber_read.py [--out DIR] [--index] [--stats] FILE\n")
        return 2
    path = files[0]
    try:
        with open(path, "rb") as fp:
            data = fp.read()
    except OSError as e:
        sys.stderr.write("amber_read: %s: %s\n" % (path, e.strerror))
        return 2
    if out_dir is not None:
        try:
            os.makedirs(out_dir, exist_ok=True)
        except OSError as e:
            sys.stderr.write("amber_read: %s: %s\n" % (out_dir, e.strerror))
            return 2
    try:
        fh = read_file_header(data)
    except FormatError as e:
        sys.stderr.write("amber_read: %s: %s\n" % (path, e))
        return 2

    status = {"bad": 0, "index": 0}
    decoded = {}

    def warn(msg):
        status["bad"] += 1
        sys.stderr.write("amber_read: %s: %s\n" % (path, msg))

    def note(msg, quiet=False):
        if not quiet:
            status["bad"] += 1
        if show_index or not quiet:
            sys.stderr.write("amber_read: %s: %s\n" % (path, msg))

    def report(h, stored, problem):
        i = status["index"]
        status["index"] += 1
        payload = None
        count = h.record_count
        if problem is None:
            try:
                check_stored_payload(h, stored)
                payload = decode_payload(h, stored, fh["producer_endian"])
                if len(payload) != h.raw_size:
                    raise FormatError("decoded %d bytes, raw_size %d"
                                      % (len(payload), h.raw_size))
                n = count_records(h, payload, fh["producer_endian"])
                if n is not None and n != h.record_count:
                    raise FormatError("payload holds %d records, header "
                                      "says %d" % (n, h.record_count))
            except FormatError as e:
                problem = str(e)
                payload = None
            except (struct.error, IndexError, ValueError, MemoryError) as e:
                problem = "undecodable payload (%s: %s)" % (
                    type(e).__name__, e)
                payload = None
        if payload is not None:
            decoded[h.offset] = payload
            if out_dir is not None:
                try:
                    with open(os.path.join(out_dir, "%d.bin" % i), "wb") as o:
                        o.write(payload)
                except OSError as e:
                    sys.stderr.write("amber_read: %s: %s\n"
                                     % (out_dir, e.strerror))
                    raise SystemExit(2)
        if problem is not None:
            status["bad"] += 1
            verdict = "BAD block seq %d at offset %d: %s" % (
                h.seq, h.offset, problem)
        else:
            verdict = "ok"
        stream = "-" if h.stream == NO_STREAM else str(h.stream)
        digest = "%016x" % xxh3(payload) if payload is not None else "-"
        size = str(len(payload)) if payload is not None else "-"
        sys.stdout.write("\t".join((
            str(i), type_name(h.type), stream,
            CODEC_NAMES.get(h.codec, str(h.codec)), str(count), size,
            digest, verdict)) + "\n")

    try:
        blocks, clean = scan(data, fh, report, warn)
        check_index(data, blocks, decoded, note)
    except BrokenPipeError:
        return 1
    sys.stdout.flush()
    return 0 if status["bad"] == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except KeyboardInterrupt:
        sys.exit(130)
