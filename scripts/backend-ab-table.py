#!/usr/bin/env python3
"""Joins two `launcher.jar bench` logs of the same run (one table per --op each), e.g. --backend cuda and --backend
nccl, into one markdown table per collective with the time ratio A / B (below 1: A is faster).
Usage: scripts/backend-ab-table.py A.log B.log"""
import sys


def tables(path):
    out, op, backend = {}, None, None
    for line in open(path):
        if line.startswith("# ddp4j bench:"):
            f = line.replace(",", "").split()
            op, backend = f[3], f[f.index("backend") + 1]
            out.setdefault(op, {})
            continue
        f = line.split()
        if op and len(f) >= 8 and f[0].isdigit():
            out[op][int(f[0])] = f
    return out, backend


a, name_a = tables(sys.argv[1])
b, name_b = tables(sys.argv[2])
for op, rows in a.items():
    print(f"\n{op}\n")
    print(f"| bytes | {name_a} us | {name_b} us | {name_a} / {name_b} | {name_a} busbw GB/s | {name_b} busbw GB/s"
          f" | check {name_a} | check {name_b} |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for size in sorted(rows):
        x, y = rows[size], b.get(op, {}).get(size)
        t, bw, check = float(x[5]), float(x[7]), " ".join(x[8:])
        if y:
            u = float(y[5])
            print(f"| {size} | {t:.2f} | {u:.2f} | {t / u:.2f} | {bw:.1f} | {float(y[7]):.1f} | {check}"
                  f" | {' '.join(y[8:])} |")
        else:
            print(f"| {size} | {t:.2f} | | | {bw:.1f} | | {check} | |")
