#!/usr/bin/env python3
"""Keeps one architecture's machine code (ELF) of a CUDA fat binary and drops the other entries.

For device calls, whose carry limit (64 MiB with the working tree) the full kernels (sm_70-90 + PTX) do not fit
beside a bundle: a fat binary of only sm_90 ELF loads on an H100/H200 like the full one.
Usage: slim-fatbin.py SM IN OUT (SM: e.g. 90). The layout is the one FatBinaryArchitectures reads:
container header u32 magic 0xBA55ED50 | u16 version | u16 header bytes | u64 entries' bytes; each entry
u16 kind (1 PTX, 2 ELF) | u16 | u32 entry header bytes | u64 payload bytes | ... | u32 arch at byte 28.
"""
import struct
import sys

sm, src, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
data = open(src, "rb").read()
out, off = b"", 0
while off < len(data):
    magic, version, header_bytes, entries_bytes = struct.unpack_from("<IHHQ", data, off)
    if magic != 0xBA55ED50:
        sys.exit(f"{src}: no fat binary container at byte {off} (magic {magic:#x})")
    p, end, kept = off + header_bytes, off + header_bytes + entries_bytes, []
    while p < end:
        kind, _, entry_header_bytes, payload_bytes = struct.unpack_from("<HHIQ", data, p)
        arch = struct.unpack_from("<I", data, p + 28)[0]
        if kind == 2 and arch == sm:
            kept.append(data[p : p + entry_header_bytes + payload_bytes])
        p += entry_header_bytes + payload_bytes
    if not kept:
        sys.exit(f"{src}: no sm_{sm} machine code in the container at byte {off}")
    body = b"".join(kept)
    out += struct.pack("<IHHQ", magic, version, header_bytes, len(body)) + data[off + 16 : off + header_bytes] + body
    off = end
open(dst, "wb").write(out)
print(f"{src}: {len(data)} -> {len(out)} bytes (sm_{sm} only)")
