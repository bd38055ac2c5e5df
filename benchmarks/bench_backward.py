"""Forward plus backward from scratch against torch's forward plus autograd backward, as ratios in one run.

Setting (issue 9): float32, CPU, N=32, L=128, input_size = hidden_size = 256, one layer.
rnndoc: ``rnndoc.layers.backward(module, x, h_0, grad_output, grad_hx)`` (its forward sweep
and its backward sweep). torch: ``module(x, h_0)`` then ``torch.autograd.grad`` of
(output, h_n[, c_n]) with respect to the input, h_0[, c_0] and every parameter. The two are
timed in interleaved rounds; the ratio is the median over rounds of (rnndoc / torch). Targets
(issue 15): RNN <= 1.0, GRU <= 1.0, LSTM <= 1.3, and rnndoc keeping no more bytes than torch. Memory: the bytes each keeps for its backward pass,
counted the same way for both: unique storages, excluding the parameters, the input
(x, h_0, c_0) and the output (output, h_n, c_n); torch's through
``torch.autograd.graph.saved_tensors_hooks``, rnndoc's in the tape its forward sweep fills.
Kernels: the matrix-product kernels each side called in one untimed call, counted by op
(oneDNN's fused RNN layer, oneDNN's GEMM, ATen's mm), so that the output says which
kernels ran rather than which were expected; then the CPU and rnndoc's measured choice of
kernel for each product shape (rnndoc.layers.products times ATen against oneDNN once per shape).
The table's last column, ``products``: the same ratio for rnndoc's matrix products alone
(``products_only``), the lower bound of the ratio for any step-by-step design on this machine;
``floor``: the same products plus the fewest elementwise kernel calls each step must make
(``FLOOR_OPS``), in the same Python loop, the lower bound for a step-by-step design in Python.
Run with ``nox -s bench``; arguments: --threads N, --rounds R.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import platform
import statistics
import time

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from rnndoc.layers import backward, products
from rnndoc.layers.boundary import read_call
from rnndoc.layers.sweep import run_layers

N, L, SIZE = 32, 128, 256
TARGETS = {"RNN": 1.0, "GRU": 1.0, "LSTM": 1.3}
#: Printed below the table: what its last column is.
PRODUCTS_NOTE = (
    "products: rnndoc's matrix products alone (no activation, no elementwise step, no Python step loop), "
    "by the kernels it chose, over torch's whole call, median of interleaved ratios: the lower bound of "
    "the ratio for any step-by-step design with these kernels (a ratio above the target here means no "
    "such design can meet it on this machine); floor: the same products plus the fewest elementwise kernel "
    "calls each step must make (one per tensor its equations define: FLOOR_OPS), in the same Python loop"
)


def cpu_model() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo, else what platform knows)."""
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown CPU"


def setting() -> str:
    """The machine and library line printed first by both scripts."""
    return (
        f"CPU: {cpu_model()}; torch {torch.__version__}, {torch.get_num_threads()} threads, "
        f"oneDNN {'on' if torch.backends.mkldnn.is_available() and torch.backends.mkldnn.enabled else 'off'}, "
        f"Python {platform.python_version()}"
    )


def measured_choices() -> list[str]:
    """rnndoc's measured kernel per product shape so far: ``linear (32, 256) x (1024, 256)^T ATen (timed ...)``.

    Each line: the shapes, the choice (``products._onednn_wins``), the least times of one product
    by each kernel and, for a packed weight, of its packing and how many products it served.
    """
    lines = []
    for (key, uses), wins in sorted(products._CHOSEN.items(), key=str):
        plain, packed, *packing = products._MEASURED[key]
        kind, *shape = key[:-2]
        chosen = "oneDNN" if wins else "ATen"
        operands = {
            "linear": lambda r, o, i: f"({r}, {i}) x ({o}, {i})^T",
            "matmul": lambda r, o, i: f"({r}, {o}) x ({o}, {i})",
            "transposed": lambda m, p, q: f"({m}, {p})^T x ({m}, {q})",
        }[kind](*shape)
        rows = shape[0]
        timed = f"on its first {products._TIMED_ROWS} rows" if rows > products._TIMED_ROWS else "whole"
        packs = f" + packing {packing[0] * 1e6:.0f} us once for {uses:g} products" if packing else ""
        lines.append(
            f"{kind:<10} {operands:<28} {chosen:<6} (timed {timed}: ATen {plain * 1e6:.0f} us, "
            f"oneDNN {packed * 1e6:.0f} us{packs})"
        )
    return lines


def _problem(cls):
    torch.manual_seed(0)
    module = cls(SIZE, SIZE)
    x = torch.randn(L, N, SIZE)  # (L, N, H_in)
    h_0 = torch.randn(1, N, SIZE)  # (1, N, H)
    hx = (h_0, torch.randn(1, N, SIZE)) if cls is torch.nn.LSTM else h_0
    grad_output = torch.randn(L, N, SIZE)  # (L, N, H)
    grad_hx = tuple(torch.randn_like(s) for s in hx) if isinstance(hx, tuple) else torch.randn_like(hx)
    return module, x, hx, grad_output, grad_hx


