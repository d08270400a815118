"""The dice a turn can show, as multisets: every roll of n dice and every set of dice a
player may keep, with the probabilities of throwing the rest, and the index maps the solver
walks (add one die, take one die away).

Order never matters for scoring, so a roll is a sorted tuple; 5 dice give 252 rolls and
462 multisets of 0 to 5 dice (3 dice: 56 and 84).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import combinations, combinations_with_replacement
from math import factorial

import numpy as np

FACES = (1, 2, 3, 4, 5, 6)


def multisets_of(size: int) -> list[tuple[int, ...]]:
    """Every multiset of `size` dice, sorted."""
    return list(combinations_with_replacement(FACES, size))


def probability(multiset: tuple[int, ...]) -> float:
    """The chance that throwing len(multiset) dice shows exactly this multiset."""
    ways = factorial(len(multiset))
    for face in set(multiset):
        ways //= factorial(multiset.count(face))
    return ways / 6 ** len(multiset)


@dataclass(frozen=True)
class DiceSpace:
    """Multisets of 0..n dice, indexed by size then sorted order."""

    n: int

    @cached_property
    def multisets(self) -> tuple[tuple[int, ...], ...]:
        return tuple(m for size in range(self.n + 1) for m in multisets_of(size))

    @cached_property
    def index(self) -> dict[tuple[int, ...], int]:
        return {m: i for i, m in enumerate(self.multisets)}

    @cached_property
    def sizes(self) -> np.ndarray:
        return np.array([len(m) for m in self.multisets])

    def of_size(self, size: int) -> np.ndarray:
        """Indices of the multisets of `size` dice, in order."""
        return np.flatnonzero(self.sizes == size)

    @cached_property
    def rolls(self) -> tuple[tuple[int, ...], ...]:
        """The multisets of all n dice (what a throw leaves showing)."""
        return tuple(m for m in self.multisets if len(m) == self.n)

    @cached_property
    def roll_index(self) -> dict[tuple[int, ...], int]:
        return {r: i for i, r in enumerate(self.rolls)}

    @cached_property
    def roll_probabilities(self) -> np.ndarray:
        """The chance of each roll when all n dice are thrown."""
        return np.array([probability(r) for r in self.rolls])

    @cached_property
    def add(self) -> np.ndarray:
        """add[m, f - 1]: the multiset m with one more die showing f (-1 for full m)."""
        table = np.full((len(self.multisets), 6), -1, dtype=np.int64)
        for i, m in enumerate(self.multisets):
            if len(m) < self.n:
                for f in FACES:
                    table[i, f - 1] = self.index[tuple(sorted(m + (f,)))]
        return table

    @cached_property
    def take(self) -> np.ndarray:
        """take[m, j]: m with one die of its j-th distinct face taken away; padded by
        repeating the first (every entry is a sub-multiset one die smaller; -1 for the empty
        multiset)."""
        table = np.full((len(self.multisets), self.n), -1, dtype=np.int64)
        for i, m in enumerate(self.multisets):
            smaller = [self.index[without(m, f)] for f in sorted(set(m))]
            for j in range(self.n):
                if smaller:
                    table[i, j] = smaller[min(j, len(smaller) - 1)]
        return table

    @cached_property
    def roll_of(self) -> np.ndarray:
        """roll_of[m]: the roll index of m when m has n dice (-1 otherwise)."""
        return np.array([self.roll_index.get(m, -1) for m in self.multisets])

    def keeps_of(self, roll: tuple[int, ...]) -> list[tuple[int, ...]]:
        """Every multiset a player may keep from `roll` and throw the rest (all but keeping
        every die: a throw throws at least one die)."""
        keeps = {c for size in range(self.n) for c in combinations(sorted(roll), size)}
        return sorted(keeps, key=lambda k: (len(k), k))


def without(m: tuple[int, ...], face: int) -> tuple[int, ...]:
    """The multiset with one die showing `face` taken away."""
    i = m.index(face)
    return m[:i] + m[i + 1:]
