#!/usr/bin/env python3
"""Joins the cuda bench's table (GpuHarness bench, variant auto) and NCCL's (shared/device/nccl_bench.sh) from the
same run into one markdown table with the ratio ddp4j / NCCL per size (below 1: ddp4j is faster).
Usage: scripts/cuda-bench-table.py bench.log nccl.log"""
import sys


def rows(path, first_variant_only):
    out, started = {}, False
    for line in open(path):
        if line.startswith("# ddp4j cuda all_reduce"):
            if started and first_variant_only:
                break
            started = True
            continue
        f = line.split()
        if len(f) >= 4 and f[0].isdigit():
            out[int(f[0])] = f
    return out


ours, nccl = rows(sys.argv[1], True), rows(sys.argv[2], False)
print("| bytes | ddp4j us | NCCL us | ddp4j / NCCL | ddp4j busbw GB/s | NCCL busbw GB/s | check |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for b in sorted(ours):
    o = ours[b]
    n = nccl.get(b)
    t, bw, check = float(o[3]), float(o[5]), o[6]
    if n:
        print(f"| {b} | {t:.2f} | {float(n[1]):.2f} | {t / float(n[1]):.2f} | {bw:.1f} | {float(n[3]):.1f} | {check} |")
    else:
        print(f"| {b} | {t:.2f} | | | {bw:.1f} | | {check} |")
