"""Forward time of rnndoc.layers.forward(module, x) against module(x), as ratios in one run.

Setting (issue 3): torch.no_grad(), eval mode, float32, CPU, N=32, L=128,
input_size = hidden_size = 256, one layer, batch_first=False. The two sides run in
interleaved rounds and the ratio is the median over rounds (as in bench_backward.py), so
that a shared, noisy machine slows both alike. Targets: RNN <= 1.2, GRU <= 1.3,
LSTM <= 3.0 against torch's default (oneDNN) LSTM and <= 1.3 with oneDNN disabled.
"oneDNN disabled" (``torch.backends.mkldnn.flags(enabled=False)``) holds for both sides:
torch's LSTM then runs ATen's per-step products, and rnndoc's products fall back to ATen's
mm too (rnndoc.layers.products honours the flag), so that row compares the two on the same
GEMM kernels. The kernels each side ran are printed below the table.
Run with `nox -s bench`; arguments: --threads N (default: torch's default), --rounds R.
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import warnings

import torch
from bench_backward import kernels, ratio

from rnndoc.layers import forward

N, L, SIZE = 32, 128, 256
TARGETS = {"RNN": 1.2, "GRU": 1.3, "LSTM": 3.0, "LSTM (oneDNN off)": 1.3}


@contextlib.contextmanager
def onednn_off():
    """oneDNN disabled for torch and for rnndoc (torch warns about TF32 on Intel GPUs when the flag is set)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="TF32 acceleration on top of oneDNN")
        with torch.backends.mkldnn.flags(enabled=False):
            yield


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
            cases = [(name, contextlib.nullcontext)] + (
                [("LSTM (oneDNN off)", onednn_off)] if name == "LSTM" else []
            )
            for label, context in cases:
                with context():
                    rows.append((label, *ratio(ours, theirs, args.rounds)))
                    used.append(f"{label:<20}rnndoc: {kernels(ours)}; torch: {kernels(theirs)}")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, Python {platform.python_version()}")
    print(f"N={N}, L={L}, input_size=hidden_size={SIZE}, float32, CPU, eval, no_grad")
    print(f"{'layer':<20}{'rnndoc ms':>12}{'torch ms':>12}{'ratio':>8}{'target':>8}  met")
    failed = 0
    for name, median, ours_s, theirs_s in rows:
        met = median <= TARGETS[name]
        failed += not met
        print(
            f"{name:<20}{ours_s * 1e3:>12.2f}{theirs_s * 1e3:>12.2f}{median:>8.2f}{TARGETS[name]:>8.1f}  {'yes' if met else 'NO'}"
        )
    print("matrix-product kernels per call (counted in one untimed call):", *used, sep="\n  ")
    print("'oneDNN off' disables oneDNN for both sides: both then run ATen's mm (see the kernels above).")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
