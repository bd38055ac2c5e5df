"""The one argument validator: every public function outside :mod:`rnndoc.layers` checks here.

One rule: a value of the wrong type raises ``TypeError``; a value of the right type that is
out of range, of the wrong shape, not among the choices or missing a key raises
``ValueError``. Both messages begin with the argument's name. Each check returns the value
(converted where said), so a function reads ``size = check_int("size", size, minimum=1)``.

torch and sympy are imported inside the checks that need them: the torch-free witness
(:mod:`rnndoc.reference`, :mod:`rnndoc.handset`) can use this module and stay torch-free.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sympy
    import torch


def _kind(value: object) -> str:
    return type(value).__name__


def check_int(name: str, value: object, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an int (bool refused) in ``[minimum, maximum]``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {_kind(value)}")
    number = int(value)
    if minimum is not None and number < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {number}")
    return number


def check_float(
    name: str, value: object, minimum: float | None = None, *, positive: bool = False, finite: bool = True
) -> float:
    """``value`` (an int or a float, bool refused) as a float: finite unless ``finite=False``,
    ``> 0`` if ``positive``, at least ``minimum`` if given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {_kind(value)}")
    number = float(value)
    if finite and not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if positive and not number > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    if minimum is not None and number < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value!r}")
    return number


def check_bool(name: str, value: object) -> bool:
    """``value`` if it is a bool."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {_kind(value)}")
    return value


def check_str(name: str, value: object) -> str:
    """``value`` if it is a str."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {_kind(value)}")
    return value


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """``value`` if it is one of the strings ``choices``."""
    options = tuple(choices)
    check_str(name, value)
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}, got {value!r}")
    return value


def check_callable(name: str, value: object) -> Callable[..., Any]:
    """``value`` if it can be called."""
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {_kind(value)}")
    return value


def check_mapping(name: str, value: object, keys: Iterable[str] = ()) -> Mapping[Any, Any]:
    """``value`` if it is a mapping holding every one of ``keys``."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping, got {_kind(value)}")
    missing = [key for key in keys if key not in value]
    if missing:
        raise ValueError(f"{name} is missing {', '.join(map(str, missing))}")
    return value


def check_sequence(
    name: str, value: object, what: str = "a sequence", *, non_empty: bool = True
) -> list[Any]:
    """``value`` as a list if it is a sequence (a str is not), non-empty unless ``non_empty=False``.

    ``what`` names what was expected in the TypeError, e.g. ``"a sequence of numbers"``.
    """
    if getattr(value, "ndim", None) == 1 and hasattr(value, "tolist"):  # a 1-d tensor or array
        value = value.tolist()
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be {what}, got {_kind(value)}")
    if non_empty and not value:
        raise ValueError(f"{name} must not be empty")
    return list(value)


def check_numbers(
    name: str, value: object, length: int | None = None, *, positive: bool = False
) -> list[float]:
    """``value``, a non-empty sequence (or 1-d tensor or array) of finite numbers, as floats.

    With ``length``, it must have that many entries; with ``positive``, each must be > 0.
    """
    value = check_sequence(name, value, "a sequence of numbers")
    if length is not None and len(value) != length:
        raise ValueError(f"{name} must have length {length}, got {len(value)}")
    return [check_float(f"{name}[{k}]", v, positive=positive) for k, v in enumerate(value)]


def check_tensor(
    name: str, value: object, shape: tuple[int | None, ...] | None = None, labels: str = ""
) -> torch.Tensor:
    """``value`` if it is a real floating tensor of ``shape`` (``None``: any size; no shape: any shape).

    ``labels`` names the axes, e.g. ``"(L, N, H_in)"``; it is quoted in the message with the
    expected and the actual shape.
    """
    import torch  # noqa: PLC0415 (this module stays importable without torch)

    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {_kind(value)}")
    if not value.is_floating_point():
        raise TypeError(f"{name} must have a floating dtype, got {value.dtype}")
    if shape is None:
        return value
    ok = value.dim() == len(shape) and all(
        e is None or e == a for e, a in zip(shape, value.shape, strict=False)
    )
    if not ok:
        entries = ["*" if e is None else str(e) for e in shape]
        expected = f"({entries[0]},)" if len(entries) == 1 else f"({', '.join(entries)})"
        raise ValueError(f"{name} must have shape {labels} = {expected}, got {tuple(value.shape)}")
    return value


def check_array(name: str, value: object) -> torch.Tensor:
    """``value`` (a tensor, or nested sequences of numbers) as a detached float64 tensor."""
    import torch  # noqa: PLC0415

    try:
        tensor = torch.as_tensor(value, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError) as error:
        raise TypeError(f"{name} must be a tensor or nested list of numbers: {error}") from None
    return tensor.detach()


def check_lengths(
    name: str, value: object, size: int | None = None, maximum: int | None = None
) -> torch.Tensor:
    """``value`` if it is an integer tensor of shape (N,) (N = ``size`` if given), each in [1, ``maximum``]."""
    import torch  # noqa: PLC0415

    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be an integer torch.Tensor, got {_kind(value)}")
    if value.is_floating_point() or value.is_complex() or value.dtype == torch.bool:
        raise TypeError(f"{name} must be an integer tensor, got dtype {value.dtype}")
    if value.dim() != 1 or (size is not None and value.shape[0] != size):
        expected = "(N,)" if size is None else f"(N,) = ({size},)"
        raise ValueError(f"{name} must have shape {expected}, got {tuple(value.shape)}")
    if maximum is not None and len(value) and not (int(value.min()) >= 1 and int(value.max()) <= maximum):
        raise ValueError(f"{name} must lie in [1, {maximum}], got {value.tolist()}")
    return value


def check_same_dtype(**tensors: torch.Tensor) -> None:
    """Raise TypeError naming the first tensor whose dtype differs from the first one's."""
    dtypes = {name: t.dtype for name, t in tensors.items()}
    reference_name, reference = next(iter(dtypes.items()))
    for name, dtype in dtypes.items():
        if dtype != reference:
            raise TypeError(f"{name} must have the dtype of {reference_name} ({reference}), got {dtype}")


