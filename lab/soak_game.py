"""The game the power-cut soak plays: a whole two-player Cacho game with every kind of event.

22 turns (11 boxes each), throws of all five dice and of some of them, dice turned over
after a second throw (Cacho's volteo), a score undone and scored again, a die corrected to a
wrong value and back (as a careless player does through the turn menu), and the last two
boxes of each player crossed out (the grandes, when no open box scores). With what the
reader asks about on the way that is about 65 events, so the log of one game holds throws,
turns, corrections, undos, scores and cross-outs, and a kill can land in any of them.

`MINI_GAME` is a short Generala game (an undo, a fumble, an instant win) for the test suite.
"""

from __future__ import annotations

from typing import Any

SOAK_SEED = 4404

CONFIG = """\
[device]
name = "soak"
language = "{language}"
currency = "$"
[game]
game = "cacho"
players = 2
order = "fixed"
stake_per_point = 0.1
"""

MINI_CONFIG = CONFIG.replace('game = "cacho"', 'game = "generala"')

# Each player's turn ends with the dice picked up; a step with an undo or a fumble is given
# time (a pause) for the presses before the next player throws.
CLEAR: dict[str, Any] = {"clear": True}
# The players start the game on the device before the first throw. The simulated player needs
# about 1.3 s of session time to go through the menus; without this pause the first hand came
# at 1.33 s, and a run started on the session after 0.0 s (a restart after a kill before the
# game started) pressed its last OK during the throw, which blocks presses: the game started
# after the throw had settled, that throw was never recorded and the next player's throw was
# recorded as the first player's (a divergence of the soak, not of the device).
START: dict[str, Any] = {"pause": 3.0}

SOAK_GAME: list[dict[str, Any]] = [
    START,
    # ones
    {"throw": [1, 1, 3, 4, 6], "score": "ones", "fumble": 2}, {"pause": 7.0}, CLEAR,   # J1: 2
    {"throw": [1, 3, 3, 5, 2], "score": "ones"}, CLEAR,                                # J2: 1
    # twos: a second throw of three dice, then one die turned over (5 becomes 2)
    {"throw": [2, 5, 2, 6, 3]}, {"throw": [None, 2, None, 4, 5]},
    {"turn": [4], "score": "twos"}, CLEAR,                                             # J1: 8
    {"throw": [2, 4, 6, 1, 3]}, {"throw": [None, 2, 2, 5, None]},
    {"turn": [3], "score": "twos"}, CLEAR,                                             # J2: 8
    # threes: J1 scores, undoes it and scores again
    {"throw": [3, 3, 5, 6, 1], "score": "threes", "undo": True}, {"pause": 8.0}, CLEAR,  # J1: 6
    {"throw": [3, 4, 3, 3, 6], "score": "threes"}, CLEAR,                              # J2: 9
    # fours
    {"throw": [4, 4, 1, 2, 6]}, {"throw": [None, None, 4, 3, 3]},
    {"turn": [3], "score": "fours"}, CLEAR,                                            # J1: 16
    {"throw": [4, 1, 4, 5, 2], "score": "fours", "fumble": 0}, {"pause": 7.0}, CLEAR,  # J2: 8
    # fives
    {"throw": [5, 5, 1, 3, 2], "score": "fives"}, CLEAR,                               # J1: 10
    {"throw": [5, 2, 6, 5, 1]}, {"throw": [None, 5, 3, None, 6]},
    {"turn": [2], "score": "fives"}, CLEAR,                                            # J2: 15
    # sixes
    {"throw": [6, 6, 6, 2, 4], "score": "sixes"}, CLEAR,                               # J1: 18
    {"throw": [6, 3, 6, 1, 2]}, {"throw": [None, 6, None, 6, 5]},
    {"turn": [4], "score": "sixes"}, CLEAR,                                            # J2: 24
    # straight, full house, four of a kind: de mano, first throw
    {"throw": [1, 2, 3, 4, 5], "score": "straight"}, CLEAR,                            # J1: 25
    {"throw": [2, 3, 4, 5, 6], "score": "straight", "undo": True}, {"pause": 8.0}, CLEAR,  # J2: 25
    {"throw": [3, 3, 5, 5, 5], "score": "full_house"}, CLEAR,                          # J1: 35
    {"throw": [2, 2, 6, 6, 6], "score": "full_house"}, CLEAR,                          # J2: 35
    {"throw": [4, 4, 4, 4, 1], "score": "four_of_a_kind"}, CLEAR,                      # J1: 45
    {"throw": [6, 6, 6, 1, 6], "score": "four_of_a_kind"}, CLEAR,                      # J2: 45
    # the grandes: nothing open scores, so each player crosses them out
    {"throw": [1, 2, 4, 5, 6], "score": "grande_1"}, CLEAR,                            # J1: 0
    {"throw": [2, 3, 3, 5, 6], "score": "grande_1"}, CLEAR,                            # J2: 0
    {"throw": [1, 3, 4, 6, 6], "score": "grande_2"}, CLEAR,                            # J1: 0
    {"throw": [2, 2, 4, 5, 6], "score": "grande_2"},                                   # J2: 0, game over
    {"pause": 4.0},  # the final table, then OK closes the game
]

MINI_GAME: list[dict[str, Any]] = [
    START,
    {"throw": [2, 3, 4, 5, 6], "score": "straight", "undo": True, "fumble": 1}, {"pause": 12.0}, CLEAR,
    {"throw": [4, 4, 4, 4, 4]},  # J2: generala servida wins at once
    {"pause": 3.0},
]
