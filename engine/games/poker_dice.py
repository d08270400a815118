"""Poker dice (póquer de dados, the bar game of the cup): GAMES.md `poker-dice`.

No score sheet: a match of rounds (`engine.rules.Match`, played by `engine.match`). The one
box, the hand, is what a player stands on; its points are the hand's rank, 0 (nothing) to 7
(five of a kind), and the screen names the hand. Hands of one rank compare the face of the
biggest group, then the next group, then the remaining dice, highest first.

Decisions where the rules are silent:
- Rounds are led in turn round the table (round 1 by the first player in play order, round 2
  by the second, ...); the others play after the leader in play order.
- A play-off between equal best hands is one throw each, in the round's order; equal again,
  they play off again.
- Standing on nothing is standing, not crossing out: a hand is never crossed out.
- The stake of the game is per match: every loser pays it to the winner.
"""

from __future__ import annotations

from collections import Counter

from engine import dice as d
from engine.rules import Category, GameDef, HandRank, Match, OptionDef, Rules

# Low to high: rank = index.
HANDS = (
    ("nothing", "Nothing", "Nada"),
    ("one_pair", "One pair", "Par"),
    ("two_pairs", "Two pairs", "Doble par"),
    ("three_of_a_kind", "Three of a kind", "Trío"),
    ("straight", "Straight", "Escalera"),
    ("full_house", "Full house", "Full"),
    ("four_of_a_kind", "Four of a kind", "Póker"),
    ("five_of_a_kind", "Five of a kind", "Repóker"),
)
STRAIGHTS = d.one_of((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))
ACE = 1


def hand_rank(dice: d.Dice) -> int:
    """0 (nothing) .. 7 (five of a kind), as HANDS."""
    sizes = d.group_sizes(dice)
    if sizes[0] >= 4:
        return sizes[0] + 2
    if sizes == [3, 2]:
        return 5
    if STRAIGHTS(dice):
        return 4
    if sizes[0] == 3:
        return 3
    return sizes[:2].count(2)


def hand_names(dice: d.Dice) -> tuple[str, str]:
    """The hand's name in English and Spanish."""
    _, name_en, name_es = HANDS[hand_rank(dice)]
    return name_en, name_es


def strength(aces_high: bool):
    """The comparison key of a hand: higher keys win, equal keys tie."""

    def value(face: int) -> int:
        return 7 if aces_high and face == ACE else face

    def key(dice: d.Dice) -> tuple[int, ...]:
        rank = hand_rank(dice)
        if rank == 4:
            # 2-3-4-5-6 beats 1-2-3-4-5 whether the ace ranks high or low.
            return (rank, 6 in dice)
        counts = Counter(dice)
        faces = sorted(counts, key=lambda face: (counts[face], value(face)), reverse=True)
        return (rank, *(value(face) for face in faces))

    return key


def rules(options: dict) -> Rules:
    return Rules(
        dice=5,
        throws=3,
        served="never",
        categories=(Category("hand", "Hand", "Jugada", d.always, HandRank(hand_rank), describe=hand_names),),
        match=Match(rounds_to_win=options["rounds_to_win"], strength=strength(options["aces_high"])),
        stake_per="game",
    )


POKER_DICE = GameDef(
    id="poker-dice",
    name_en="Poker dice",
    name_es="Póquer de dados",
    options=(
        OptionDef("rounds_to_win", 3, (3, 1, 2, 4, 5), "rounds a player must win to win the match"),
        OptionDef("aces_high", False, (False, True), "the ace (1) ranks above the six, as on poker dice"),
    ),
    build=rules,
    note="no score sheet: the best hand wins each round; the stake is per match",
)
