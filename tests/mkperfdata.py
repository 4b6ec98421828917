#!/usr/bin/env python3
"""Writes a small synthetic perf.data for the reader's tests, in either byte
order and either mode, from one description, so the two byte orders must
decode to the same records. Written for tdkit from the layouts in
<linux/perf_event.h> and perf's header format; not a capture.

usage: mkperfdata.py OUT [--be] [--pipe] [--no-unknown]
(--no-unknown: without the record of unknown type 99, which perf refuses)
"""
import struct
import sys

out = sys.argv[1]
E = '>' if '--be' in sys.argv else '<'
PIPE = '--pipe' in sys.argv

# sample_type bits
IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD = 1, 2, 4, 8, 16, 32, 64, 128, 256
BRANCH_STACK, REGS_USER, STACK_USER, DATA_SRC, IDENTIFIER = 1 << 11, 1 << 12, 1 << 13, 1 << 15, 1 << 16
WEIGHT_STRUCT = 1 << 24
FORMAT_ID, FORMAT_GROUP = 4, 8
BR_ANY, BR_TYPE_SAVE, BR_HW_INDEX = 1 << 3, 1 << 16, 1 << 17


def p(fmt, *v):
    return struct.pack(E + fmt, *v)


def bitfield(fields):
    """fields: (little-endian bit offset, width, value); big-endian ABIs
    allocate bitfields from the top bit."""
    v = 0
    for off, width, val in fields:
        v |= val << (off if E == '<' else 64 - off - width)
    return p('Q', v)


def attr(type_, config, period, sample_type, read_format, flags, branch_type, regs_user):
    b = p('IIQQQQ', type_, 112, config, period, sample_type, read_format) + bitfield(flags)
    b += p('IIQQQQIiQIHH', 0, 0, 0, 0, branch_type, regs_user, 0, 0, 0, 0, 0, 0)
    assert len(b) == 112
    return b


ST0 = IDENTIFIER | IP | TID | TIME | CPU | PERIOD | CALLCHAIN | BRANCH_STACK
ST1 = IDENTIFIER | IP | TID | TIME | CPU | READ | REGS_USER | STACK_USER | WEIGHT_STRUCT | DATA_SRC
SID_ALL, FREQ, PRECISE = 18, 10, 15
attrs = [
    (attr(0, 0, 100003, ST0, 0, [(SID_ALL, 1, 1), (PRECISE, 2, 2)], BR_ANY | BR_HW_INDEX | BR_TYPE_SAVE, 0), [101, 102]),
    (attr(1, 0, 4000, ST1, FORMAT_GROUP | FORMAT_ID, [(SID_ALL, 1, 1), (FREQ, 1, 1)], 0, 0x7), [201]),
]


def rec(type_, misc, body):
    return p('IHH', type_, misc, 8 + len(body)) + body


def trailer(pid, tid, time, cpu, ident):      # sample_id_all: TID TIME CPU IDENTIFIER
    return p('IIQIIQ', pid, tid, time, cpu, 0, ident)


def cstr(s, align=8):
    b = s.encode() + b'\0'
    return b + b'\0' * (-len(b) % align)


CTX_USER = (1 << 64) - 512
records = [
    rec(3, 1 << 13, p('II', 42, 42) + cstr('synthetic') + trailer(42, 42, 1000, 0, 101)),
    rec(10, 2, p('IIQQQIIQQII', 42, 42, 0x400000, 0x1000, 0, 8, 1, 1234, 0, 5, 2) + cstr('/bin/synthetic')
        + trailer(42, 42, 1001, 0, 101)),
    rec(7, 0, p('IIIIQ', 43, 42, 43, 42, 1002) + trailer(43, 43, 1002, 1, 101)),
    # cycles: callchain (user context marker, two frames), branch stack with hw_idx
    rec(9, 2, p('QQIIQIIQ', 101, 0x400123, 42, 42, 2000, 0, 0, 100003)
        + p('QQQQ', 3, CTX_USER, 0x400123, 0x400456)
        + p('QQ', 2, 5)
        + p('QQ', 0x400100, 0x400200) + bitfield([(0, 1, 1), (4, 16, 17), (20, 4, 1)])
        + p('QQ', 0x400300, 0x400100) + bitfield([(1, 1, 1), (4, 16, 3), (20, 4, 6)])),
    # cpu-clock: group read, user regs and stack, weight struct, data source
    rec(9, 2, p('QQIIQII', 201, 0x400456, 43, 43, 3000, 1, 0)
        + p('QQQQQ', 2, 10, 101, 20, 201)
        + p('QQQQ', 2, 1, 2, 3)
        + p('Q', 16) + b'stackstackstack!' + p('Q', 8)
        + p('IHH', 71, 3, 0) + p('Q', 0x123)),
    rec(2, 0, p('QQ', 101, 3) + trailer(42, 42, 3500, 0, 101)),
    rec(13, 0, p('Q', 2) + trailer(42, 42, 3600, 0, 201)),
    rec(4, 0, p('IIIIQ', 43, 42, 43, 42, 4000) + trailer(43, 43, 4000, 1, 101)),
    rec(68, 0, b''),
]
if '--no-unknown' not in sys.argv:
    records.insert(-1, rec(99, 0, b'unknown!'))
features = [  # (bit, bytes)
    (3, p('I', 8) + cstr('bigbox')),
    (6, p('I', 8) + cstr('ppc64')),
    (7, p('II', 4, 2)),
    (11, p('I', 3) + b''.join(p('I', len(cstr(a))) + cstr(a) for a in ('perf', 'record', '-b'))),
]

if PIPE:
    body = b''
    for a, ids in attrs:
        body += rec(64, 0, a + b''.join(p('Q', i) for i in ids))
    for bit, data in features:
        body += rec(80, 0, p('Q', bit) + data)
    data = p('QQ', 0x32454c4946524550, 16) + body + b''.join(records)
else:
    head = 104
    attr_off = head
    ids_off = attr_off + len(attrs) * 128
    ids_blob, attr_blob = b'', b''
    for a, ids in attrs:
        attr_blob += a + p('QQ', ids_off + len(ids_blob), 8 * len(ids))
        ids_blob += b''.join(p('Q', i) for i in ids)
    data_off = ids_off + len(ids_blob)
    data_blob = b''.join(records)
    feat_off = data_off + len(data_blob)
    table, fdata = b'', b''
    pos = feat_off + 16 * len(features)
    for bit, blob in features:
        table += p('QQ', pos + len(fdata), len(blob))
        fdata += blob
    bits = 0
    for bit, _ in features:
        bits |= 1 << bit
    header = p('QQQQQQQQQ', 0x32454c4946524550, head, 128, attr_off, len(attr_blob), data_off, len(data_blob), 0, 0)
    header += p('QQQQ', bits, 0, 0, 0)
    data = header + attr_blob + ids_blob + data_blob + table + fdata
open(out, 'wb').write(data)