def _states(hx):
    return list(hx) if isinstance(hx, tuple) else [hx]


def torch_forward_backward(module, x, hx, grad_output, grad_hx):
    x = x.detach().requires_grad_()
    states = [s.detach().requires_grad_() for s in _states(hx)]
    output, state = module(x, tuple(states) if len(states) == 2 else states[0])
    return torch.autograd.grad(
        [output, *_states(state)], [x, *states, *module.parameters()], [grad_output, *_states(grad_hx)]
    )


def _storages(tensors, excluded) -> int:
    """Bytes of the unique storages among ``tensors``, leaving out those of ``excluded``."""
    skip = {t.untyped_storage().data_ptr() for t in excluded}
    unique = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in tensors}
    return sum(nbytes for ptr, nbytes in unique.items() if ptr not in skip)


def torch_saved_bytes(module, x, hx) -> int:
    saved = []

    def pack(tensor):
        saved.append(tensor)
        return tensor

    x = x.detach().requires_grad_()
    states = [s.detach().requires_grad_() for s in _states(hx)]
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        output, state = module(x, tuple(states) if len(states) == 2 else states[0])
    return _storages(saved, [*module.parameters(), x, *states, output, *_states(state)])


def rnndoc_saved_bytes(module, x, hx) -> int:
    call, tape = read_call(module, x, hx), []
    with torch.no_grad():  # as rnndoc.layers.backward runs its forward sweep
        output, h_n, c_n = run_layers(call.x, call.h_0, call.c_0, call.params, mode=call.mode,
                                      num_layers=1, bidirectional=False, tape=tape)  # fmt: skip

    def tensors(value):
        if isinstance(value, torch.Tensor):
            return [value]
        if isinstance(value, dict) or hasattr(value, "__dataclass_fields__"):  # a Tape, or a dict
            value = list((value if isinstance(value, dict) else vars(value)).values())
        return [t for item in value for t in tensors(item)] if isinstance(value, list | tuple) else []

    outputs = [output, h_n] + ([] if c_n is None else [c_n])
    return _storages(tensors(tape), [*module.parameters(), x, *_states(hx), *outputs])


#: The kernels a matrix product can run in, by op name (the ops under autograd, as dispatched).
KERNELS = {
    "mkldnn_rnn_layer": "oneDNN RNN layer",
    "mkldnn_rnn_layer_backward": "oneDNN RNN layer backward",
    "_linear_pointwise": "oneDNN GEMM",
    "mm": "ATen mm",
    "addmm": "ATen mm",
    "bmm": "ATen mm",
}


