"""Argument specs for the generated argument test (tests/test_arguments.py).

A spec holds a valid value (made fresh by ``make``) and derives the bad values of its kind:
``Int`` gives a str, a float and a bool (TypeError) and values out of range (ValueError);
``Tensor`` a list (TypeError), an int64 tensor (TypeError: wrong dtype) and an extra axis
(ValueError: wrong shape); and so on. ``Bad.names`` is what the error message must contain:
the argument's name, or the entry's key for an entry of a mapping.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import sympy
import torch


@dataclass(frozen=True)
class Bad:
    """One bad value: its kind, how to make it, the error it must raise, what the message names."""

    kind: str  # "type", "shape", "dtype", "range"
    make: Callable[[], object]
    error: type[Exception]
    names: str | None = None  # default: the argument's name


def _const(value: object) -> Callable[[], object]:
    return lambda: value


@dataclass(frozen=True)
class Spec:
    """A valid value and the bad values of its kind; ``extra`` adds bad values by hand."""

    make: Callable[[], object]
    extra: tuple[Bad, ...] = ()

    def bad(self) -> list[Bad]:
        return [*self.derived(), *self.extra]

    def derived(self) -> list[Bad]:
        return []


def custom(make: Callable[[], object], *bad: tuple[str, object, type[Exception]]) -> Spec:
    """A spec whose bad values are all given: (kind, value, error)."""
    return Spec(make, tuple(Bad(kind, _const(value), error) for kind, value, error in bad))


@dataclass(frozen=True)
class Int(Spec):
    minimum: int | None = None
    maximum: int | None = None

    def derived(self) -> list[Bad]:
        bad = [Bad("type", _const(v), TypeError) for v in ("2", 2.5, True)]
        if self.minimum is not None:
            bad.append(Bad("range", _const(self.minimum - 1), ValueError))
        if self.maximum is not None:
            bad.append(Bad("range", _const(self.maximum + 1), ValueError))
        return bad


@dataclass(frozen=True)
class Float(Spec):
    minimum: float | None = None
    positive: bool = False
    maximum: float | None = None

    def derived(self) -> list[Bad]:
        bad = [Bad("type", _const(v), TypeError) for v in ("1.0", True)]
        bad.append(Bad("range", _const(float("nan")), ValueError))
        if self.positive:
            bad += [Bad("range", _const(v), ValueError) for v in (0.0, -1.0)]
        if self.minimum is not None:
            bad.append(Bad("range", _const(self.minimum - 1), ValueError))
        if self.maximum is not None:
            bad.append(Bad("range", _const(self.maximum + 1), ValueError))
        return bad


@dataclass(frozen=True)
class Bool(Spec):
    def derived(self) -> list[Bad]:
        return [Bad("type", _const(v), TypeError) for v in ("yes", None)]


@dataclass(frozen=True)
class Str(Spec):
    def derived(self) -> list[Bad]:
        return [Bad("type", _const(v), TypeError) for v in (3, b"x")]


@dataclass(frozen=True)
class Choice(Spec):
    def derived(self) -> list[Bad]:
        return [Bad("type", _const(3), TypeError), Bad("range", _const("no-such-choice"), ValueError)]


@dataclass(frozen=True)
class Tensor(Spec):
    shape: Callable[[torch.Tensor], torch.Tensor] | None = lambda t: t.unsqueeze(-1)

    def derived(self) -> list[Bad]:
        bad = [
            Bad("type", lambda: self.make().tolist(), TypeError),
            Bad("dtype", lambda: self.make().to(torch.int64), TypeError),
            Bad("dtype", lambda: self.make().to(torch.complex128), TypeError),
        ]
        if self.shape is not None:
            bad.append(Bad("shape", lambda: self.shape(self.make()), ValueError))
        return bad


@dataclass(frozen=True)
class Matrix(Spec):
    """A sympy matrix; the default bad shape has one more column."""

    shape: Callable[[sympy.Matrix], sympy.Matrix] | None = lambda m: m.row_join(sympy.zeros(m.rows, 1))

    def derived(self) -> list[Bad]:
        bad = [Bad("type", _const(v), TypeError) for v in ("x", 3)]
        if self.shape is not None:
            bad.append(Bad("shape", lambda: self.shape(sympy.Matrix(self.make())), ValueError))
        return bad


@dataclass(frozen=True)
class Columns(Spec):
    """A list of sympy column vectors."""

    def derived(self) -> list[Bad]:
        return [
            Bad("type", _const("x"), TypeError),
            Bad("type", _const(sympy.Matrix([1])), TypeError),
            Bad("range", _const([]), ValueError),
            Bad("shape", lambda: [sympy.zeros(1, 2) for _ in self.make()], ValueError),
        ]


@dataclass(frozen=True)
class Numbers(Spec):
    """A sequence of plain numbers (or of rows of them, ``rows=True``)."""

    positive: bool = False
    fixed_length: bool = False

    def derived(self) -> list[Bad]:
        bad = [
            Bad("type", _const("x"), TypeError),
            Bad("dtype", lambda: ["a", *self.make()[1:]], TypeError),
            Bad("range", _const([]), ValueError),
        ]
        if self.positive:
            bad.append(Bad("range", lambda: [-1.0, *self.make()[1:]], ValueError))
        if self.fixed_length:
            bad.append(Bad("shape", lambda: [*self.make(), 1.0], ValueError))
        return bad


@dataclass(frozen=True)
class Ints(Spec):
    """A sequence of ints (seeds, reaches): a str, a float or a bool entry, one below ``minimum``,
    and no entries at all when ``non_empty``."""

    minimum: int | None = None
    non_empty: bool = False

    def derived(self) -> list[Bad]:
        bad = [
            Bad("type", _const("x"), TypeError),
            Bad("type", _const(3), TypeError),
            *(Bad("dtype", lambda v=v: [v, *self.make()[1:]], TypeError) for v in ("1", 1.5, True)),
        ]
        if self.minimum is not None:
            bad.append(Bad("range", lambda: [self.minimum - 1, *self.make()[1:]], ValueError))
        if self.non_empty:
            bad.append(Bad("range", _const([]), ValueError))
        return bad


@dataclass(frozen=True)
class Rows(Spec):
    """A nested list of plain numbers, (rows, cols); the bad shape has one more column."""

    def derived(self) -> list[Bad]:
        return [
            Bad("type", _const("x"), TypeError),
            Bad("type", _const(3), TypeError),
            Bad("dtype", lambda: [["a", *row[1:]] for row in self.make()], TypeError),
            Bad("shape", lambda: [[*row, 0.0] for row in self.make()], ValueError),
        ]


@dataclass(frozen=True)
class Instance(Spec):
    """An object of a given class (a module, a result of the package)."""

    def derived(self) -> list[Bad]:
        return [Bad("type", _const(v), TypeError) for v in ("x", 3)]


@dataclass(frozen=True)
class Function(Spec):
    def derived(self) -> list[Bad]:
        return [Bad("type", _const(3), TypeError)]


@dataclass(frozen=True)
class Optional(Spec):
    """``None`` or what ``inner`` accepts."""

    inner: Spec = field(default_factory=lambda: Spec(_const(None)))

    def derived(self) -> list[Bad]:
        return self.inner.bad()


def optional(inner: Spec, valid_none: bool = True) -> Optional:
    """``None`` or what ``inner`` accepts; the valid value is None unless ``valid_none=False``."""
    return Optional(_const(None) if valid_none else inner.make, inner=inner)


@dataclass(frozen=True)
class Entries(Spec):
    """A mapping whose entries are specs of their own; an entry's bad values name its key."""

    entries: Mapping[str, Spec] = field(default_factory=dict)

    def derived(self) -> list[Bad]:
        bad = [
            Bad("type", lambda: list(self.make().items()), TypeError),
            Bad("range", _const({}), ValueError),
        ]
        for key, spec in self.entries.items():
            for entry in spec.bad():
                bad.append(
                    Bad(
                        entry.kind,
                        lambda key=key, entry=entry: dict(self.make()) | {key: entry.make()},
                        entry.error,
                        key,
                    )
                )
        return bad
