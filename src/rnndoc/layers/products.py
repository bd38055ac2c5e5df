r"""The matrix products by the layers' weights: plain ATen, or oneDNN with the weight packed once.

Every product of :mod:`rnndoc.layers` by a weight :math:`W` (out, in) goes through
``linear`` (:math:`x W^\top`, plus an optional term) or ``matmul`` (:math:`x W`), or through
``@`` on a weight from ``pack``: ``x @ w.T`` is ``linear(x, w)``, ``x @ w`` is ``matmul(x, w)``.
Given a tensor they are ``torch.addmm`` and ``@``, nothing else. Given a ``Packed`` weight
they may call oneDNN's matrix product on the weight reordered once into oneDNN's blocked
layout, for a whole sweep over time.

Which of the two is faster depends on the CPU: the project's issues report oneDNN 2-3 times
faster than ATen's float32 ``mm`` (MKL's sgemm) for the per-step products on an AMD EPYC, and
slower on an Intel Xeon for the small per-step products and the weight gradients; ``nox -s
bench`` prints both kernels' times on the machine it runs on. So nothing is assumed: where oneDNN is *allowed*, ``pack`` and
``transposed_products`` time both kernels on the product's shapes, once per process and per
shape, dtype and thread count (as ``torch.backends.cudnn.benchmark`` does), and the packing
itself (oneDNN's reorder of W, paid once per sweep); the times are cached in ``_MEASURED`` (a
few interleaved runs, bounded by ``_BUDGET_S``). One rule, ``_onednn_wins``, decides from them:
oneDNN only where its products *and* its one packing over the sweep's ``uses`` products take
less than ``_MARGIN`` of ATen's time; a near tie goes to ATen, the plain path, so that two
processes timing the same tie do not choose differently.

oneDNN is allowed only where the packed product is the same product in the same precision
and nothing needs its derivative (``onednn_applies``): float32 CPU tensors, oneDNN built in
and enabled (``torch.backends.mkldnn.flags``), full float32 matmul precision, no autocast,
and autograd recording nothing (the oneDNN operators have no derivative: autograd would
silently give None). The operators are private (``torch.ops.mkldnn._reorder_linear_weight``,
``_linear_pointwise``): they are tried once per process on a small example against float64
and left alone if one fails, is missing or rounds coarser than float32. Everywhere else,
float64 included, the plain path runs and nothing is timed.

``Packed`` is a tensor subclass aliasing :math:`W` (no copy), so that used as a tensor it *is*
:math:`W`; only its reflected ``@`` differs. That is on purpose: Python asks a right operand's
``__rmatmul__`` first only when its type subclasses the left operand's; otherwise
``torch.Tensor.__matmul__`` runs first, fails with a ``TypeError`` that torch formats at length,
and returns ``NotImplemented``: on the development machine that took about as long as a
per-step product itself (the reason for the subclass, not a number the book relies on).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from typing import overload

import torch

from .._autograd import recorded

__all__: list[str] = []  # internal: the steps and the stack multiply through these

#: The measurements: (product, shapes, dtype, threads) -> least times (s) of the plain product, the
#: packed product, and (for ``pack``'s products) the packing of the weight (``_reorder_linear_weight``).
_MEASURED: dict[tuple, tuple[float, ...]] = {}
#: What ``_onednn_wins`` chose from them, by (key, uses): printed by ``nox -s bench``.
_CHOSEN: dict[tuple, bool] = {}
#: Timing one product's two kernels: at least _MIN_RUNS interleaved runs of each (after one
#: warm-up, where oneDNN builds its kernel), at most _MAX_RUNS, more only within _BUDGET_S.
#: Five runs at least: on a shared machine a few runs can all be descheduled (seen: 5 ms for a
#: 20 us product), and the least of runs spread wider is likelier to be the kernel's own time.
_MIN_RUNS, _MAX_RUNS, _BUDGET_S = 5, 9, 0.002
#: Rows timed at most: a product over more rows (the whole sequence's) is timed on its first
#: _TIMED_ROWS, which bounds the cost (a GEMM's speed per row hardly changes past a few hundred).
_TIMED_ROWS = 512
#: oneDNN is taken only where it wins clearly: its time, packing included, below this fraction of
#: ATen's (the issues report 2-3x where it wins; a tie or a few percent, within timing noise on a
#: shared machine, goes to ATen).
_MARGIN = 0.8


class Packed(torch.Tensor):
    """A weight W (out, in), aliased, with its oneDNN packs, made on first use and kept for the sweep.

    ``x @ p.T`` is ``linear(x, p)`` and ``x @ p`` is ``matmul(x, p)``. ``for_linear`` packs W (for
    :math:`x W^\\top`), ``for_matmul`` packs :math:`W^\\top` (for :math:`x W`, the backward's
    product); ``rows`` is the expected rows of x, a hint. ``packed_linear`` / ``packed_matmul``
    False: that product runs plain (``pack`` sets them from the measurement).
    """

    __torch_function__ = torch._C._disabled_torch_function_impl  # type: ignore[assignment]  # results: plain tensors

    weight: torch.Tensor
    rows: int
    packed_linear: bool
    packed_matmul: bool

    def __new__(
        cls, weight: torch.Tensor, rows: int, *, packed_linear: bool = True, packed_matmul: bool = True
    ):
        self = torch.Tensor._make_subclass(cls, weight.detach())  # shares W's storage: no copy
        self.weight, self.rows, self.packed_linear, self.packed_matmul = (
            weight,
            rows,
            packed_linear,
            packed_matmul,
        )
        return self

    def __init__(self, *args: object, **kwargs: object) -> None:  # all done in __new__
        pass

    @functools.cached_property
    def for_linear(self) -> torch.Tensor:  # W, packed (out, in)
        return torch.ops.mkldnn._reorder_linear_weight(self.weight.contiguous(), self.rows)

    @functools.cached_property
    def for_matmul(self) -> torch.Tensor:  # W^T, packed (in, out)
        return torch.ops.mkldnn._reorder_linear_weight(self.weight.T.contiguous(), self.rows)

    @functools.cached_property
    def T(self) -> _PackedT:  # type: ignore[override]  # W^T as a tensor; x @ p.T: linear(x, p)
        return _PackedT(self)

    def __rmatmul__(self, x: torch.Tensor) -> torch.Tensor:
        return matmul(x, self)

    def __repr__(self, *, tensor_contents: object = None) -> str:  # type: ignore[override]
        return f"Packed(weight of shape {tuple(self.shape)}, rows={self.rows})"


class _PackedT(torch.Tensor):
    """``p.T`` for a ``Packed`` p: :math:`W^\\top` as a tensor (a view), whose reflected ``@`` is ``linear``."""

    __torch_function__ = torch._C._disabled_torch_function_impl  # type: ignore[assignment]

    packed: Packed

    def __new__(cls, packed: Packed):
        self = torch.Tensor._make_subclass(cls, packed.weight.detach().T)  # (in, out), a view of W
        self.packed = packed
        return self

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    @property
    def T(self) -> Packed:  # type: ignore[override]
        return self.packed

    def __rmatmul__(self, x: torch.Tensor) -> torch.Tensor:
        return linear(x, self.packed)

    def __repr__(self, *, tensor_contents: object = None) -> str:  # type: ignore[override]
        return f"{self.packed!r}.T"


Weight = torch.Tensor | Packed


def linear(
    x: torch.Tensor, weight: Weight, add: torch.Tensor | None = None, out: torch.Tensor | None = None
) -> torch.Tensor:
    r""":math:`x W^\top` (+ ``add``, of shape (M, out), or (out,) as a bias); x (M, in) -> (M, out), in ``out`` if given."""
    if isinstance(weight, Packed):
        if weight.packed_linear:
            if add is None or add.dim() == 1:  # a bias rides along in the product
                found = torch.ops.mkldnn._linear_pointwise(x, weight.for_linear, add, "none", [], "")
            else:
                found = torch.ops.mkldnn._linear_pointwise.binary(x, add, weight.for_linear, None, "add")
            return found if out is None else out.copy_(found)
        weight = weight.weight
    return torch.matmul(x, weight.T, out=out) if add is None else torch.addmm(add, x, weight.T, out=out)


def matmul(x: torch.Tensor, weight: Weight, add: torch.Tensor | None = None) -> torch.Tensor:
    r""":math:`x W` (+ ``add``, of shape (M, in)); x (M, out) -> (M, in)."""
    if isinstance(weight, Packed):
        if weight.packed_matmul:
            if add is None:
                return torch.ops.mkldnn._linear_pointwise(x, weight.for_matmul, None, "none", [], "")
            return torch.ops.mkldnn._linear_pointwise.binary(x, add, weight.for_matmul, None, "add")
        weight = weight.weight
    return x @ weight if add is None else torch.addmm(add, x, weight)


def transposed_products(a: torch.Tensor, others: list[torch.Tensor], use_onednn: bool) -> list[torch.Tensor]:
    r""":math:`a^\top b` for each ``b`` in ``others``: a (M, P), b (M, Q) -> (P, Q), summed over M rows.

    The weight gradients, summed over time and batch (M = L*N). Where ``use_onednn`` (from
    :func:`onednn_applies`) and oneDNN measured faster for the shapes, :math:`a^\top` is laid out
    once for all the products, and each is computed as :math:`(b^\top a)^\top`; else ``a.T @ b``.
    """
    fast = [use_onednn and _packed_is_faster(
        ("transposed", *a.shape, b.shape[1], a.dtype, torch.get_num_threads()),
        functools.partial(_timed_transposed, a[:_TIMED_ROWS], b[:_TIMED_ROWS]), uses=1,
    ) for b in others]  # fmt: skip
    a_t = a.T.contiguous() if any(fast) else a.T  # (P, M): oneDNN's weight operand, laid out once
    return [_transposed_onednn(a_t, b) if f else a.T @ b for f, b in zip(fast, others, strict=True)]  # (P, Q)


def _timed_transposed(a: torch.Tensor, b: torch.Tensor) -> tuple[Callable[[], object], Callable[[], object]]:
    """The plain and the oneDNN :math:`a^\top b`, to be timed (the oneDNN one lays out its :math:`a^\top`)."""
    return lambda: a.T @ b, lambda: _transposed_onednn(a.T.contiguous(), b)


def _transposed_onednn(a_t: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """:math:`(b^\\top a)^\\top` through oneDNN's GEMM, a_t (P, M) contiguous, b (M, Q) -> (P, Q)."""
    return torch.ops.mkldnn._linear_pointwise(b.T.contiguous(), a_t, None, "none", [], "").T.contiguous()


