"""Every category of every game, on every roll, against rules written out again here.

The reference below is written from GAMES.md without calling engine code: plain counting
over the dice. Each game is checked on all distinct rolls (252 for five dice, 56 for three)
in a served and an unserved throw, and every ordered roll (7776 / 216) must score like its
sorted form.
"""

from __future__ import annotations

from itertools import combinations_with_replacement, product
from typing import Callable

import pytest

from engine import GAMES, score_roll

Ref = Callable[[tuple[int, ...], bool, int], int]  # (dice, served, throw number) -> points


def count_sizes(dice: tuple[int, ...]) -> list[int]:
    return sorted((dice.count(face) for face in set(dice)), reverse=True)


def face(f: int) -> Ref:
    return lambda dice, served, throw: f * dice.count(f)


def fixed(points: int, served_points: int | None = None, when: Callable[[tuple[int, ...]], bool] = lambda d: True) -> Callable:
    def make(qualifies: Callable[[tuple[int, ...]], bool]) -> Ref:
        def ref(dice: tuple[int, ...], served: bool, throw: int) -> int:
            if not qualifies(dice):
                return 0
            return served_points if served and served_points is not None else points
        return ref
    return make


def five_of_a_kind(dice): return len(set(dice)) == 1
def four_or_five_of_a_kind(dice): return max(dice.count(f) for f in dice) >= 4
def exactly_four_of_a_kind(dice): return max(dice.count(f) for f in dice) == 4
def full_house(dice): return count_sizes(dice) == [3, 2]


def straight_with_ace_for_2_or_6(dice) -> bool:
    """Each ace may be itself, a 2 or a 6; the five dice must then run 1-5 or 2-6."""
    aces = dice.count(1)
    others = [v for v in dice if v != 1]
    for choice in product((1, 2, 6), repeat=aces):
        if sorted(others + list(choice)) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]):
            return True
    return False


def any_five_different_or_ace_rule(dice) -> bool:
    return len(set(dice)) == 5 or straight_with_ace_for_2_or_6(dice)


def cacho_straight(dice) -> bool:
    return set(dice) in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}, {3, 4, 5, 6, 1}) and len(set(dice)) == 5


def total(dice, served, throw): return sum(dice)


FACES = {f"{name}": f for f, name in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), start=1)}


def faces(names: dict[str, int] = FACES) -> dict[str, Ref]:
    return {name: face(f) for name, f in names.items()}


def general_reference() -> dict[str, Ref]:
    def small_general(dice, served, throw):
        return 60 if five_of_a_kind(dice) and throw >= 2 else 0
    return {
        **faces(),
        "straight": fixed(20, 25)(straight_with_ace_for_2_or_6),
        "full_house": fixed(30, 35)(full_house),
        "four_of_a_kind": fixed(40, 45)(four_or_five_of_a_kind),
        "small_general": small_general,
    }


def generala_reference() -> dict[str, Ref]:
    return {
        **faces(),
        "straight": fixed(20, 25)(straight_with_ace_for_2_or_6),
        "full_house": fixed(30, 35)(full_house),
        "four_of_a_kind": fixed(40, 45)(four_or_five_of_a_kind),
        "generala": fixed(60)(five_of_a_kind),
    }


def classic_reference(generala_points: int, first_throw_bonus: int, double_generala: bool,
                      wrap_straights: bool) -> dict[str, Ref]:
    straight = any_five_different_or_ace_rule if wrap_straights else straight_with_ace_for_2_or_6
    bonus = first_throw_bonus
    ref = {
        **faces(),
        "straight": fixed(20, 20 + bonus)(straight),
        "full_house": fixed(30, 30 + bonus)(full_house),
        "four_of_a_kind": fixed(40, 40 + bonus)(four_or_five_of_a_kind),
        "generala": fixed(generala_points)(five_of_a_kind),
    }
    if double_generala:
        # Needs generala to hold points already; with every box open it scores 0.
        ref["double_generala"] = lambda dice, served, throw: 0
    return ref


def yacht_reference(rules: str) -> dict[str, Ref]:
    if rules == "1938":
        def four(dice, served, throw):
            best = max(set(dice), key=dice.count)
            return 4 * best if dice.count(best) >= 4 else 0
    else:
        def four(dice, served, throw):
            return sum(dice) if exactly_four_of_a_kind(dice) else 0
    return {
        "yacht": fixed(50)(five_of_a_kind),
        "big_straight": fixed(30)(lambda d: sorted(d) == [2, 3, 4, 5, 6]),
        "little_straight": fixed(30)(lambda d: sorted(d) == [1, 2, 3, 4, 5]),
        "four_of_a_kind": four,
        "full_house": lambda dice, served, throw: sum(dice) if full_house(dice) else 0,
        "choice": total,
        **faces({"sixes": 6, "fives": 5, "fours": 4, "threes": 3, "deuces": 2, "aces": 1}),
    }


