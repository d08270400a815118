"""One player's column of the score sheet: a mark per category, or None while it is open, and
the bonus lines the game adds up from the marks (Yahtzee's upper bonus and yahtzee bonus)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Protocol


@dataclass(frozen=True)
class Mark:
    """A filled box. `scratched` is a cross on paper (0 points); `served` says the points
    were the served / de mano value; `throw` is the throw of the turn it was made on;
    `bonus` is what the fill earned besides the box (a yahtzee bonus), counted on its line."""

    points: int
    scratched: bool = False
    served: bool = False
    throw: int = 0
    bonus: int = 0

    def to_json(self) -> dict:
        data = {"points": self.points, "scratched": self.scratched, "served": self.served, "throw": self.throw}
        if self.bonus:
            data["bonus"] = self.bonus
        return data


class SheetLine(Protocol):
    """A line of the sheet that no player fills: its points follow from the marks."""

    id: str
    name_en: str
    name_es: str

    def points(self, sheet: "Sheet") -> int: ...


@dataclass(frozen=True)
class Sheet:
    """Marks in the game's category order and the game's bonus lines. Read it like a
    mapping: `sheet["full_house"]`."""

    categories: tuple[str, ...]
    marks: tuple[Mark | None, ...]
    lines: tuple[SheetLine, ...] = ()

    @classmethod
    def empty(cls, categories: tuple[str, ...], lines: tuple[SheetLine, ...] = ()) -> "Sheet":
        return cls(categories, (None,) * len(categories), lines)

    def __getitem__(self, category: str) -> Mark | None:
        return self.marks[self.categories.index(category)]

    def __contains__(self, category: object) -> bool:
        return category in self.categories

    def __iter__(self) -> Iterator[str]:
        return iter(self.categories)

    def items(self) -> Iterator[tuple[str, Mark | None]]:
        return zip(self.categories, self.marks)

    def points(self, category: str) -> int | None:
        mark = self[category]
        return None if mark is None else mark.points

    def is_open(self, category: str) -> bool:
        return self[category] is None

    @property
    def open_categories(self) -> tuple[str, ...]:
        return tuple(c for c, m in self.items() if m is None)

    @property
    def filled_count(self) -> int:
        return sum(1 for m in self.marks if m is not None)

    @property
    def is_full(self) -> bool:
        return all(m is not None for m in self.marks)

    @property
    def box_total(self) -> int:
        """The points in the boxes, without the bonus lines."""
        return sum(m.points for m in self.marks if m is not None)

    @property
    def line_points(self) -> tuple[tuple[SheetLine, int], ...]:
        """Each bonus line with its points now."""
        return tuple((line, line.points(self)) for line in self.lines)

    @property
    def total(self) -> int:
        return self.box_total + sum(points for _, points in self.line_points)

    def with_mark(self, category: str, mark: Mark) -> "Sheet":
        index = self.categories.index(category)
        return Sheet(self.categories, self.marks[:index] + (mark,) + self.marks[index + 1:], self.lines)

    def emptied(self) -> "Sheet":
        """The same sheet with every box open again (a new round of a match)."""
        return Sheet.empty(self.categories, self.lines)

    def to_json(self) -> dict[str, dict | None]:
        return {c: (None if m is None else m.to_json()) for c, m in self.items()}