def onednn_applies(*tensors: torch.Tensor | None) -> bool:
    """True when products among ``tensors`` (None skipped) may run packed through oneDNN (allowed, not chosen)."""
    given = [t for t in tensors if t is not None]
    plain_float32 = all(
        type(t) in (torch.Tensor, torch.nn.Parameter)
        and t.dtype == torch.float32
        and t.device.type == "cpu"
        and t.layout == torch.strided
        and t.numel() > 0  # oneDNN refuses a product with no rows (a batch of 0)
        for t in given
    )
    return (
        bool(given)
        and plain_float32
        and _full_float32_precision()
        and torch.backends.mkldnn.is_available()
        and torch._C._get_mkldnn_enabled()  # torch.backends.mkldnn.enabled / .flags(enabled=...)
        and not torch.is_autocast_enabled("cpu")
        and not any(recorded(t) for t in given)
        and _onednn_works()
    )


def _full_float32_precision() -> bool:
    """Whether float32 products must run in float32 (no TF32 or bfloat16), read without raising.

    ``torch.get_float32_matmul_precision`` raises once the newer per-backend settings
    (``torch.backends.*.fp32_precision``) have been used; then those settings are read instead.
    """
    onednn = getattr(getattr(torch.backends.mkldnn, "matmul", None), "fp32_precision", "none")
    try:
        legacy = torch.get_float32_matmul_precision()
    except RuntimeError:  # the newer API is in use: it alone says what oneDNN may do
        legacy = "highest"
    return legacy == "highest" and onednn in ("none", "ieee")


