"""Order of play by roll-off, and General's partnerships.

Each player throws all the dice once; the lowest hand plays first. General ranks hands
(nothing, pair, two pair, three of a kind, straight, full house, four, five of a kind) and
breaks equal ranks by the lower pip total; the other games compare pip totals. Players
still equal throw again among themselves.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Hashable, Mapping, Sequence

from engine import dice as d
from engine.errors import BadDieValue, BadPartnerships, WrongDiceCount
from engine.games.general import STRAIGHTS_ACE_FOR_2_OR_6
from engine.rules import GameDef

HAND_RANKS = ("nothing", "one pair", "two pair", "three of a kind", "straight", "full house",
              "four of a kind", "five of a kind")


def hand_rank(dice: d.Dice) -> int:
    """General's poker rank of a roll-off hand, 0 (nothing) .. 7 (five of a kind)."""
    sizes = d.group_sizes(dice)
    if sizes[0] == 5:
        return 7
    if sizes[0] == 4:
        return 6
    if sizes == [3, 2]:
        return 5
    if STRAIGHTS_ACE_FOR_2_OR_6(dice):
        return 4
    if sizes[0] == 3:
        return 3
    if sizes[:2] == [2, 2]:
        return 2
    if sizes[0] == 2:
        return 1
    return 0


def roll_off_key(game: GameDef, dice: d.Dice) -> tuple[int, ...]:
    """Lower keys play earlier."""
    if game.default_rules.roll_off == "hand_rank":
        return (hand_rank(dice), d.pip_total(dice))
    return (d.pip_total(dice),)


@dataclass(frozen=True)
class RollOff:
    """The roll-off so far: groups of players from first to play to last. A group of more
    than one tied and throws again among themselves (`tied`)."""

    groups: tuple[tuple[Hashable, ...], ...]

    @property
    def settled(self) -> bool:
        return all(len(group) == 1 for group in self.groups)

    @property
    def tied(self) -> tuple[tuple[Hashable, ...], ...]:
        return tuple(group for group in self.groups if len(group) > 1)

    @property
    def order(self) -> tuple[Hashable, ...]:
        """Play order (meaningful once settled; tied players are listed in the order given)."""
        return tuple(p for group in self.groups for p in group)


def roll_off_order(game: GameDef, hands: Mapping[Hashable, Sequence[Sequence[int]]]) -> RollOff:
    """Order of play from each player's roll-off hands: hands[p] is p's first hand, then the
    hands p threw again while tied. Players are any keys (indices or names)."""
    dice = game.default_rules.dice
    for throws in hands.values():
        for hand in throws:
            if len(hand) != dice:
                raise WrongDiceCount(f"a roll-off hand in {game.id} is {dice} dice, not {len(hand)}")
            if any(not 1 <= v <= 6 for v in hand):
                raise BadDieValue(f"a die shows 1 to 6, not {list(hand)}")
    return RollOff(tuple(_order(game, hands, tuple(hands), 0)))


def _order(game: GameDef, hands: Mapping[Hashable, Sequence[Sequence[int]]], players: tuple[Hashable, ...],
           depth: int) -> list[tuple[Hashable, ...]]:
    if len(players) == 1:
        return [players]
    if any(len(hands[p]) <= depth for p in players):
        return [players]
    by_key: dict[tuple[int, ...], list[Hashable]] = defaultdict(list)
    for p in players:
        by_key[roll_off_key(game, hands[p][depth])].append(p)
    groups: list[tuple[Hashable, ...]] = []
    for key in sorted(by_key):
        group = tuple(by_key[key])
        groups.extend(_order(game, hands, group, depth + 1) if len(group) > 1 else [group])
    return groups


def partnerships_from_order(order: Sequence[int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """General: the two lowest and the two highest roll-off hands are partners."""
    if len(order) != 4:
        raise BadPartnerships("partnerships are for exactly four players")
    return (order[0], order[1]), (order[2], order[3])
