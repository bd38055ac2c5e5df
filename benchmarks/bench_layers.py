"""Forward time of rnndoc.layers.forward(module, x) against module(x), as ratios in one run.

Setting (issue 3): torch.no_grad(), eval mode, float32, CPU, N=32, L=128,
input_size = hidden_size = 256, one layer, batch_first=False. The two sides run in
interleaved rounds and the ratio is the median over rounds (as in bench_backward.py), so
that a shared, noisy machine slows both alike. Targets (issue 15), against torch's defaults
(its float32 CPU LSTM runs oneDNN's fused layer): RNN <= 1.0, GRU <= 1.0, LSTM <= 1.3.
rnndoc measures, once per product shape, whether ATen's mm or oneDNN's packed GEMM is faster
on this machine (rnndoc.layers.products); the warm-up call before the timed rounds pays for
that. The CPU, the kernels each side ran and rnndoc's measured choices are printed below the table.
The last column, ``products``, times rnndoc's matrix products alone against torch's whole call
(bench_backward.products_only): the lower bound of the ratio for a step-by-step design;
``floor`` adds the fewest elementwise kernel calls each step must make (bench_backward.FLOOR_OPS),
in the same Python loop: the lower bound for a step-by-step design in Python.
Run with `nox -s bench`; arguments: --threads N (default: torch's default), --rounds R.
"""

from __future__ import annotations

import argparse

import torch
from bench_backward import PRODUCTS_NOTE, kernels, measured_choices, products_only, ratio, setting

from rnndoc.layers import forward

N, L, SIZE = 32, 128, 256
TARGETS = {"RNN": 1.0, "GRU": 1.0, "LSTM": 1.3}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    parser.add_argument("--rounds", type=int, default=30, help="interleaved rounds per layer (default 30)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    x = torch.randn(L, N, SIZE)  # (L, N, H_in), float32
    rows, used = [], []
    with torch.no_grad():
        for name, cls in (("RNN", torch.nn.RNN), ("GRU", torch.nn.GRU), ("LSTM", torch.nn.LSTM)):
            module = cls(SIZE, SIZE).eval()
            ours, theirs = lambda m=module: forward(m, x), lambda m=module: m(x)
            bound, _, _ = ratio(products_only(module, x, with_backward=False), theirs, args.rounds)
            floor, _, _ = ratio(
                products_only(module, x, with_backward=False, floor=True), theirs, args.rounds
            )
            rows.append((name, *ratio(ours, theirs, args.rounds), bound, floor))
            used.append(f"{name:<6}rnndoc: {kernels(ours)}; torch: {kernels(theirs)}")
    print(setting())
    print(f"N={N}, L={L}, input_size=hidden_size={SIZE}, float32, CPU, eval, no_grad")
    print(
        f"{'layer':<6}{'rnndoc ms':>12}{'torch ms':>12}{'ratio':>8}{'target':>8}  met{'products':>10}{'floor':>7}"
    )
    failed = 0
    for name, median, ours_s, theirs_s, bound, floor in rows:
        met = median <= TARGETS[name]
        failed += not met
        print(
            f"{name:<6}{ours_s * 1e3:>12.2f}{theirs_s * 1e3:>12.2f}{median:>8.2f}{TARGETS[name]:>8.1f}  "
            f"{'yes' if met else 'NO ':<3}{bound:>10.2f}{floor:>7.2f}"
        )
    print(PRODUCTS_NOTE)
    print("matrix-product kernels per call (counted in one untimed call):", *used, sep="\n  ")
    print("rnndoc's measured choice per product (timed once per process; least times):", *measured_choices(),
          sep="\n  ")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