@overload
def pack(weight: torch.Tensor, rows: int, use_onednn: bool, uses: int = 1) -> Weight: ...
@overload
def pack(weight: None, rows: int, use_onednn: bool, uses: int = 1) -> None: ...
def pack(weight: torch.Tensor | None, rows: int, use_onednn: bool, uses: int = 1) -> Weight | None:
    """``weight`` as a ``Packed`` where ``use_onednn`` (from :func:`onednn_applies`) and oneDNN wins, else itself.

    Measured for (``rows``, in) x W^T and (``rows``, out) x W (at most ``_TIMED_ROWS`` rows timed),
    each with the packing of its operand, once per process, shape and thread count; ``uses`` is
    how many such products one packing serves (a sweep's steps), over which its cost is spread.
    """
    if not use_onednn or weight is None or rows < 1:
        return weight
    key = (rows, *weight.shape, weight.dtype, torch.get_num_threads())

    def candidates(
        product: Callable, size: int, packs: Callable[[Packed], object]
    ) -> tuple[Callable[[], object], ...]:
        timed_rows = min(rows, _TIMED_ROWS)
        operand = torch.rand(timed_rows, size, generator=torch.Generator().manual_seed(0), dtype=weight.dtype)
        forced = Packed(weight, rows)  # both products packed, each packing made on first use and kept
        return (
            lambda: product(operand, weight),
            lambda: product(operand, forced),
            lambda: packs(Packed(weight, rows)),
        )

    timed_uses = uses * rows / min(rows, _TIMED_ROWS)  # the products timed, in rows: uses of the packing
    packed_linear = _packed_is_faster(("linear", *key), lambda: candidates(linear, weight.shape[1],
                                      lambda p: p.for_linear), timed_uses)  # fmt: skip
    packed_matmul = _packed_is_faster(("matmul", *key), lambda: candidates(matmul, weight.shape[0],
                                      lambda p: p.for_matmul), timed_uses)  # fmt: skip
    if not (packed_linear or packed_matmul):
        return weight
    return Packed(weight, rows, packed_linear=packed_linear, packed_matmul=packed_matmul)


