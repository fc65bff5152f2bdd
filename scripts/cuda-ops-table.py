#!/usr/bin/env python3
"""Joins `launcher.jar bench --backend cuda` tables (one per --op, concatenated in one log) and NCCL's from
bench/nccl_collectives.cu of the same run into one markdown table per collective, with the time ratio ddp4j / NCCL
(below 1: ddp4j is faster). Usage: scripts/cuda-ops-table.py launcher-bench.log nccl-collectives.log"""
import sys


def tables(path, marker, op_field):
    out, op = {}, None
    for line in open(path):
        if line.startswith(marker):
            op = line.split()[op_field].rstrip(",")
            out.setdefault(op, {})
            continue
        f = line.split()
        if op and len(f) >= 5 and f[0].isdigit():
            out[op][int(f[0])] = f
    return out


ours = tables(sys.argv[1], "# ddp4j bench:", 3)
nccl = tables(sys.argv[2], "# NCCL", 3)
for op, rows in ours.items():
    print(f"\n{op}\n")
    print("| bytes | ddp4j us | NCCL us | ddp4j / NCCL | ddp4j busbw GB/s | NCCL busbw GB/s | check |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for b in sorted(rows):
        o, n = rows[b], nccl.get(op, {}).get(b)
        t, bw, check = float(o[5]), float(o[7]), " ".join(o[8:])
        if n:
            nt = float(n[2])
            print(f"| {b} | {t:.2f} | {nt:.2f} | {t / nt:.2f} | {bw:.1f} | {float(n[4]):.1f} | {check} |")
        else:
            print(f"| {b} | {t:.2f} | | | {bw:.1f} | | {check} |")
