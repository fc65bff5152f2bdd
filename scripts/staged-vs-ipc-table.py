#!/usr/bin/env python3
"""Puts the cuda bench's all-reduce table over CUDA IPC (bench.log) beside the same bench run host-staged
(bench-staged.log, DDP4J_P2P_DISABLE=1), both from one run-gpu.sh call, as one markdown table with the ratio
staged / IPC per size (above 1: staging is slower). Usage: scripts/staged-vs-ipc-table.py bench.log bench-staged.log"""
import sys


def rows(path):
    out, started = {}, False
    for line in open(path):
        if line.startswith("# ddp4j cuda all_reduce"):
            if started:
                break
            started = True
            continue
        f = line.split()
        if started and len(f) >= 7 and f[0].isdigit():
            out[int(f[0])] = f
    return out


ipc, staged = rows(sys.argv[1]), rows(sys.argv[2])
print("| bytes | IPC us | staged us | staged / IPC | IPC busbw GB/s | staged busbw GB/s | staged check |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for b in sorted(staged):
    s = staged[b]
    i = ipc.get(b)
    if i:
        print(f"| {b} | {float(i[3]):.2f} | {float(s[3]):.2f} | {float(s[3]) / float(i[3]):.1f} | "
              f"{float(i[5]):.1f} | {float(s[5]):.1f} | {s[6]} |")