def _packed_is_faster(
    key: tuple, candidates: Callable[[], tuple[Callable[[], object], ...]], uses: float
) -> bool:
    """Whether oneDNN wins for ``key`` (``candidates()``: plain, packed[, packing]): timed once, then cached."""
    if key not in _MEASURED:
        with torch.no_grad():
            _MEASURED[key] = _least_times(*candidates())
    _CHOSEN[key, uses] = wins = _onednn_wins(_MEASURED[key], uses)
    return wins


def _onednn_wins(times: tuple[float, ...], uses: float) -> bool:
    """The one rule: ``uses`` packed products plus one packing under ``_MARGIN`` times ``uses`` plain products.

    ``times`` as in ``_MEASURED``: (plain, packed) or (plain, packed, packing), least times (s);
    ``uses``: how many of the timed products one packing serves (a product over more rows than
    were timed counts as several).
    """
    plain, packed, *packing = times
    return uses * packed + sum(packing) < _MARGIN * uses * plain


def _least_times(*calls: Callable[[], object]) -> tuple[float, ...]:
    """Each call's least time (s) over interleaved runs, after one untimed run of each."""
    for call in calls:
        call()  # oneDNN builds its kernel for a shape on first use
    least = [math.inf] * len(calls)
    start = time.perf_counter()
    for run in range(_MAX_RUNS):
        if run >= _MIN_RUNS and time.perf_counter() - start > _BUDGET_S:
            break
        for i, call in enumerate(calls):
            begin = time.perf_counter()
            call()
            least[i] = min(least[i], time.perf_counter() - begin)
    return tuple(least)


@functools.cache
def _onednn_works() -> bool:
    """The private operators run and agree with float64 to float32 round-off (tried once)."""
    generator = torch.Generator().manual_seed(0)
    x, w, add = (
        torch.randn(shape, generator=generator, dtype=torch.float64) for shape in ((3, 5), (4, 5), (3, 4))
    )
    expected = [x @ w.T, add + x @ w.T, add[0] + x @ w.T, add @ w, x + add @ w, add.T @ x]  # (3, 4), ...
    try:
        with torch.no_grad():
            weight, x32, add32 = Packed(w.float(), 3), x.float(), add.float()
            found = [linear(x32, weight), linear(x32, weight, add32), linear(x32, weight, add32[0]),
                     matmul(add32, weight), matmul(add32, weight, x32), _transposed_onednn(add32.T.contiguous(), x32)]  # fmt: skip
        # float32 rounds at 6e-8 relative; bfloat16 (4e-3) or TF32 (5e-4) arithmetic fails this
        return all(
            type(f) is torch.Tensor and f.shape == e.shape and bool((f.double() - e).abs().max() <= 1e-5)
            for f, e in zip(found, expected, strict=True)
        )
    except Exception:  # noqa: BLE001 (any failure of a private operator means: use the plain path)
        return False
