"""The games `cubilete demo` plays by itself: the fixed one of the default seed, and one drawn
from any other seed.

The session's seed decides how the tray, the light and the dice look; what the dice show
comes from the game script. With only the looks drawn from the seed, `--seed 7` played the
same three turns as the default (only the tray changed), so another seed also draws the
game: J1 throws once and fills the best box, J2 keeps the dice of the face it has most of,
throws the others again and fills the best box, and J1 ends the game with a generala
servida of a drawn face, as in the default game.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from engine import resolve_game, score_roll

DEMO_SEED = 2026

DEMO_GAME: list[dict[str, Any]] = [
    {"throw": [2, 3, 4, 5, 6], "score": "straight"},  # J1: straight on the first throw: 25
    {"clear": True},
    {"throw": [5, 5, 2, 6, 3]},  # J2
    {"throw": [None, None, 5, 4, 1]},  # the two fives stay, three dice again
    {"throw": [None, None, None, 2, 3], "score": "fives"},  # three fives: 15
    {"clear": True},
    {"throw": [4, 4, 4, 4, 4]},  # J1: generala servida wins at once
    {"pause": 3.0},  # the final table, then OK closes the game
]

# The shortest whole game: one throw, an instant win (the test suite runs this one).
QUICK_GAME: list[dict[str, Any]] = [
    {"throw": [6, 6, 6, 6, 6]},
    {"pause": 3.0},
]

GAME_ID = "generala"
GAME_STREAM = 1  # the game's dice come from their own stream of the seed, apart from the looks


def best_box(dice: list[int], throw: int, held: int) -> str:
    """The box that scores most for these dice (every box open), the first of equals."""
    game, options = resolve_game(GAME_ID)
    points = score_roll(game.rules(options), tuple(dice), throw, held).points
    return max(points, key=lambda item: item[1])[0]


def seeded_game(seed: int) -> list[dict[str, Any]]:
    """The demo's game for this seed: DEMO_GAME for the default seed, otherwise drawn."""
    if seed == DEMO_SEED:
        return DEMO_GAME
    rng = np.random.default_rng([seed, GAME_STREAM])

    def roll(count: int) -> list[int]:
        while True:
            values = [int(v) for v in rng.integers(1, 7, count)]
            if count < 5 or len(set(values)) > 1:  # a first-throw generala would end the game at once
                return values

    first = roll(5)
    second = roll(5)
    face = Counter(second).most_common(1)[0][0]
    kept = [v == face for v in second]
    again = roll(5 - sum(kept))
    rethrow: list[int | None] = []
    final = []
    for keep, value in zip(kept, second):
        rethrow.append(None if keep else again.pop(0))
        final.append(value if keep else rethrow[-1])
    generala = int(rng.integers(1, 7))
    return [
        {"throw": first, "score": best_box(first, 1, 0)},
        {"clear": True},
        {"throw": second},
        {"throw": rethrow, "score": best_box([int(v) for v in final], 2, sum(kept))},
        {"clear": True},
        {"throw": [generala] * 5},
        {"pause": 3.0},
    ]
