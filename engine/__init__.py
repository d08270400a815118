"""The rules of every Cubilete game: games as data, pure scoring functions, turns and events.

Standard library only. The engine knows nothing of cameras, buttons or displays.

    GAMES / PRESETS / get_game / resolve_game    the games (engine.games) as data (engine.rules)
    new_game / replay / apply / start            a game is a fold over its events (engine.events)
    score_options / turn_actions / turn_choices  what the display offers the current player
    win_option                                   the box a throw's instant win is written in
    score_roll                                   a roll in every category (cubilete score)
    roll_off_order / partnerships_from_order     order of play
    winners / settlement                         the end of a game (a match of rounds: engine.match)
    engine.fairness                              are the dice fair? (first throws, chi-square)
"""

from engine import events
from engine.advice import (
    RollScore, ScoreOption, TurnActions, TurnChoice, score_options, score_roll, turn_actions, turn_choices,
    win_option,
)
from engine.errors import *  # noqa: F401,F403  (every RuleError subclass is part of the API)
from engine.errors import RuleError
from engine.events import EVENT_TYPES, check_event
from engine.fold import apply, new_game, replay, start
from engine.games import GAMES, PRESETS, get_game, resolve_game
from engine.ordering import HAND_RANKS, RollOff, hand_rank, partnerships_from_order, roll_off_order
from engine.rules import Category, GameDef, OptionDef, Preset, Rules
from engine.settlement import Payment, settlement, winners
from engine.sheet import Mark, Sheet
from engine.state import GameState, InstantWin, ThrowRecord, Turn

__all__ = [
    "GAMES", "PRESETS", "get_game", "resolve_game", "GameDef", "Rules", "Category", "OptionDef", "Preset",
    "events", "EVENT_TYPES", "check_event", "new_game", "replay", "apply", "start",
    "GameState", "Turn", "ThrowRecord", "InstantWin", "Sheet", "Mark",
    "score_options", "ScoreOption", "turn_actions", "TurnActions", "turn_choices", "TurnChoice",
    "win_option",
    "score_roll", "RollScore",
    "roll_off_order", "RollOff", "hand_rank", "HAND_RANKS", "partnerships_from_order",
    "winners", "settlement", "Payment", "RuleError",
]
