"""Pure predicates and sums over the dice showing: the words the rules tables are written in.

Every function takes the dice as a sequence of face values (order never matters) and is
a plain function of that multiset. The game definitions combine them into categories.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable, Sequence

Dice = Sequence[int]
Predicate = Callable[[Dice], bool]

FACES = (1, 2, 3, 4, 5, 6)


def opposite(value: int) -> int:
    """The face on the other side of a die: opposite faces add up to 7."""
    return 7 - value


def multiset(dice: Dice) -> tuple[int, ...]:
    return tuple(sorted(dice))


def group_sizes(dice: Dice) -> list[int]:
    """How many dice show each face present, largest group first: 6-6-6-2-2 gives [3, 2]."""
    return sorted(Counter(dice).values(), reverse=True)


def count_of(face: int, dice: Dice) -> int:
    return sum(1 for value in dice if value == face)


def always(dice: Dice) -> bool:
    return True


def of_a_kind(n: int) -> Predicate:
    """At least n dice show the same face (five of a kind satisfies four of a kind)."""

    def predicate(dice: Dice) -> bool:
        return bool(dice) and group_sizes(dice)[0] >= n

    predicate.__name__ = f"at_least_{n}_of_a_kind"
    return predicate


def exactly_of_a_kind(n: int) -> Predicate:
    """The largest group of equal faces has exactly n dice (five of a kind is not four)."""

    def predicate(dice: Dice) -> bool:
        return bool(dice) and group_sizes(dice)[0] == n

    predicate.__name__ = f"exactly_{n}_of_a_kind"
    return predicate


def full_house(dice: Dice) -> bool:
    """Three of one face and two of another face; five of a kind is not a full house."""
    return group_sizes(dice) == [3, 2]


def one_of(*hands: Iterable[int]) -> Predicate:
    """The dice are exactly one of the listed hands, in any order (straights, crag...)."""
    allowed = frozenset(multiset(tuple(hand)) for hand in hands)

    def predicate(dice: Dice) -> bool:
        return multiset(dice) in allowed

    predicate.__name__ = "one_of_" + "_".join("".join(map(str, hand)) for hand in sorted(allowed))
    predicate.hands = allowed  # type: ignore[attr-defined]
    return predicate


def totalling(total: int) -> Predicate:
    def predicate(dice: Dice) -> bool:
        return sum(dice) == total

    predicate.__name__ = f"totalling_{total}"
    return predicate


def pip_total(dice: Dice) -> int:
    return sum(dice)


def largest_group_total(dice: Dice, n: int) -> int:
    """The sum of n dice of the largest group of equal faces (highest face on equal size)."""
    counts = Counter(dice)
    face = max(counts, key=lambda f: (counts[f], f))
    return face * min(n, counts[face])


def two_pairs(dice: Dice) -> bool:
    """Two different faces each shown by at least two dice (a full house is two pairs; four
    or five of a face is not)."""
    return sum(1 for size in group_sizes(dice) if size >= 2) >= 2


def run_of(n: int) -> Predicate:
    """Some n faces in sequence are among the dice (Yahtzee's small straight: run_of(4))."""

    def predicate(dice: Dice) -> bool:
        present = set(dice)
        return any(all(face + i in present for i in range(n)) for face in range(1, 8 - n))

    predicate.__name__ = f"run_of_{n}"
    return predicate


def highest_kind_total(dice: Dice, n: int) -> int:
    """n times the highest face shown by at least n dice; 0 if none (Yatzy's one pair: 6-6-5-5-1
    scores 12)."""
    faces = [face for face, count in Counter(dice).items() if count >= n]
    return n * max(faces) if faces else 0


def two_pairs_total(dice: Dice, single_pair: bool = False) -> int:
    """The four dice of the two highest pairs of different faces; 0 without two pairs, or
    with `single_pair` the two dice of the one pair there is."""
    faces = sorted((face for face, count in Counter(dice).items() if count >= 2), reverse=True)
    if len(faces) >= 2 or (single_pair and faces):
        return 2 * sum(faces[:2])
    return 0