def check_same_device(reference_name: str, reference: torch.Tensor, **tensors: torch.Tensor | None) -> None:
    """Raise ValueError naming the first tensor (``None`` skipped) not on ``reference``'s device, and both devices."""
    for name, value in tensors.items():
        if value is not None and value.device != reference.device:
            raise ValueError(
                f"{name} is on device {value.device}, but {reference_name} is on device {reference.device}: "
                "move them to one device"
            )


def check_dtype(name: str, value: object) -> torch.dtype:
    """``value`` if it is a floating ``torch.dtype``; ``None`` gives ``torch.float64``."""
    import torch  # noqa: PLC0415

    if value is None:
        return torch.float64
    if not isinstance(value, torch.dtype):
        raise TypeError(f"{name} must be a torch.dtype, got {_kind(value)}")
    if not value.is_floating_point:
        raise ValueError(f"{name} must be a floating dtype, got {value}")
    return value


def check_instance(name: str, value: object, kinds: type | tuple[type, ...], what: str) -> Any:
    """``value`` if it is an instance of ``kinds``; ``what`` says what was expected."""
    if not isinstance(value, kinds):
        raise TypeError(f"{name} must be {what}, got {_kind(value)}")
    return value


def check_matrix(name: str, value: object, shape: tuple[int, int] | None = None) -> sympy.Matrix:
    """``value`` (a sympy matrix or a nested sequence) as a ``sympy.Matrix`` of ``shape``."""
    import sympy  # noqa: PLC0415

    if not isinstance(value, sympy.MatrixBase) and (
        isinstance(value, str | bytes | sympy.Basic) or not isinstance(value, Sequence)
    ):
        raise TypeError(f"{name} must be a sympy.Matrix or a nested sequence, got {_kind(value)}")
    try:
        matrix = sympy.Matrix(value)
    except (TypeError, ValueError, sympy.SympifyError) as error:
        raise TypeError(f"{name} must be a matrix of numbers or expressions: {error}") from None
    if shape is not None and matrix.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {matrix.shape}")
    return matrix
