"""The config file: defaults, validation by key, section fallback, unknown keys."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine

from firmware.config import Config, ConfigProblem, load_config

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "firmware" / "default_config.toml"


def load(tmp_path: Path, text: str) -> tuple[Config, list[ConfigProblem]]:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def test_the_shipped_default_file_is_valid_and_matches_the_built_in_defaults() -> None:
    config, problems = load_config(DEFAULT_FILE)
    assert problems == []
    assert config == Config()


def test_a_named_file_that_is_missing_is_reported(tmp_path: Path) -> None:
    config, problems = load_config(tmp_path / "absent.toml")
    assert config == Config()
    assert len(problems) == 1 and "no such file" in problems[0].message


def test_good_values_are_applied(tmp_path: Path) -> None:
    config, problems = load(tmp_path, """
[device]
language = "en"
[display]
driver = "sh1106"
address = 0x3D
rotate = 180
[game]
players = 4
names = ["Ana", "Beto", "Ñandú"]
stake_per_point = 0.5
""")
    assert problems == []
    assert config.device.language == "en"
    assert (config.display.driver, config.display.address, config.display.rotate) == ("sh1106", 0x3D, 180)
    assert config.game.players == 4
    assert config.game.names == ("Ana", "Beto", "Ñandú")
    assert config.game.stake_per_point == 0.5


def test_bad_value_names_key_value_and_allowed_values_and_section_falls_back(tmp_path: Path) -> None:
    config, problems = load(tmp_path, """
[camera]
spec = "usb:0"
fps = 240
[device]
language = "fr"
""")
    by_key = {p.key: p for p in problems}
    assert set(by_key) == {"camera.fps", "device.language"}
    assert by_key["camera.fps"].value == 240
    assert "1 to 60" in by_key["camera.fps"].allowed
    assert "'es' | 'en'" in by_key["device.language"].message
    assert "defaults for [camera]" in by_key["camera.fps"].message
    # The whole [camera] section falls back, including the good spec.
    assert config.camera == Config().camera
    assert config.device == Config().device


def test_other_sections_keep_their_values_when_one_is_bad(tmp_path: Path) -> None:
    config, problems = load(tmp_path, """
[display]
rotate = 90
[storage]
retention_days = 7
""")
    assert [p.key for p in problems] == ["display.rotate"]
    assert config.display == Config().display
    assert config.storage.retention_days == 7


def test_unknown_keys_and_sections_are_reported_and_ignored(tmp_path: Path) -> None:
    config, problems = load(tmp_path, """
