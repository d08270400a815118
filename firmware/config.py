"""The device's configuration: TOML at /etc/cubilete/config.toml over built-in defaults.

Every key is validated. A bad value is reported with its key, the value and the allowed
values, and its whole section falls back to the defaults (a half-applied section, such as
new pins with an old layout, is worse than a known one). Unknown sections and keys are
reported and ignored. Loading never raises: the device must boot with a bad file and say
what is wrong on the screen and in the journal.

Each section is a frozen dataclass; a field's default is the built-in default and its
`metadata["rule"]` says what values are allowed. `default_config.toml` beside this module
is the same defaults written out with comments.
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable

import engine
from firmware.localformat import CURRENCY_POSITIONS, DECIMAL_SEPARATORS, MoneyStyle
from hardware.camera_spec import parse_camera_spec
from hardware.display import DRIVERS as DISPLAY_DRIVERS
from hardware.display import INTERFACES as DISPLAY_INTERFACES
from hardware.display import SIZES as DISPLAY_SIZES
from hardware.display import drivers_for

DEFAULT_PATH = Path("/etc/cubilete/config.toml")
# The shipped file with every key and its comments is about 4 kB; anything far bigger is not
# a config someone wrote, and reading it whole could starve the device of memory.
MAX_FILE_BYTES = 256 * 1024
SHOWN_VALUE_CHARS = 40


class Invalid(ValueError):
    """A value a rule does not allow."""


@dataclass(frozen=True)
class Rule:
    """What values a key takes: `allowed` for people, `check` returns the normalised value
    or raises Invalid."""

    allowed: str
    check: Callable[[Any], Any]


def _rule(allowed: str, check: Callable[[Any], Any]) -> dict[str, Rule]:
    return {"rule": Rule(allowed, check)}


def one_of(*values: Any, shown: str | None = None) -> dict[str, Rule]:
    def check(value: Any) -> Any:
        # bool is an int in Python: keep `true` from matching 1.
        if isinstance(value, bool) and not any(isinstance(v, bool) for v in values):
            raise Invalid
        if value not in values:
            raise Invalid
        return value
    return _rule(shown or " | ".join(repr(v) if isinstance(v, str) else str(v) for v in values), check)


def int_range(lo: int, hi: int, shown: str | None = None) -> dict[str, Rule]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise Invalid
        return value
    return _rule(shown or f"an integer from {lo} to {hi}", check)


def float_range(lo: float, hi: float, shown: str | None = None) -> dict[str, Rule]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Invalid
        if not math.isfinite(value) or not lo <= value <= hi:
            raise Invalid
        return float(value)
    return _rule(shown or f"a number from {lo:g} to {hi:g}", check)


def boolean() -> dict[str, Rule]:
    def check(value: Any) -> bool:
        if not isinstance(value, bool):
            raise Invalid
        return value
    return _rule("true | false", check)


# What the display's font can draw (Latin-1 printable), nothing that breaks a log line.
_PRINTABLE = re.compile(r"^[\x20-\x7e\xa1-\xff]*$")


def text(min_len: int, max_len: int) -> dict[str, Rule]:
    def check(value: Any) -> str:
        if not isinstance(value, str) or not min_len <= len(value) <= max_len:
            raise Invalid
        if not _PRINTABLE.match(value):
            raise Invalid
        return value
    return _rule(f"text of {min_len} to {max_len} Latin-1 characters", check)


def currency_text() -> dict[str, Rule]:
    latin1 = text(0, 3)["rule"]

    def check(value: Any) -> str:
        # The euro sign is not Latin-1, but the display's font draws it.
        if isinstance(value, str) and "€" in value:
            latin1.check(value.replace("€", "E"))
            return value
        return latin1.check(value)
    return _rule("text of 0 to 3 Latin-1 characters or €, e.g. \"$\", \"Bs\", \"€\"", check)


def path_text() -> dict[str, Rule]:
    def check(value: Any) -> str:
        if not isinstance(value, str) or not value.strip() or "\x00" in value:
            raise Invalid
        return value
    return _rule("a path", check)


def ip_address() -> dict[str, Rule]:
    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise Invalid
        try:
            return str(ipaddress.ip_address(value))
        except ValueError:
            raise Invalid from None
    return _rule("an IP address of this device: '0.0.0.0' (every IPv4 interface), '::' (every interface), "
                 "'127.0.0.1' (this device only) or one interface's own address", check)


def camera_spec() -> dict[str, Rule]:
    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise Invalid
        try:
            parse_camera_spec(value)
        except ValueError:
            raise Invalid from None
        return value
    return _rule("'picamera[:N]' | 'usb:N' | 'usb:/dev/videoN' | 'video:FILE' | 'replay:DIR[?realtime]' | 'fake'",
                 check)


def colour_gains() -> dict[str, Rule]:
    gain = float_range(0.5, 8.0)["rule"]

    def check(value: Any) -> tuple[float, ...]:
        if not isinstance(value, list) or len(value) not in (0, 2):
            raise Invalid
        return tuple(gain.check(v) for v in value)
    return _rule("[] (auto white balance, then fixed) or [red, blue] gains from 0.5 to 8", check)


def tray_outline() -> dict[str, Rule]:
    def check(value: Any) -> tuple[tuple[float, float], ...] | str:
        if value == "auto":
            return value
        if not isinstance(value, list) or len(value) == 1 or len(value) == 2 or len(value) > 32:
            raise Invalid
        points = []
        for point in value:
            if not isinstance(point, list) or len(point) != 2:
                raise Invalid
            for v in point:
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 10_000:
                    raise Invalid
            points.append((float(point[0]), float(point[1])))
        if points and _polygon_area(points) < 48 * 48:
            raise Invalid
        return tuple(points)
    return _rule("[] (the whole picture), \"auto\" (found on the empty tray) or 3 to 32 [x, y] corners "
                 "in frame pixels around at least 48x48 pixels", check)


def _polygon_area(points: list[tuple[float, float]]) -> float:
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]))) / 2


def resolution() -> dict[str, Rule]:
    def check(value: Any) -> tuple[int, int]:
        if not isinstance(value, list) or len(value) != 2:
            raise Invalid
        width, height = value
        for v in value:
            if isinstance(v, bool) or not isinstance(v, int):
                raise Invalid
        if not (160 <= width <= 4608 and 120 <= height <= 3456):
            raise Invalid
        return (width, height)
    return _rule("[width, height] with width 160..4608 and height 120..3456", check)


def bcm_pin() -> dict[str, Rule]:
    # 2 and 3 are SDA and SCL of I2C bus 1, where the display lives.
    return int_range(4, 27, "a BCM GPIO number from 4 to 27 (2 and 3 are the display's I2C)")


def player_names() -> dict[str, Rule]:
    name = text(1, 8)["rule"]

    def check(value: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or len(value) > 8:
            raise Invalid
        names = tuple(name.check(v) for v in value)
        if len(set(names)) != len(names):
            raise Invalid
        return names
    return _rule("a list of up to 8 different names of 1 to 8 Latin-1 characters", check)


def house_rules() -> dict[str, Rule]:
    def check(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise Invalid
        for key, v in value.items():
            if isinstance(v, (dict, list)):
                raise Invalid
        return dict(value)
    return _rule("a table of the game's house-rule options (key = value)", check)


# -- the sections ----------------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceConfig:
    name: str = field(default="cubilete", metadata=text(1, 32))
    language: str = field(default="es", metadata=one_of("es", "en"))
    state_dir: str = field(default="/var/lib/cubilete", metadata=path_text())
    # The device's locale for money: every amount on the screens, the scoreboard and the
    # exports is written with these (firmware.localformat).
    currency: str = field(default="$", metadata=currency_text())
    currency_position: str = field(default="before", metadata=one_of(*CURRENCY_POSITIONS))
    decimal_separator: str = field(default="", metadata=one_of(
        "", *DECIMAL_SEPARATORS, shown="',' | '.' | '' (the language's: ',' in Spanish, '.' in English)"))

    def money_style(self) -> MoneyStyle:
        return MoneyStyle(self.currency, self.currency_position, self.decimal_separator)


@dataclass(frozen=True)
class CameraConfig:
    spec: str = field(default="picamera", metadata=camera_spec())
    resolution: tuple[int, int] = field(default=(640, 480), metadata=resolution())
    fps: int = field(default=30, metadata=int_range(1, 60))
    # After `settle_s` of automatic exposure and white balance, the controls are frozen so
    # the dice look the same all evening; the values below fix them from a calibration.
    lock_controls: bool = field(default=True, metadata=boolean())
    settle_s: float = field(default=2.0, metadata=float_range(0.0, 30.0))
    exposure_us: int = field(default=0, metadata=int_range(0, 1_000_000, "0 (auto, then fixed) or microseconds up to 1000000"))
    analogue_gain: float = field(default=0.0, metadata=float_range(0.0, 16.0, "0 (auto, then fixed) or a gain from 1 to 16"))
    colour_gains: tuple[float, ...] = field(default=(), metadata=colour_gains())
    # Camera Module 3: focus distance in dioptres (1 / metres); -1 = autofocus once at start.
    lens_position: float = field(default=-1.0, metadata=float_range(-1.0, 15.0, "-1 (autofocus once at start) or dioptres 0 to 15"))
    frame_timeout_s: float = field(default=2.0, metadata=float_range(0.5, 30.0))
    # Where the dice are read: the tray's floor in frame pixels, so a menu card or a
    # keyboard beside the tray is never read as dice.
    tray: tuple[tuple[float, float], ...] | str = field(default=(), metadata=tray_outline())

    def settings(self) -> dict[str, Any]:
        """As `hardware.camera.CameraSettings.from_mapping` takes them (None = settle, then lock)."""
        return {
            "resolution": self.resolution, "fps": float(self.fps),
            "lock_controls": self.lock_controls, "settle_s": self.settle_s,
            "exposure_us": self.exposure_us or None,
            "analogue_gain": self.analogue_gain or None,
            "colour_gains": self.colour_gains or None,
            "lens_position": None if self.lens_position < 0 else self.lens_position,
            "frame_timeout_s": self.frame_timeout_s,
        }


@dataclass(frozen=True)
class DisplayConfig:
    driver: str = field(default="ssd1306", metadata=one_of(*DISPLAY_DRIVERS, "terminal", "dummy"))
    # The panel's pixels; the screens' layout follows (more lines, a board of big numbers).
    size: str = field(default="128x64", metadata=one_of(*DISPLAY_SIZES))
    interface: str = field(default="i2c", metadata=one_of(*DISPLAY_INTERFACES))
    bus: int = field(default=1, metadata=int_range(0, 22))
    address: int = field(default=0x3C, metadata=int_range(0x08, 0x77, "an I2C address from 0x08 to 0x77 (usually 0x3C or 0x3D)"))
    rotate: int = field(default=0, metadata=one_of(0, 180))
    contrast: int = field(default=200, metadata=int_range(1, 255))
    idle_dim_s: int = field(default=300, metadata=int_range(0, 86_400, "0 (never) or seconds up to 86400"))
    idle_contrast: int = field(default=16, metadata=int_range(1, 255))
    pixel_shift: bool = field(default=True, metadata=boolean())


@dataclass(frozen=True)
class ButtonsConfig:
    spec: str = field(default="gpio", metadata=one_of("gpio", "keyboard", "none"))
    layout: str = field(default="three", metadata=one_of("three", "encoder"))
    pin_prev: int = field(default=5, metadata=bcm_pin())
    pin_next: int = field(default=6, metadata=bcm_pin())
    pin_ok: int = field(default=13, metadata=bcm_pin())
    pin_a: int = field(default=17, metadata=bcm_pin())
    pin_b: int = field(default=27, metadata=bcm_pin())
    pin_push: int = field(default=22, metadata=bcm_pin())
    long_press_s: float = field(default=0.7, metadata=float_range(0.3, 3.0))
    repeat_s: float = field(default=0.2, metadata=float_range(0.05, 2.0))
    bounce_s: float = field(default=0.02, metadata=float_range(0.0, 0.2))

    def layout_pins(self) -> dict[str, int]:
        """The pins the chosen layout uses, by role."""
        if self.layout == "encoder":
            return {"a": self.pin_a, "b": self.pin_b, "push": self.pin_push}
        return {"prev": self.pin_prev, "next": self.pin_next, "ok": self.pin_ok}


@dataclass(frozen=True)
class GameConfig:
    game: str = field(default="generala", metadata=one_of(*engine.GAMES, *engine.PRESETS))
    players: int = field(default=2, metadata=int_range(1, 8))
    names: tuple[str, ...] = field(default=(), metadata=player_names())
    order: str = field(default="roll-off", metadata=one_of("roll-off", "fixed"))
    stake_per_point: float = field(default=0.0, metadata=float_range(0.0, 1000.0))
    options: dict[str, Any] = field(default_factory=dict, metadata=house_rules())
    tournament: bool = field(default=False, metadata=boolean())  # no hints from the advisor


@dataclass(frozen=True)
class StorageConfig:
    retention_days: int = field(default=90, metadata=int_range(1, 3650))
    disk_cap_mb: int = field(default=1024, metadata=int_range(10, 1_000_000))
    jpeg_quality: int = field(default=80, metadata=int_range(30, 95))


@dataclass(frozen=True)
class ExportConfig:
    socket: str = field(default="/run/cubilete/control.sock", metadata=path_text())
    byte_cap_mb: int = field(default=2048, metadata=int_range(1, 1_000_000))
    include_snapshots: bool = field(default=True, metadata=boolean())


@dataclass(frozen=True)
class WebConfig:
    """The live scoreboard (`cubilete web`, its own service): where it listens."""

    enabled: bool = field(default=True, metadata=boolean())
    # 1024 and up: the scoreboard's service holds no capability to bind a lower port.
    port: int = field(default=8080, metadata=int_range(1024, 65535))
    bind: str = field(default="0.0.0.0", metadata=ip_address())
    max_viewers: int = field(default=100, metadata=int_range(1, 1000))


@dataclass(frozen=True)
class Config:
    device: DeviceConfig = field(default_factory=DeviceConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    game: GameConfig = field(default_factory=GameConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)
    export: ExportConfig = field(default_factory=ExportConfig)
    web: WebConfig = field(default_factory=WebConfig)


SECTIONS: dict[str, type] = {f.name: f.default_factory for f in fields(Config)}  # type: ignore[misc]


@dataclass(frozen=True)
class ConfigProblem:
    """One thing wrong with a config file. `key` is "section.key" ("" for the whole file)."""

    key: str
    value: Any
    allowed: str
    message: str

    def __str__(self) -> str:
        return self.message


# -- cross-key checks: (section, check) where check returns problems as (key, value, allowed) --


def _buttons_pins_distinct(section: ButtonsConfig) -> list[tuple[str, Any, str]]:
    pins = section.layout_pins()
    seen: dict[int, str] = {}
    for role, pin in pins.items():
        if pin in seen:
            return [(f"pin_{role}", pin, f"a pin not already used by pin_{seen[pin]}")]
        seen[pin] = role
    return []


def _game_options_known(section: GameConfig) -> list[tuple[str, Any, str]]:
    """House rules must be options of the game with allowed values (the engine says which)."""
    game, _ = engine.resolve_game(section.game)
    for key, value in section.options.items():
        try:
            game.option(key).check(value)
            engine.resolve_game(section.game, {key: value})
        except engine.UnknownOption:
            known = ", ".join(o.key for o in game.options) or "none"
            return [(f"options.{key}", value, f"an option of {game.id}: {known}")]
        except engine.BadOptionValue as error:
            if section.game in engine.PRESETS:
                return [(f"options.{key}", value, str(error))]
            return [(f"options.{key}", value, game.option(key).allowed_text())]
        except engine.RuleError:
            return [(f"options.{key}", value, game.option(key).allowed_text())]
    return []


def _display_driver_drives_the_size(section: DisplayConfig) -> list[tuple[str, Any, str]]:
    """An OLED driver drives only some panel sizes (luma.oled): ssd1306 no 256x64."""
    if section.driver in DISPLAY_DRIVERS and section.size not in DISPLAY_DRIVERS[section.driver]:
        return [("size", section.size, f"a size the {section.driver} drives ({' | '.join(DISPLAY_DRIVERS[section.driver])})"
                 f"; a {section.size} panel needs {' | '.join(drivers_for(section.size))}")]
    return []


CROSS_CHECKS: dict[str, Callable[[Any], list[tuple[str, Any, str]]]] = {
    "buttons": _buttons_pins_distinct,
    "game": _game_options_known,
    "display": _display_driver_drives_the_size,
}


# -- loading -------------------------------------------------------------------------------


def _moved_keys(data: dict[str, Any]) -> dict[str, Any]:
    """Keys that moved to another section, moved there (the older place still works):
    game.currency is device.currency now, one locale for the whole device. A value in the
    new place wins."""
    game, device = data.get("game"), data.get("device", {})
    if not isinstance(game, dict) or "currency" not in game or not isinstance(device, dict):
        return data
    game = {k: v for k, v in game.items() if k != "currency"}
    device = {"currency": data["game"]["currency"], **device}
    return {**data, "game": game, "device": device}


def config_from_dict(data: dict[str, Any]) -> tuple[Config, list[ConfigProblem]]:
    """Validate parsed TOML; bad sections fall back to their defaults."""
    data = _moved_keys(data)
    problems: list[ConfigProblem] = []
    sections: dict[str, Any] = {}
    for name, table in data.items():
        if name not in SECTIONS and not isinstance(table, dict):
            owners = [section for section, section_type in SECTIONS.items()
                      if name in {f.name for f in fields(section_type)}]
            where = f"; it belongs in [{owners[0]}]" if owners else f" (sections: {', '.join(SECTIONS)})"
            problems.append(ConfigProblem(name, _kept(table), "a key inside a [section]",
                                          f"{_show(name)[1:-1]} = ... is outside any section and ignored{where}"))
            continue
        if name not in SECTIONS:
            problems.append(ConfigProblem(name, _kept(table), ", ".join(SECTIONS),
                                          f"unknown section [{_show(name)[1:-1]}] ignored"
                                          f" (sections: {', '.join(SECTIONS)})"))
            continue
        section_type = SECTIONS[name]
        if not isinstance(table, dict):
            problems.append(ConfigProblem(name, _kept(table), "a table",
                                          f"{name} must be a table [{name}]; using the defaults for [{name}]"))
            continue
        section, section_problems = _load_section(name, section_type, table)
        problems += section_problems
        if section is not None:
            sections[name] = section
    return Config(**sections), problems


def _load_section(name: str, section_type: type, table: dict[str, Any]) -> tuple[Any, list[ConfigProblem]]:
    problems: list[ConfigProblem] = []
    known = {f.name: f for f in fields(section_type)}
    values: dict[str, Any] = {}
    bad = False
    for key, value in table.items():
        if key not in known:
            shown = _show(key)[1:-1]
            problems.append(ConfigProblem(f"{name}.{shown}", _kept(value), ", ".join(known),
                                          f"unknown key {name}.{shown} ignored (keys of [{name}]: {', '.join(known)})"))
            continue
        rule: Rule = known[key].metadata["rule"]
        try:
            values[key] = rule.check(value)
        except Exception:  # Invalid, or a check surprised by a value nobody foresaw
            bad = True
            problems.append(_bad_value(name, key, value, rule.allowed))
    if bad:
        return None, problems
    section = section_type(**values)
    cross = CROSS_CHECKS.get(name)
    try:
        found = cross(section) if cross else []
    except Exception as error:
        found = [("", f"{type(error).__name__}: {error}", "values that work together")]
    for key, value, allowed in found:
        problems.append(_bad_value(name, key, value, allowed))
        return None, problems
    return section, problems


def _bad_value(section: str, key: str, value: Any, allowed: str) -> ConfigProblem:
    where = f"{section}.{key}" if key else section
    return ConfigProblem(where, _kept(value), allowed,
                         f"{where} = {_show(value)} is not allowed: {allowed}; "
                         f"using the defaults for [{section}]")


def _show(value: Any) -> str:
    """A value as the file wrote it, cut short: a problem is one line on a screen and in the
    journal, whatever the file holds."""
    if isinstance(value, bool):
        return "true" if value else "false"
    try:
        text = repr(value) if isinstance(value, str) else str(value)
    except (RecursionError, ValueError):  # nested too deep; an int too long to print
        text = f"<{type(value).__name__}>"
    return text if len(text) <= SHOWN_VALUE_CHARS else text[:SHOWN_VALUE_CHARS - 3] + "..."


def _kept(value: Any) -> Any:
    """What a problem keeps of the value: numbers and short texts as they are, anything
    else (a table, a long text, a nested list) as its shortened text."""
    if isinstance(value, (bool, int, float)) and not (isinstance(value, int) and abs(value) > 10**18):
        return value
    if isinstance(value, str) and len(value) <= SHOWN_VALUE_CHARS:
        return value
    return _show(value)


def load_config(path: str | Path | None = None) -> tuple[Config, list[ConfigProblem]]:
    """The config from `path` (default /etc/cubilete/config.toml, which may be absent) over
    the built-in defaults, and every problem found. Never raises for a bad file, whatever it
    is: a folder, a FIFO or a device, unreadable, huge, not UTF-8, not TOML, nested beyond
    what the parser can follow."""
    explicit = path is not None
    file = Path(path) if path is not None else DEFAULT_PATH
    try:
        raw = read_config_file(file)
    except FileNotFoundError:
        if not explicit:
            return Config(), []
        return Config(), [_file_problem(file, "an existing TOML file", "no such file")]
    except NotAConfigFile as error:
        return Config(), [_file_problem(file, "a TOML file", str(error))]
    except OSError as error:
        return Config(), [_file_problem(file, "a readable TOML file", f"cannot read ({error.strerror or error})")]
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return Config(), [_file_problem(file, "UTF-8 text", "not UTF-8 text")]
    except tomllib.TOMLDecodeError as error:
        return Config(), [_file_problem(file, "valid TOML", f"not valid TOML ({error})")]
    except RecursionError:
        return Config(), [_file_problem(file, "valid TOML", "nested too deeply to read")]
    try:
        return config_from_dict(data)
    except RecursionError:
        return Config(), [_file_problem(file, "valid TOML", "nested too deeply to check")]
    except Exception as error:  # a bug in a check must not keep the device from starting
        return Config(), [_file_problem(file, "a config the device can check",
                                        f"cannot be checked ({type(error).__name__}: {_show(str(error))})")]


class NotAConfigFile(OSError):
    """The path names something that is not a regular file of a sensible size."""


def read_config_file(file: Path) -> bytes:
    """The file's bytes; NotAConfigFile for a folder, FIFO, device or socket (never opened
    for a blocking read) or a file over MAX_FILE_BYTES."""
    fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise NotAConfigFile("is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise NotAConfigFile("is not a regular file (a FIFO, device or socket)")
        if info.st_size > MAX_FILE_BYTES:
            raise NotAConfigFile(f"is {info.st_size} bytes, more than a config file can be"
                                 f" ({MAX_FILE_BYTES // 1024} kB)")
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_FILE_BYTES:  # it grew while we read it
            raise NotAConfigFile(f"is more than a config file can be ({MAX_FILE_BYTES // 1024} kB)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _file_problem(file: Path, allowed: str, what: str) -> ConfigProblem:
    return ConfigProblem("", str(file), allowed, f"{file}: {what}; using the built-in defaults")

