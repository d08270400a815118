"""Golden images of the OLED screens, drawn through luma.core's dummy device.

Each case is rendered, shown on a DummyDisplay and compared pixel for pixel with
tests/firmware/golden/<name>.png. After an intended change of a screen, regenerate with

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/firmware/test_ui_golden.py

and look at the new images before committing them (they are 128x64; scale them up to look).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageChops

from firmware.localformat import MoneyStyle
from firmware.ui import (
    ConfirmScreen,
    CorrectionScreen,
    DieIcon,
    FinalRow,
    GameOverScreen,
    MenuItem,
    MenuScreen,
    MessageScreen,
    Names,
    OptionRow,
    QrScreen,
    T,
    TurnScreen,
    camera_lost_screen,
    render,
    stopped_screen,
    usb_done_screen,
    usb_exporting_screen,
    usb_failed_screen,
)
from firmware.ui.qr import qr_modules
from hardware.display import DummyDisplay

GOLDEN = Path(__file__).parent / "golden"
BAR_URL = "http://cubilete-barra.local:8080/"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

N = Names
GENERALA = N("Generala", "Generala")
DICE = (DieIcon(6), DieIcon(6, held=True), DieIcon(6, held=True), DieIcon(3, unsure=True), DieIcon(5))
OPTIONS = (
    OptionRow(N("Full", "Full house"), 30, ("served",)),
    OptionRow(N("Seis", "Sixes"), 18),
    OptionRow(N("Escalera", "Straight"), 0, ("scratch",)),
    OptionRow(N("Póker", "Four of a kind"), None, ("turn_required",)),
    OptionRow(N("Generala", "Generala"), 0, ("scratch",)),
    OptionRow(N("Doble generala", "Double generala"), 0, ("scratch",), allowed=False),
)
EIGHT = (
    FinalRow("Maximiliano", 312, True, 2450), FinalRow("Ana", 298, False, 1050),
    FinalRow("Beto", 298, False, 1050), FinalRow("Carmen", 250, False, -350),
    FinalRow("Dolores", 201, False, -1250), FinalRow("Eugenia", 190, False, -1350),
    FinalRow("Fernando", 150, False, -1750), FinalRow("Guillermina", 35, False, -2750),
)
NEW_GAME = MenuScreen(T("new_game"), (
    MenuItem(T("game"), GENERALA), MenuItem(T("players"), "4"), MenuItem(T("stake"), "0,10 €"),
    MenuItem(T("order"), T("order_rolloff")), MenuItem(T("house_rules")), MenuItem(T("start"))),
    selected=1, editing=True, hint=T("hint_edit"))
GAMES = MenuScreen(T("game"), tuple(MenuItem(N(es, en)) for es, en in [
    ("General", "General"), ("Generala", "Generala"), ("Generala clásica", "Classic Generala"),
    ("Yacht", "Yacht"), ("Crag", "Crag"), ("Cacho", "Cacho"), ("Goldene Fünfzig", "Goldene Fünfzig")]),
    selected=6)

SIXES = (DieIcon(6), DieIcon(6), DieIcon(6), DieIcon(2), DieIcon(3))
DEVICE_FILL = (DieIcon(6, held=True), DieIcon(6, held=True), DieIcon(6, held=True), DieIcon(2), DieIcon(2))
DEVICE_OPTIONS = (
    OptionRow(N("Full", "Full house"), 30),
    OptionRow(N("Seis", "Sixes"), 18),
    OptionRow(N("Dos", "Twos"), 4),
    OptionRow(N("Escalera", "Straight"), 0, ("scratch",)),
)
NEW_GAME_DEVICE = MenuScreen(T("new_game"), (
    MenuItem(T("game"), GENERALA), MenuItem(T("players"), "2"), MenuItem(T("device_seat", name="Cubilete"), T("on")),
    MenuItem(T("house_rules")), MenuItem(T("stake"), T("no_stake")), MenuItem(T("start"))),
    selected=2, editing=True, hint=T("hint_edit"))
HOME_LOADED = MenuScreen(T("fairness_alert"), (MenuItem(T("new_game")), MenuItem(T("last_game")),
                                                MenuItem(T("settings"), "!")), 0, hint=T("fairness_see_short"))
FAIRNESS_ALERT = MessageScreen(T("fairness_alert"), (T("fairness_alert_line"), T("fairness_see")), icon="warning")
NO_TABLE = MessageScreen(T("device_no_table", player="Cubilete"),
                         (T("device_simple"), T("hint_no_table"), "cubilete solve yahtzee"), icon="info")

CASES = {
    "turn_es": (TurnScreen("Ana", 2, 3, DICE, OPTIONS, 0, T("die_which", die=4, a=3, b=5), total=120), "es"),
    "turn_en": (TurnScreen("Ana", 2, 3, DICE, OPTIONS, 0, T("die_which", die=4, a=3, b=5), total=120), "en"),
    "turn_scrolled_es": (TurnScreen("Maximiliano", 1, 3, tuple(DieIcon(v) for v in (1, 2, 3, 4, 5)), OPTIONS, 4,
                                    total=1230), "es"),
    "turn_waiting_es": (TurnScreen("Beto", 0, 3), "es"),
    "turn_waiting_en": (TurnScreen("Beto", 0, 3), "en"),
    "turn_dice_seen_en": (TurnScreen("Beto", 1, 3, (DieIcon(2), DieIcon(2), DieIcon(None), DieIcon(4)), (), None,
                                     T("dice_seen", seen=4, expected=5)), "en"),
    "turn_crag_turned_es": (TurnScreen("Ana", 3, 3, (DieIcon(1), DieIcon(1, turned=True), DieIcon(6, held=True)),
                                       OPTIONS[:2], 1), "es"),
    "turn_instant_win_es": (TurnScreen("Jürgen", 1, 3, tuple(DieIcon(5) for _ in range(5)),
                                       (OptionRow(N("Generala servida", "Generala served"), 50, ("instant_win",)),),
                                       0, T("instant_win")), "es"),
    "menu_new_game_es": (NEW_GAME, "es"),
    "menu_new_game_en": (NEW_GAME, "en"),
    "menu_games_en": (GAMES, "en"),
    "menu_settings_es": (MenuScreen(T("settings"), (MenuItem(T("language"), T("lang_es")),
                                                   MenuItem(T("brightness"), "4/5"), MenuItem(T("back"))), 0), "es"),
    "correction_ambiguous_es": (CorrectionScreen(T("confirm_die"), tuple(DieIcon(v, unsure=i == 2) for i, v in
                                                                         enumerate((2, 2, 5, 4, 4))),
                                                 2, T("die_which", die=3, a=5, b=6), ("5", "6"), 1), "es"),
    "correction_value_en": (CorrectionScreen(T("correct_die"), tuple(DieIcon(v) for v in (2, 2, 5, 4, 4)), 4,
                                             T("die_value", die=5), tuple(str(v) for v in range(1, 7)), 3), "en"),
    "correction_turned_es": (CorrectionScreen(T("confirm_die"), tuple(DieIcon(v) for v in (3, 3, 1, 6, 2)), 3,
                                              T("die_turned_q", die=4), (T("yes"), T("no")), 0), "es"),
    # Dice by hand: which dice were thrown again (two held, one answered), then a value.
    "hand_thrown_es": (CorrectionScreen(T("by_hand"), (DieIcon(3, held=True), DieIcon(None), DieIcon(5, held=True),
                                                       DieIcon(5, held=True), DieIcon(2, held=True)),
                                        2, T("die_thrown_q", die=3), (T("yes"), T("no")), 1), "es"),
    "hand_thrown_en": (CorrectionScreen(T("by_hand"), (DieIcon(3, held=True), DieIcon(None), DieIcon(5, held=True),
                                                       DieIcon(5, held=True), DieIcon(2, held=True)),
                                        2, T("die_thrown_q", die=3), (T("yes"), T("no")), 1), "en"),
    "hand_value_es": (CorrectionScreen(T("by_hand"), (DieIcon(4), DieIcon(6), DieIcon(None), DieIcon(None),
                                                      DieIcon(None)),
                                       2, T("die_value", die=3), tuple(str(v) for v in range(1, 7)), 0), "es"),
    "hand_value_en": (CorrectionScreen(T("by_hand"), (DieIcon(4), DieIcon(6), DieIcon(None), DieIcon(None),
                                                      DieIcon(None)),
                                       2, T("die_value", die=3), tuple(str(v) for v in range(1, 7)), 0), "en"),
    "turn_by_hand_es": (TurnScreen("Ana", 0, 3, message=T("hand_first")), "es"),
    "turn_by_hand_en": (TurnScreen("Ana", 1, 3, tuple(DieIcon(v) for v in (3, 3, 3, 5, 5)),
                                   (OptionRow(N("Full", "Full house"), 30, ("served",)), OptionRow(N("Cinco", "Fives"), 10),
                                    OptionRow(N("Tres", "Threes"), 9)), 0, T("hand_more"), total=40), "en"),
    "confirm_undo_es": (ConfirmScreen(T("undo_last"), (T("undo_score", name="Ana", category="Full", points=30),)),
                        "es"),
    "confirm_undo_en": (ConfirmScreen(T("undo_last"), (T("undo_score", name="Ana", category="Full house",
                                                         points=30),)), "en"),
    "game_over_two_es": (GameOverScreen(GENERALA, (FinalRow("Ana", 245, True, 1250), FinalRow("Beto", 120, False, -1250)),
                                        money=MoneyStyle("€", "after"), note=T("winner", name="Ana")), "es"),
    "game_over_two_en": (GameOverScreen(GENERALA, (FinalRow("Ana", 245, True, 1250), FinalRow("Beto", 120, False, -1250)),
                                        money=MoneyStyle("€", "before"), note=T("winner", name="Ana")), "en"),
    "game_over_eight_page1_es": (GameOverScreen(N("Cacho", "Cacho"), EIGHT, 0, money=MoneyStyle("€", "after")), "es"),
    "game_over_eight_page2_en": (GameOverScreen(N("Cacho", "Cacho"), EIGHT, 1, money=MoneyStyle("€"), note=T("tie")), "en"),
    "game_over_points_only_es": (GameOverScreen(N("Yacht", "Yacht"), tuple(FinalRow(r.name, r.points, r.winner) for r in EIGHT[:4])), "es"),
    "camera_lost_es": (camera_lost_screen(4.2), "es"),
    "camera_lost_en": (camera_lost_screen(), "en"),
    "usb_exporting_es": (usb_exporting_screen(), "es"),
    "usb_done_en": (usb_done_screen(3), "en"),
    "usb_done_one_es": (usb_done_screen(1), "es"),
    "usb_failed_en": (usb_failed_screen("the stick is read-only"), "en"),
    "usb_failed_still_mounted_es": (usb_failed_screen("no se pudo desmontar", safe_to_remove=False), "es"),
    "stopped_es": (stopped_screen(), "es"),
    "stopped_en": (stopped_screen(), "en"),
    "config_problem_en": (MessageScreen(T("config_problem", key="buttons.pin_ok"), ("buttons.pin_ok: 2 is not a BCM GPIO number from 4 to 27",
                                                              T("config_defaults")), icon="warning"), "en"),
    "fairness_warning_es": (MessageScreen(T("fairness"), (T("fairness_all", n=812, p="<0.001"), "1:121 2:118 3:125",
                                                          "4:119 5:122 6:207", T("fairness_warning"),
                                                          T("fairness_today", n=54, p=" 0.031")), icon="warning"), "es"),
    "fairness_few_en": (MessageScreen(T("fairness"), (T("fairness_all", n=120, p=" 0.412"), "1:61 2:58 3:65",
                                                      "4:59 5:62 6:55", T("fairness_few", n=120, need=600)),
                                      icon="dice"), "en"),
    "hint_es": (MessageScreen(T("hint"), (N("guardar 6 6 6", "keep 6 6 6"), T("hint_expected", x="171.4"),
                                          N("anotar Full 30", "fill Full house 30"), T("hint_expected", x="168.9")),
                              icon="info"), "es"),
    # The practice opponent: the device's turn (throw for it, set its dice aside, the box it
    # fills on OK), a seat for it in the new game, and the notice of a game without a table.
    "device_throw_es": (TurnScreen("Cubilete", 0, 3, message=T("device_throw", player="Cubilete"), total=84), "es"),
    "device_keep_es": (TurnScreen("Cubilete", 1, 3, SIXES, (), None, T("device_keep", dice="6 6 6"), total=84), "es"),
    "device_keep_en": (TurnScreen("Cubilete", 1, 3, SIXES, (), None, T("device_keep", dice="6 6 6"), total=84), "en"),
    "device_scores_es": (TurnScreen("Cubilete", 2, 3, DEVICE_FILL, DEVICE_OPTIONS, 0,
                                    T("device_scores", player="Cubilete"), total=84), "es"),
    "device_scores_en": (TurnScreen("Cubilete", 2, 3, DEVICE_FILL, DEVICE_OPTIONS, 0,
                                    T("device_scores", player="Cubilete"), total=84), "en"),
    "menu_new_game_device_es": (NEW_GAME_DEVICE, "es"),
    "menu_new_game_device_en": (NEW_GAME_DEVICE, "en"),
    "device_no_table_es": (NO_TABLE, "es"),
    "device_no_table_en": (NO_TABLE, "en"),
    # Loaded dice, told without opening the settings: a notice, then the home screen.
    "fairness_alert_es": (FAIRNESS_ALERT, "es"),
    "fairness_alert_en": (FAIRNESS_ALERT, "en"),
    "home_loaded_es": (HOME_LOADED, "es"),
    "home_loaded_en": (HOME_LOADED, "en"),
    "scoreboard_es": (QrScreen(T("scoreboard"), (T("scoreboard_open"),), BAR_URL, qr_modules(BAR_URL)), "es"),
    "scoreboard_en": (QrScreen(T("scoreboard"), (T("scoreboard_open"),), BAR_URL, qr_modules(BAR_URL)), "en"),
}


def through_dummy(image: Image.Image) -> Image.Image:
    display = DummyDisplay()
    display.show(image)
    return display.last_image


@pytest.mark.parametrize("name", sorted(CASES))
def test_screen_matches_its_golden_image(name, tmp_path):
    screen, lang = CASES[name]
    actual = through_dummy(render(screen, lang))
    path = GOLDEN / f"{name}.png"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        actual.save(path, optimize=True)
        return
    assert path.is_file(), f"no golden image {path.name}; create it with UPDATE_GOLDEN=1 and look at it"
    expected = Image.open(path).convert("1")
    changed = int(np.count_nonzero(np.asarray(ImageChops.logical_xor(expected, actual))))
    if changed:
        actual.save(tmp_path / f"{name}.actual.png")
    assert changed == 0, (f"{name}: {changed} pixels differ from {path}; the new frame is in {tmp_path}; "
                          "if the change is intended, regenerate with UPDATE_GOLDEN=1")


def test_every_golden_image_belongs_to_a_case():
    if not GOLDEN.is_dir():
        pytest.fail("tests/firmware/golden is missing")
    stale = sorted(p.stem for p in GOLDEN.glob("*.png") if p.stem not in CASES)
    assert not stale, f"golden images without a case: {stale}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_screens_keep_the_pixel_shift_margin_free(name):
    screen, lang = CASES[name]
    image = render(screen, lang)
    assert image.mode == "1" and image.size == (128, 64)
    assert not any(image.getpixel((127, y)) for y in range(64))
    assert not any(image.getpixel((x, 63)) for x in range(128))
