"""Every game the engine plays, by id, and the named option presets."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

from engine.errors import BadOptionValue, UnknownGame
from engine.games.cacho import CACHO
from engine.games.crag import CRAG
from engine.games.escalero import ESCALERO
from engine.games.general import GENERAL
from engine.games.generala import GENERALA, GENERALA_CLASSIC
from engine.games.goldene import GOLDENE_FUENFZIG
from engine.games.poker_dice import POKER_DICE
from engine.games.yacht import YACHT, YACHT_1938
from engine.games.yahtzee import KNIFFEL, YAHTZEE
from engine.games.yatzy import YATZY
from engine.rules import GameDef, OptionValue, Preset

GAMES: Mapping[str, GameDef] = MappingProxyType({
    game.id: game for game in (GENERAL, GENERALA, GENERALA_CLASSIC, YACHT, CRAG, CACHO, GOLDENE_FUENFZIG,
                               YAHTZEE, KNIFFEL, YATZY, ESCALERO, POKER_DICE)
})

PRESETS: Mapping[str, Preset] = MappingProxyType({preset.id: preset for preset in (YACHT_1938,)})


def get_game(game_id: str) -> GameDef:
    """The game with this id; raises UnknownGame (naming the known ones) otherwise."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise UnknownGame(f"unknown game {game_id!r}; games: {', '.join(list(GAMES) + list(PRESETS))}") from None


def resolve_game(name: str, options: Mapping[str, Any] | None = None) -> tuple[GameDef, dict[str, OptionValue]]:
    """A game id or preset id plus options given on top: the game and all its option values."""
    if name in PRESETS:
        preset = PRESETS[name]
        game = GAMES[preset.game]
        for key, value in (options or {}).items():
            if key in preset.options and value != preset.options[key]:
                raise BadOptionValue(f"{name} is {preset.game} with {key}={_shown(preset.options[key])}; for "
                                     f"{key}={_shown(value)} play {preset.game} with that option")
        return game, game.resolve_options({**preset.options, **(options or {})})
    game = get_game(name)
    return game, game.resolve_options(options)


def _shown(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)