[camera]
fsp = 25
fps = 25
[wifi]
ssid = "bar"
""")
    assert sorted(p.key for p in problems) == ["camera.fsp", "wifi"]
    assert config.camera.fps == 25  # an unknown key does not reset its section


@pytest.mark.parametrize("text, key", [
    ('[display]\ncontrast = true', "display.contrast"),
    ('[display]\npixel_shift = 1', "display.pixel_shift"),
    ('[camera]\nresolution = [640]', "camera.resolution"),
    ('[camera]\nspec = "webcam"', "camera.spec"),
    ('[camera]\ntray = [[0, 0], [100, 0]]', "camera.tray"),
    ('[camera]\ntray = "somewhere"', "camera.tray"),
    ('[camera]\ntray = [[0, 0], [10, 0], [0, 10]]', "camera.tray"),  # too small to hold a die
    ('[camera]\ntray = [[0, 0], [-5, 300], [400, 300]]', "camera.tray"),
    ('[buttons]\npin_ok = 2', "buttons.pin_ok"),
    ('[buttons]\npin_ok = 5', "buttons.pin_ok"),  # same pin as pin_prev
    ('[game]\nnames = ["Ana", "Ana"]', "game.names"),
    ('[game]\nnames = ["a name far too long"]', "game.names"),
    ('[game]\nplayers = 9', "game.players"),
    ('[game]\ngame = "poker"', "game.game"),
    ('[game]\nstake_per_point = -1', "game.stake_per_point"),
    ('[storage]\ndisk_cap_mb = 1.5', "storage.disk_cap_mb"),
])
def test_each_kind_of_bad_value_is_caught(tmp_path: Path, text: str, key: str) -> None:
    config, problems = load(tmp_path, text)
    assert [p.key for p in problems] == [key]
    section = key.split(".")[0]
    assert getattr(config, section) == getattr(Config(), section)


def test_encoder_pins_are_checked_only_with_the_encoder_layout(tmp_path: Path) -> None:
    _, problems = load(tmp_path, "[buttons]\npin_a = 5")
    assert problems == []
    _, problems = load(tmp_path, '[buttons]\nlayout = "encoder"\npin_a = 27')
    assert [p.key for p in problems] == ["buttons.pin_b"]


def test_not_toml_falls_back_to_all_defaults(tmp_path: Path) -> None:
    config, problems = load(tmp_path, "[camera\nfps = 30")
    assert config == Config()
    assert len(problems) == 1 and "not valid TOML" in problems[0].message


def test_section_that_is_not_a_table(tmp_path: Path) -> None:
    config, problems = load(tmp_path, "camera = 3")
    assert [p.key for p in problems] == ["camera"]
    assert config == Config()


def test_config_check_command_prints_each_problem_and_exits_1(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    bad = tmp_path / "bad.toml"
    bad.write_text('[camera]\nfps = 240\n[display]\ndriver = "oled"\n', encoding="utf-8")
    assert main(["config", "check", str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert "camera.fps = 240" in out[0] and "1 to 60" in out[0]
    assert "display.driver = 'oled'" in out[1] and "'sh1106'" in out[1]

    assert main(["config", "check", str(DEFAULT_FILE)]) == 0
    assert "valid" in capsys.readouterr().out


def test_house_rules_are_checked_against_the_game(tmp_path: Path) -> None:
    config, problems = load(tmp_path, '[game]\ngame = "generala-classic"\n[game.options]\ngenerala_points = 50\n')
    assert problems == [] and config.game.options == {"generala_points": 50}
    _, problems = load(tmp_path, '[game]\ngame = "generala-classic"\n[game.options]\ngenerala_points = 55\n')
    assert [p.key for p in problems] == ["game.options.generala_points"]
    assert "60, 50" in problems[0].allowed
    _, problems = load(tmp_path, '[game]\n[game.options]\nbonus = true\n')
    assert [p.key for p in problems] == ["game.options.bonus"] and "held_dice_locked" in problems[0].allowed


def test_every_game_and_preset_of_the_engine_is_a_game_the_config_takes(tmp_path: Path) -> None:
    for game_id in [*engine.GAMES, *engine.PRESETS]:
        config, problems = load(tmp_path, f'[game]\ngame = "{game_id}"\n')
        assert problems == [] and config.game.game == game_id


def test_a_preset_keeps_the_options_it_is_named_for(tmp_path: Path) -> None:
    _, problems = load(tmp_path, '[game]\ngame = "yacht-1938"\n[game.options]\nrules = "scarne"\n')
    assert [p.key for p in problems] == ["game.options.rules"]
    assert "yacht-1938 is yacht with rules=1938" in problems[0].allowed


def test_a_key_outside_any_section_says_which_section_it_belongs_in(tmp_path: Path) -> None:
    config, problems = load(tmp_path, 'players = 3\nfoo = 1\n[game]\nplayers = 4\n')
    messages = {p.key: p.message for p in problems}
    assert "belongs in [game]" in messages["players"] and "outside any section" in messages["foo"]
    assert "unknown section" not in " ".join(messages.values())
    assert config.game.players == 4


def test_the_tray_outline_is_corners_or_auto(tmp_path: Path) -> None:
    config, problems = load(tmp_path, '[camera]\ntray = [[10, 20], [600, 20.5], [600, 460], [10, 460]]')
    assert problems == [] and config.camera.tray == ((10.0, 20.0), (600.0, 20.5), (600.0, 460.0), (10.0, 460.0))
    config, problems = load(tmp_path, '[camera]\ntray = "auto"')
    assert problems == [] and config.camera.tray == "auto"


def test_the_locale_is_one_per_device_with_defaults_by_language(tmp_path: Path) -> None:
    config, problems = load(tmp_path, """
[device]
language = "en"
currency = "€"
currency_position = "after"
""")
    assert problems == []
    style = config.device.money_style()
    assert (style.currency, style.position, style.separator("en"), style.separator("es")) == ("€", "after", ".", ",")
    config, problems = load(tmp_path, '[device]\ndecimal_separator = ","\n')
    assert problems == [] and config.device.money_style().separator("en") == ","


def test_a_currency_in_the_older_place_still_counts_and_the_new_place_wins(tmp_path: Path) -> None:
    config, problems = load(tmp_path, '[game]\ncurrency = "Bs"\nplayers = 3\n')
    assert problems == []
    assert (config.device.currency, config.game.players) == ("Bs", 3)
    config, problems = load(tmp_path, '[device]\ncurrency = "€"\n[game]\ncurrency = "Bs"\n')
    assert problems == [] and config.device.currency == "€"


def test_a_bad_locale_value_says_what_is_allowed(tmp_path: Path) -> None:
    config, problems = load(tmp_path, '[device]\ndecimal_separator = ";"\ncurrency_position = "left"\n')
    keys = {p.key for p in problems}
    assert keys == {"device.decimal_separator", "device.currency_position"}
    assert any("in Spanish" in p.allowed for p in problems)
    assert config.device == Config().device


def test_the_display_driver_and_panel_size_are_checked_together(tmp_path: Path) -> None:
    config, problems = load(tmp_path, '[display]\ndriver = "ssd1322"\nsize = "256x64"\ninterface = "spi"\n')
    assert not problems and (config.display.driver, config.display.size, config.display.interface) == (
        "ssd1322", "256x64", "spi")
    config, problems = load(tmp_path, '[display]\ndriver = "ssd1306"\nsize = "128x128"\n')
    assert config.display.size == "128x64" and [p.key for p in problems] == ["display.size"]
    assert "a 128x128 panel needs sh1106 | sh1107 | ssd1327 | ssd1351" in problems[0].message
    config, problems = load(tmp_path, '[display]\nsize = "320x240"\n')
    assert problems[0].message == ("display.size = '320x240' is not allowed: '128x64' | '128x128' | '256x64'; "
                                   "using the defaults for [display]")