def crag_reference() -> dict[str, Ref]:
    return {
        "crag": fixed(50)(lambda d: count_sizes(d) == [2, 1] and sum(d) == 13),
        "thirteen": fixed(26)(lambda d: sum(d) == 13),
        "three_of_a_kind": fixed(25)(lambda d: len(set(d)) == 1),
        "high_straight": fixed(20)(lambda d: sorted(d) == [4, 5, 6]),
        "low_straight": fixed(20)(lambda d: sorted(d) == [1, 2, 3]),
        "even_straight": fixed(20)(lambda d: sorted(d) == [2, 4, 6]),
        "odd_straight": fixed(20)(lambda d: sorted(d) == [1, 3, 5]),
        **faces({"sixes": 6, "fives": 5, "fours": 4, "threes": 3, "twos": 2, "aces": 1}),
    }


def cacho_reference() -> dict[str, Ref]:
    return {
        **faces(),
        "straight": fixed(20, 25)(cacho_straight),
        "full_house": fixed(30, 35)(full_house),
        "four_of_a_kind": fixed(40, 45)(four_or_five_of_a_kind),
        "grande_1": fixed(50)(five_of_a_kind),
        "grande_2": fixed(50)(five_of_a_kind),
    }


def goldene_reference() -> dict[str, Ref]:
    return {
        **faces(),
        "straight": fixed(20)(straight_with_ace_for_2_or_6),
        "full_house": fixed(30)(full_house),
        "four_of_a_kind": fixed(40)(four_or_five_of_a_kind),
        "fifty": fixed(50)(five_of_a_kind),
    }


def yahtzee_reference() -> dict[str, Ref]:
    """Every box open, so the joker never applies (it needs the yahtzee box filled)."""
    def small_straight(dice):
        return any(set(run) <= set(dice) for run in ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)))
    return {
        **faces(),
        "three_of_a_kind": lambda dice, served, throw: sum(dice) if max(map(dice.count, dice)) >= 3 else 0,
        "four_of_a_kind": lambda dice, served, throw: sum(dice) if four_or_five_of_a_kind(dice) else 0,
        "full_house": fixed(25)(full_house),
        "small_straight": fixed(30)(small_straight),
        "large_straight": fixed(40)(lambda d: sorted(d) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6])),
        "yahtzee": fixed(50)(five_of_a_kind),
        "chance": total,
    }


def yatzy_reference(single_pair: bool = False) -> dict[str, Ref]:
    def pairs(dice):
        return sorted((f for f in set(dice) if dice.count(f) >= 2), reverse=True)

    def two_pairs(dice, served, throw):
        found = pairs(dice)
        return 2 * sum(found[:2]) if len(found) >= 2 or (single_pair and found) else 0

    def kind(n):
        return lambda dice, served, throw: max([n * f for f in set(dice) if dice.count(f) >= n], default=0)
    return {
        **faces(),
        "one_pair": kind(2),
        "two_pairs": two_pairs,
        "three_of_a_kind": kind(3),
        "four_of_a_kind": kind(4),
        "small_straight": fixed(15)(lambda d: sorted(d) == [1, 2, 3, 4, 5]),
        "large_straight": fixed(20)(lambda d: sorted(d) == [2, 3, 4, 5, 6]),
        "full_house": lambda dice, served, throw: sum(dice) if full_house(dice) else 0,
        "chance": total,
        "yatzy": fixed(50)(five_of_a_kind),
    }


def escalero_reference() -> dict[str, Ref]:
    """Pip 1 is the nine (x 1) ... pip 6 the ace (x 6)."""
    return {
        **faces({"nines": 1, "tens": 2, "jacks": 3, "queens": 4, "kings": 5, "aces": 6}),
        "straight": fixed(20, 25)(lambda d: sorted(d) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6])),
        "full_house": fixed(30, 35)(full_house),
        "poker": fixed(40, 45)(four_or_five_of_a_kind),
        "grande": fixed(50, 80)(five_of_a_kind),
    }


