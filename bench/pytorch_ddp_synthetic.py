#!/usr/bin/env python3
"""PyTorch DDP on the synthetic model of `launcher.jar bench ddp`, for the side-by-side table of
bench/ddp-gpu-vs-pytorch.md.

Each layer is a custom autograd Function over one flat parameter: forward passes a one-element activation
through, backward runs torch.cuda._sleep for the layer's backward time (cycles calibrated to microseconds in this
run) and returns a gradient of the parameter's size. The model is wrapped in DistributedDataParallel with its
defaults (25 MiB buckets, 1 MiB first bucket), one process per GPU (mp.spawn, NCCL), SGD as the optimizer. For
every configuration it times steps of the bare model (no all-reduce) and of the DDP model, in the same processes.

Usage: python3 bench/pytorch_ddp_synthetic.py --nproc 2 --config 8x16.75M:1500 --config 4x67.25M:6100 ...
(--config LAYERS:BACKWARD_US, LAYERS as in bench ddp's --layers). Rank 0 prints CALIBRATION and RESULT lines.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel


def parse_count(text):
    t = text.strip().lower()
    unit = {"k": 1e3, "m": 1e6, "g": 1e9}.get(t[-1:], 1)
    return round(float(t[:-1] if unit != 1 else t) * unit)


def parse_layers(text):
    out = []
    for item in text.split(","):
        count, _, size = item.strip().lower().rpartition("x")
        out += [parse_count(size)] * (int(count) if count else 1)
    return out


class SpinLayer(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, cycles):
        ctx.cycles = cycles
        ctx.numel = weight.numel()
        ctx.device = weight.device
        return x.clone()

    @staticmethod
    def backward(ctx, grad_out):
        torch.cuda._sleep(ctx.cycles)
        grad_w = torch.empty(ctx.numel, device=ctx.device).fill_(1.0 / 1024)
        return grad_out, grad_w, None


class SyntheticModel(torch.nn.Module):
    def __init__(self, sizes, cycles, device):
        super().__init__()
        self.weights = torch.nn.ParameterList(
            [torch.nn.Parameter(torch.zeros(n, device=device)) for n in sizes])
        self.cycles = cycles

    def forward(self, x):
        for w, c in zip(self.weights, self.cycles):
            x = SpinLayer.apply(x, w, c)
        return x


def elapsed_us(fn, reps=5):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = float("inf")
    fn()
    for _ in range(reps):
        a.record()
        fn()
        b.record()
        b.synchronize()
        best = min(best, a.elapsed_time(b) * 1e3)
    return best


def time_steps(model, opt, x, steps):
    def step():
        opt.zero_grad(set_to_none=True)
        model(x).sum().backward()
        opt.step()

    for _ in range(max(3, steps // 5)):
        step()
    torch.cuda.synchronize()
    dist.barrier()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / steps


def worker(rank, nproc, configs, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=nproc)
    dev = torch.device("cuda", rank)
    probe = 20_000_000
    cycles_per_us = probe / elapsed_us(lambda: torch.cuda._sleep(probe))
    for layers, backward_us in configs:
        sizes = parse_layers(layers)
        total = sum(sizes)
        us = [backward_us * n / total for n in sizes]
        cycles = [round(u * cycles_per_us) for u in us]
        if rank == 0:
            print(f"# pytorch {torch.__version__}: {nproc} ranks, {len(sizes)} layers, {total / 1e6:.1f} M params,"
                  f" backward {backward_us:.0f} us, _sleep {cycles_per_us:.1f} cycles/us", flush=True)
            for i, c in enumerate(cycles):
                print(f"CALIBRATION pytorch _sleep layer {i}: asked {us[i]:.1f} us,"
                      f" measured {elapsed_us(lambda: torch.cuda._sleep(c)):.1f} us", flush=True)
        steps = max(10, min(300, int(2e6 / (backward_us * 1.3))))
        x = torch.ones(1, device=dev)
        model = SyntheticModel(sizes, cycles, dev)
        plain = time_steps(model, torch.optim.SGD(model.parameters(), lr=1e-3), x, steps)
        ddp = DistributedDataParallel(model, device_ids=[rank])
        with_ddp = time_steps(ddp, torch.optim.SGD(ddp.parameters(), lr=1e-3), x, steps)
        if rank == 0:
            print(f"RESULT pytorch layers={len(sizes)} params={total} backward_us={backward_us:.0f}"
                  f" no_allreduce_ms={plain:.3f} ddp_ms={with_ddp:.3f}"
                  f" overhead_pct={100 * (with_ddp - plain) / plain:.2f}", flush=True)
        del ddp, model
        torch.cuda.empty_cache()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nproc", type=int, default=torch.cuda.device_count())
    p.add_argument("--config", action="append", required=True, help="LAYERS:BACKWARD_US, e.g. 8x16.75M:1500")
    p.add_argument("--port", type=int, default=29533)
    a = p.parse_args()
    configs = [(c.rsplit(":", 1)[0], float(c.rsplit(":", 1)[1])) for c in a.config]
    mp.spawn(worker, args=(a.nproc, configs, a.port), nprocs=a.nproc, join=True)


if __name__ == "__main__":
    main()
