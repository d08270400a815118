"""What the appliance is set up with: the players' preferences (the settings menu) and what
the new-game menu starts from (the config's [game] section)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Prefs:
    """What the settings menu changes (saved by the service in the state directory)."""

    language: str = "es"
    contrast: int = 200
    names: tuple[str, ...] = ()  # the players' names entered on the device, in menu order


@dataclass(frozen=True)
class GameDefaults:
    """What the new-game menu starts from (the config's [game] section)."""

    game: str = "generala"
    players: int = 2
    names: tuple[str, ...] = ()
    order: str = "roll-off"
    stake_per_point: float = 0.0
    currency: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    tournament: bool = False  # no hints from the advisor
