#!/usr/bin/env python3
"""Joins the RESULT lines of `bench ddp` (ddp4j) and bench/pytorch_ddp_synthetic.py into the markdown table of
bench/ddp-gpu-vs-pytorch.md: both systems' step time without and with all-reduce, their overheads, and the ratio
of ddp4j's overhead to PyTorch's (goal: <= 0.5). Usage: ddp-gpu-table.py DDP4J_LOG PYTORCH_LOG."""
import re
import sys


def results(path):
    out = {}
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return out
    for line in lines:
        if line.startswith("RESULT"):
            f = dict(kv.split("=") for kv in re.findall(r"\S+=\S+", line))
            out[(int(f["layers"]), int(f["params"]), round(float(f["backward_us"])))] = f
    return out


ours, theirs = results(sys.argv[1]), results(sys.argv[2])
print("| layers x params | backward | ddp4j no-AR ms | ddp4j DDP ms | ddp4j overhead | PyTorch no-AR ms"
      " | PyTorch DDP ms | PyTorch overhead | ratio | goal (<= 0.5) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for key in sorted(set(ours) | set(theirs), key=lambda k: (k[1], k[2])):
    layers, params, us = key
    o, t = ours.get(key), theirs.get(key)
    cells = [f"{layers} x {params / layers / 1e6:.2f} M ({params / 1e6:.0f} M)", f"{us / 1e3:.1f} ms"]
    for r in (o, t):
        cells += ([f"{float(r['no_allreduce_ms']):.3f}", f"{float(r['ddp_ms']):.3f}",
                   f"{float(r['overhead_pct']):+.1f} %"] if r else ["-", "-", "-"])
    if o and t and float(t["overhead_pct"]) > 0:
        ratio = float(o["overhead_pct"]) / float(t["overhead_pct"])
        cells += [f"{ratio:.2f}", "met" if ratio <= 0.5 else "NOT met"]
    else:
        cells += ["-", "-"]
    print("| " + " | ".join(cells) + " |")