class _CountOps(TorchDispatchMode):
    """Counts every op dispatched while it is active (below autograd, so backward ops count too)."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: collections.Counter[str] = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[func.overloadpacket.__name__] += 1
        return func(*args, **(kwargs or {}))


def kernels(call) -> str:
    """The matrix-product kernels ``call()`` ran, with counts: ``"oneDNN GEMM x259, ATen mm x2"``."""
    with _CountOps() as mode:
        call()
    found: collections.Counter[str] = collections.Counter()
    for name, count in mode.counts.items():
        if name in KERNELS:
            found[KERNELS[name]] += count
    return ", ".join(f"{kernel} x{count}" for kernel, count in found.most_common()) or "no matrix product"


def ratio(ours, theirs, rounds: int) -> tuple[float, float, float]:
    """Median over interleaved rounds of the time ratio; also the median times (s)."""
    ours(), theirs()  # warm up
    ratios, t_ours, t_theirs = [], [], []
    for _ in range(rounds):
        start = time.perf_counter()
        ours()
        middle = time.perf_counter()
        theirs()
        end = time.perf_counter()
        t_ours.append(middle - start)
        t_theirs.append(end - middle)
        ratios.append((middle - start) / (end - middle))
    return statistics.median(ratios), statistics.median(t_ours), statistics.median(t_theirs)


#: The fewest elementwise kernel calls a step must make besides its products, by gate count
#: (1 RNN, 3 GRU, 4 LSTM): one per tensor its equations define at each step. Forward: RNN h_t;
#: GRU sigma of [r, z], n_t, h_t; LSTM the activations of [i, f, g, o], c_t, tanh c_t, h_t.
#: Backward: RNN delta_t; GRU [delta r, delta z, delta n], delta q_t, delta h_t z_t; LSTM delta c_t,
#: [delta i, delta f, delta g, delta o], delta c_t f_t. Each as the cheapest kernel there is, one binary op
#: into a preallocated tensor of that size (fewer than any real step: most are ternary or transcendental).
FLOOR_OPS = {1: ((1,), (1,)), 3: ((2, 1, 1), (3, 1, 1)), 4: ((4, 1, 1, 1), (1, 4, 1))}


def products_only(module, x: torch.Tensor, with_backward: bool, floor: bool = False):
    """A call that runs only the matrix products of rnndoc's sweeps over ``x``, by rnndoc's chosen kernels.

    The lower bound of any design that multiplies step by step with these kernels: forward, the
    input projection (one product of all L*N rows, its biases inside) and L recurrent products
    (N, H) x W_hh^T, each adding its step's input part; ``with_backward``, also the backward
    sweep's: L products delta_t W_hh, the weight gradients' two sums over L*N rows and the
    input's gradient delta W_ih. Every product of the same shapes as rnndoc's (the values
    differ: nothing else is computed, h is not updated). With ``floor``, each step also makes
    the fewest elementwise kernel calls a step of its kind must make (``FLOOR_OPS``), in the same
    Python loop: the lower bound of a step-by-step design that calls torch from Python.
    """
    w_ih, w_hh = module.weight_ih_l0.detach(), module.weight_hh_l0.detach()  # (G*H, H_in), (G*H, H)
    bias = (module.bias_ih_l0 + module.bias_hh_l0).detach()  # (G*H,)
    length, batch = x.shape[:2]
    hidden = w_hh.shape[1]
    h = torch.randn(batch, hidden)  # (N, H)
    delta = torch.randn(length, batch, w_hh.shape[0])  # (L, N, G*H)
    forward_ops, backward_ops = FLOOR_OPS[w_hh.shape[0] // hidden] if floor else ((), ())
    # per step: (out, a, b) for torch.mul(a, b, out=out), each (N, blocks*H)
    operands = {blocks: [torch.rand(batch, blocks * hidden) for _ in range(3)] for blocks in (1, 2, 3, 4)}

    def elementwise(ops) -> None:
        for blocks in ops:
            out, a, b = operands[blocks]
            torch.mul(a, b, out=out)

    def call() -> None:
        with torch.no_grad():
            fast = products.onednn_applies(x, w_ih, w_hh)
            packed_ih = products.pack(w_ih, length * batch, fast)
            packed_hh = products.pack(w_hh, batch, fast, uses=length)
            x_part = products.linear(x.flatten(0, 1), packed_ih, add=bias).view(length, batch, -1)
            for t in range(length):
                products.linear(h, packed_hh, add=x_part[t])  # (N, G*H)
                elementwise(forward_ops)
            if with_backward:
                for t in range(length):
                    products.matmul(delta[t], packed_hh)  # (N, H)
                    elementwise(backward_ops)
                flat = delta.flatten(0, 1)  # (L*N, G*H)
                products.transposed_products(flat, [x.flatten(0, 1), h.repeat(length, 1)], fast)
                products.matmul(flat, products.pack(w_ih, length * batch, fast))  # (L*N, H_in)

    return call


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    parser.add_argument("--rounds", type=int, default=30, help="interleaved rounds per layer (default 30)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(setting())
    print(
        f"N={N}, L={L}, input_size=hidden_size={SIZE}, float32, CPU; forward + backward (input, h_0, params)"
    )
    print("interleaved rounds, median of the ratios; the machine may be shared: read ratios, not times")
    header = f"{'layer':<6}{'rnndoc ms':>11}{'torch ms':>10}{'ratio':>7}{'target':>8}  met"
    print(header + f"{'rnndoc MiB':>12}{'torch MiB':>11}{'products':>10}{'floor':>7}")
    failed, used = 0, []
    for name, cls in (("RNN", torch.nn.RNN), ("GRU", torch.nn.GRU), ("LSTM", torch.nn.LSTM)):
        problem = _problem(cls)
        ours_call, theirs_call = lambda p=problem: backward(*p), lambda p=problem: torch_forward_backward(*p)
        median, ours, theirs = ratio(ours_call, theirs_call, args.rounds)
        bound, _, _ = ratio(products_only(problem[0], problem[1], True), theirs_call, args.rounds)
        floor, _, _ = ratio(products_only(problem[0], problem[1], True, floor=True), theirs_call, args.rounds)
        ours_mib = rnndoc_saved_bytes(*problem[:3]) / 2**20
        theirs_mib = torch_saved_bytes(*problem[:3]) / 2**20
        met = median <= TARGETS[name] and ours_mib <= theirs_mib
        failed += not met
        print(
            f"{name:<6}{ours * 1e3:>11.1f}{theirs * 1e3:>10.1f}{median:>7.2f}{TARGETS[name]:>8.1f}  "
            f"{'yes' if met else 'NO ':<3}{ours_mib:>12.2f}{theirs_mib:>11.2f}{bound:>10.2f}{floor:>7.2f}"
        )
        used.append(f"{name:<6}rnndoc: {kernels(ours_call)}; torch: {kernels(theirs_call)}")
    print(PRODUCTS_NOTE)
    print("matrix-product kernels per call (counted in one untimed call):", *used, sep="\n  ")
    print("rnndoc's measured choice per product (timed once per process; least times):", *measured_choices(),
          sep="\n  ")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
