"""What the appliance is set up with: the players' preferences (the settings menu, kept in
the state directory) and what the new-game menu starts from (the config's [game] section)."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from firmware.localformat import MoneyStyle
from hardware.files import write_atomically

log = logging.getLogger(__name__)

PREFS_FILE = "settings.json"

# The brightness levels of the settings menu, as the panel's contrast.
BRIGHTNESS_STEPS = (16, 64, 128, 200, 255)


@dataclass
class Prefs:
    """What the settings menu changes (saved by the service in the state directory)."""

    language: str = "es"
    contrast: int = 200
    names: tuple[str, ...] = ()  # the players' names entered on the device, in menu order


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


def load_prefs(state_dir: Path, language: str, contrast: int) -> Prefs:
    """The config's language and contrast, overridden by what was set on the device."""
    prefs = Prefs(language=language, contrast=contrast)
    try:
        saved = json.loads((state_dir / PREFS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return prefs
    if not isinstance(saved, dict):
        return prefs
    if saved.get("language") in ("es", "en"):
        prefs.language = saved["language"]
    if isinstance(saved.get("contrast"), int) and 1 <= saved["contrast"] <= 255:
        prefs.contrast = saved["contrast"]
    names = saved.get("names")
    if isinstance(names, list) and all(isinstance(n, str) and 1 <= len(n.strip()) <= 8 for n in names):
        prefs.names = tuple(n.strip() for n in names[:8])
    return prefs


def save_prefs(state_dir: Path, prefs: Prefs) -> None:
    try:
        write_atomically(state_dir / PREFS_FILE, json.dumps(asdict(prefs)).encode())
    except OSError as error:
        log.warning("cannot save the settings: %s", error)
