r"""The matrix products by the layers' weights: plain ATen, or oneDNN with the weight packed once.

Every product of :mod:`rnndoc.layers` by a weight :math:`W` (out, in) goes through
``linear`` (:math:`x W^\top`, plus an optional term) or ``matmul`` (:math:`x W`).
Given a tensor they are ``torch.addmm`` and ``@``, nothing else. Given a weight from
``pack`` they call oneDNN's matrix product on the weight reordered once into oneDNN's
blocked layout, for a whole sweep over time (torch's own float32 LSTM runs oneDNN).
On the benchmark machine (an AMD EPYC, 2 threads) ATen's float32 ``mm`` goes to MKL's
sgemm, 2-3 times slower there than oneDNN: per step (32, 256) x (256, 1024), 19.4 ms
against 6.7 ms per 128 steps (issue 9).

``pack`` packs only where the packed product is the same product in the same
precision and nothing needs its derivative (``onednn_applies``): float32 CPU tensors,
oneDNN built in and enabled (``torch.backends.mkldnn.flags``), full float32 matmul
precision, no autocast, and autograd recording nothing (the oneDNN operators have no
derivative: autograd would silently give None). The operators are private
(``torch.ops.mkldnn._reorder_linear_weight``, ``_linear_pointwise``): they are tried once
per process on a small example against float64 and left alone if one fails, is missing or
rounds coarser than float32. Everywhere else, float64 included, the plain path runs.
"""

from __future__ import annotations

import functools
from typing import overload

import torch
from torch.autograd import forward_ad

__all__: list[str] = []  # internal: the steps and the stack multiply through these


class Packed:
    """A weight W (out, in) with its oneDNN packs, made on first use and kept for the sweep.

    ``for_linear`` packs W (for :math:`x W^\\top`), ``for_matmul`` packs :math:`W^\\top`
    (for :math:`x W`, the backward's product); ``rows`` is the expected rows of x, a hint.
    """

    def __init__(self, weight: torch.Tensor, rows: int) -> None:
        self.weight, self.rows = weight, rows
        self.shape, self.dtype, self.device = weight.shape, weight.dtype, weight.device

    @functools.cached_property
    def for_linear(self) -> torch.Tensor:  # W, packed (out, in)
        return torch.ops.mkldnn._reorder_linear_weight(self.weight.contiguous(), self.rows)

    @functools.cached_property
    def for_matmul(self) -> torch.Tensor:  # W^T, packed (in, out)
        return torch.ops.mkldnn._reorder_linear_weight(self.weight.T.contiguous(), self.rows)

    @property
    def T(self) -> _PackedTransposed:
        """:math:`W^\top`, so that ``x @ w.T`` reads as for a tensor."""
        return _PackedTransposed(self)

    def __rmatmul__(self, x: torch.Tensor) -> torch.Tensor:  # x @ W: (M, out) -> (M, in)
        return matmul(x, self)


class _PackedTransposed:
    """:math:`W^\top` of a :class:`Packed` W: ``x @ w.T`` is :math:`x W^\top`, (M, in) -> (M, out)."""

    def __init__(self, packed: Packed) -> None:
        self.packed = packed

    def __rmatmul__(self, x: torch.Tensor) -> torch.Tensor:
        return linear(x, self.packed)


Weight = torch.Tensor | Packed


def linear(x: torch.Tensor, weight: Weight, add: torch.Tensor | None = None) -> torch.Tensor:
    r""":math:`x W^\top` (+ ``add``, of shape (M, out), or (out,) as a bias); x (M, in) -> (M, out)."""
    if isinstance(weight, Packed):
        if add is None or add.dim() == 1:  # a bias rides along in the product
            return torch.ops.mkldnn._linear_pointwise(x, weight.for_linear, add, "none", [], "")
        return torch.ops.mkldnn._linear_pointwise.binary(x, add, weight.for_linear, None, "add")
    return x @ weight.T if add is None else torch.addmm(add, x, weight.T)


def matmul(x: torch.Tensor, weight: Weight, add: torch.Tensor | None = None) -> torch.Tensor:
    r""":math:`x W` (+ ``add``, of shape (M, in)); x (M, out) -> (M, in)."""
    if isinstance(weight, Packed):
        if add is None:
            return torch.ops.mkldnn._linear_pointwise(x, weight.for_matmul, None, "none", [], "")
        return torch.ops.mkldnn._linear_pointwise.binary(x, add, weight.for_matmul, None, "add")
    return x @ weight if add is None else torch.addmm(add, x, weight)


def transposed_products(a: torch.Tensor, others: list[torch.Tensor], use_onednn: bool) -> list[torch.Tensor]:
    r""":math:`a^\top b` for each ``b`` in ``others``: a (M, P), b (M, Q) -> (P, Q), summed over M rows.

    The weight gradients, summed over time and batch (M = L*N). Through oneDNN (``use_onednn``,
    from :func:`onednn_applies`) :math:`a^\top` is laid out once for all the products, and each
    is computed as :math:`(b^\top a)^\top`, the faster order there: for the LSTM's two,
    (1024, 4096) x (4096, 256) each, about 0.65 of ATen's time on the benchmark machine (ATen: 22 ms).
    """
    if not use_onednn:
        return [a.T @ b for b in others]
    a_t = a.T.contiguous()  # (P, M): oneDNN's weight operand, laid out once
    linear_t = torch.ops.mkldnn._linear_pointwise
    return [linear_t(b.T.contiguous(), a_t, None, "none", [], "").T.contiguous() for b in others]  # (P, Q)


def _recorded(tensor: torch.Tensor) -> bool:
    """Whether autograd (reverse or forward mode, or a torch.func transform) tracks ``tensor``."""
    return (
        (tensor.requires_grad and torch.is_grad_enabled())
        or forward_ad.unpack_dual(tensor).tangent is not None
        or torch._C._functorch.is_functorch_wrapped_tensor(tensor)
    )


def onednn_applies(*tensors: torch.Tensor | None) -> bool:
    """True when products among ``tensors`` (None skipped) may run packed through oneDNN."""
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
        and not any(_recorded(t) for t in given)
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
def pack(weight: torch.Tensor, rows: int, use_onednn: bool) -> Weight: ...
@overload
def pack(weight: None, rows: int, use_onednn: bool) -> None: ...
def pack(weight: torch.Tensor | None, rows: int, use_onednn: bool) -> Weight | None:
    """``weight`` packed for oneDNN if ``use_onednn`` (from :func:`onednn_applies`), else itself."""
    return Packed(weight, rows) if use_onednn and weight is not None else weight


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
                     matmul(add32, weight), matmul(add32, weight, x32), *transposed_products(add32, [x32], True)]  # fmt: skip
        # float32 rounds at 6e-8 relative; bfloat16 (4e-3) or TF32 (5e-4) arithmetic fails this
        return all(
            f.shape == e.shape and bool((f.double() - e).abs().max() <= 1e-5)
            for f, e in zip(found, expected, strict=True)
        )
    except Exception:  # noqa: BLE001 (any failure of a private operator means: use the plain path)
        return False