def poker_hand_rank(dice) -> int:
    """nothing, one pair, two pairs, three of a kind, straight, full house, four, five of a kind."""
    sizes = count_sizes(dice)
    if sorted(dice) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]):
        return 4
    return {(5,): 7, (4, 1): 6, (3, 2): 5, (3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(tuple(sizes), 0)


def poker_dice_reference() -> dict[str, Ref]:
    return {"hand": lambda dice, served, throw: poker_hand_rank(dice)}


# (game, options, reference, served on throw 1, served on a later throw of all dice, instant win on a
#  served five of a kind)
CONFIGS = [
    ("general", {}, general_reference(), "first_throw", True),
    ("generala", {}, generala_reference(), "first_throw", True),
    ("generala", {"held_dice_locked": False}, generala_reference(), "first_throw", True),
    *[
        ("generala-classic",
         {"generala_points": gp, "first_throw_bonus": bonus, "double_generala": double, "wrap_straights": wrap},
         classic_reference(gp, bonus, double, wrap), "first_throw", True)
        for gp in (50, 60) for bonus in (0, 5, 10) for double in (False, True) for wrap in (False, True)
    ],
    ("yacht", {"rules": "scarne"}, yacht_reference("scarne"), "never", False),
    ("yacht", {"rules": "1938"}, yacht_reference("1938"), "never", False),
    ("crag", {}, crag_reference(), "never", False),
    *[("cacho", {"throws": throws, "turn_breaks_de_mano": breaks}, cacho_reference(), "all_dice", True)
      for throws in (2, 3) for breaks in (True, False)],
    ("goldene-fuenfzig", {}, goldene_reference(), "never", False),
    *[("yahtzee", {"joker": joker}, yahtzee_reference(), "never", False) for joker in ("forced", "free")],
    *[("kniffel", {"extra_bonus": extra, "joker": joker}, yahtzee_reference(), "never", False)
      for extra in (False, True) for joker in (False, True)],
    *[("yatzy", {"single_pair_in_two_pairs": single}, yatzy_reference(single), "never", False)
      for single in (False, True)],
    ("escalero", {"served_first_throw_only": False}, escalero_reference(), "all_dice", False),
    ("escalero", {"served_first_throw_only": True}, escalero_reference(), "first_throw", False),
    *[("poker-dice", {"rounds_to_win": 3, "aces_high": aces}, poker_dice_reference(), "never", False)
      for aces in (False, True)],
]


def config_id(config) -> str:
    game, options = config[0], config[1]
    return game + "".join(f"-{k}={v}" for k, v in options.items())


def expected_served(rule: str, throw: int, held: int) -> bool:
    if rule == "first_throw":
        return throw == 1
    if rule == "all_dice":
        return held == 0
    return False


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_every_distinct_roll_scores_as_the_rules_say(config) -> None:
    game_id, options, reference, served_rule, has_throw_win = config
    rules = GAMES[game_id].rules(options)
    assert [c.id for c in rules.categories] == list(reference), "the reference covers every category"
    contexts = [(1, 0)] + [(throw, held) for throw in range(2, rules.throws + 1) for held in (0, 1)]
    for dice in combinations_with_replacement(range(1, 7), rules.dice):
        for throw, held in contexts:
            served = expected_served(served_rule, throw, held)
            result = score_roll(rules, dice, throw, held)
            expected = [(category, ref(dice, served, throw)) for category, ref in reference.items()]
            assert list(result.points) == expected, (dice, throw, held)
            assert result.served == served, (dice, throw, held)
            assert result.instant_win == (has_throw_win and served and five_of_a_kind(dice)), (dice, throw, held)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_ordered_roll_scores_like_its_sorted_roll(game_id: str) -> None:
    rules = GAMES[game_id].default_rules
    by_multiset = {}
    for dice in product(range(1, 7), repeat=rules.dice):
        key = tuple(sorted(dice))
        if key not in by_multiset:
            by_multiset[key] = score_roll(rules, key, 2, 1)
        assert score_roll(rules, dice, 2, 1) == by_multiset[key], dice
    assert len(by_multiset) == (252 if rules.dice == 5 else 56)


def test_the_ace_rule_straights_are_exactly_the_four_listed() -> None:
    straights = {d for d in combinations_with_replacement(range(1, 7), 5) if straight_with_ace_for_2_or_6(d)}
    assert straights == {(1, 2, 3, 4, 5), (2, 3, 4, 5, 6), (1, 3, 4, 5, 6), (1, 1, 3, 4, 5)}


def test_crag_reference_matches_the_listed_hands() -> None:
    crags = {d for d in combinations_with_replacement(range(1, 7), 3) if count_sizes(d) == [2, 1] and sum(d) == 13}
    thirteens = {d for d in combinations_with_replacement(range(1, 7), 3) if sum(d) == 13}
    assert crags == {(1, 6, 6), (3, 5, 5), (4, 4, 5)}
    assert thirteens == {(1, 6, 6), (2, 5, 6), (3, 4, 6), (3, 5, 5), (4, 4, 5)}


def test_every_game_and_option_set_is_checked() -> None:
    assert {config[0] for config in CONFIGS} == set(GAMES)


def test_the_poker_reference_ranks_every_roll_as_listed() -> None:
    ranks = [poker_hand_rank(d) for d in combinations_with_replacement(range(1, 7), 5)]
    # distinct rolls per hand: nothing 4 (five faces, not a straight), pair 60, two pairs 60,
    # three 60, straight 2, full house 30, four 30, five 6
    assert [ranks.count(r) for r in range(8)] == [4, 60, 60, 60, 2, 30, 30, 6]


def test_crag_highest_possible_total_is_244() -> None:
    """GAMES.md: the best of every category, each box filled once."""
    best = sum(max(ref(d, False, 1) for d in combinations_with_replacement(range(1, 7), 3))
               for ref in crag_reference().values())
    assert best == 244
    rules = GAMES["crag"].default_rules
    engine_best = sum(max(dict(score_roll(rules, d).points)[c.id] for d in combinations_with_replacement(range(1, 7), 3))
                      for c in rules.categories)
    assert engine_best == 244
