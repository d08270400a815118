"""What the appliance is set up with: the players' preferences (the settings menu) and what
the new-game menu starts from (the config's [game] section)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from firmware.localformat import MoneyStyle

# The brightness levels of the settings menu, as the panel's contrast.
BRIGHTNESS_STEPS = (16, 64, 128, 200, 255)


@dataclass
class Prefs:
    """What the settings menu changes (saved by the service in the state directory)."""

    language: str = "es"
    contrast: int = 200


@dataclass(frozen=True)
class GameDefaults:
    """What the new-game menu starts from (the config's [game] section), and how the
    device writes money (its [device] locale)."""

    game: str = "generala"
    players: int = 2
    names: tuple[str, ...] = ()
    order: str = "roll-off"
    stake_per_point: float = 0.0
    money: MoneyStyle = MoneyStyle()
    options: dict[str, Any] = field(default_factory=dict)
    tournament: bool = False  # no hints from the advisor
