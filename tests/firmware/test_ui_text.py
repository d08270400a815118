"""The pixel font and the text catalogue: coverage, metrics, both languages, and that every
screen can be drawn whatever names and texts it is given."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import advice
from firmware.ui import DieIcon, FinalRow, GameOverScreen, MenuItem, MenuScreen, Names, OptionRow, T, TurnScreen, render
from firmware.ui import font
from firmware.ui.catalogue import (
    LANGUAGES, MESSAGES, NOTES, OPTION_LABELS, RULE_MESSAGES, message, note, say, text,
)
from firmware.ui.renderer import fit, wrap

LATIN1 = [chr(c) for c in range(0x20, 0x7F)] + [chr(c) for c in range(0xA0, 0x100)]


def test_the_font_draws_every_latin1_character_and_the_euro():
    missing = [c for c in LATIN1 + ["€"] if not font.has_glyph(c)]
    assert missing == []


def test_spanish_and_german_letters_have_glyphs_of_their_own():
    question = font.glyph("?")
    for c in "ñÑáéíóúÁÉÍÓÚüÜöÖäÄß¿¡€":
        g = font.glyph(c)
        assert g.any() and not (g.shape == question.shape and (g == question).all()), c


def test_accents_make_distinct_glyphs():
    shapes = {c: font.glyph(c).tobytes() for c in "aáàâãä eéèêë"}
    assert len(set(shapes.values())) == len(shapes)


def test_glyphs_fit_the_cell():
    for c in font.charset():
        g = font.glyph(c)
        assert g.shape[0] == font.HEIGHT and 1 <= g.shape[1] <= 5, c


def test_an_unknown_character_is_drawn_as_a_question_mark():
    assert (font.glyph("\u4e00") == font.glyph("?")).all()
    assert not font.can_draw("漢")


def test_digits_are_tabular_so_score_columns_line_up():
    assert {font.text_width(d) for d in string.digits} == {5}
    assert {font.big_glyph(d).shape for d in string.digits} == {(font.BIG_HEIGHT, 6)}


def test_text_width_counts_spacing_between_glyphs():
    assert font.text_width("") == 0
    assert font.text_width("A") == 5
    assert font.text_width("AA") == 11


def test_fit_cuts_with_an_ellipsis_and_wrap_breaks_at_spaces():
    assert fit("Ana", 100) == "Ana"
    cut = fit("Maximiliano Fernández", 50)
    assert cut.endswith("…") and font.text_width(cut) <= 50
    assert wrap("one two three four", 40, 3) == ["one two", "three", "four"]
    lines = wrap("a very long message that cannot fit in two short lines at all", 60, 2)
    assert len(lines) == 2 and lines[-1].endswith("…")


def fields(template) -> set[str]:
    templates = [template] if isinstance(template, str) else list(template.values())
    return {name for t in templates for name in re.findall(r"{(\w+)}", t)}


def test_every_message_exists_in_both_languages_with_the_same_fields():
    for key, entry in MESSAGES.items():
        assert set(entry) == set(LANGUAGES), key
        assert fields(entry["es"]) == fields(entry["en"]), key


def test_every_catalogue_text_is_drawable_by_the_font():
    for entry in list(MESSAGES.values()) + list(NOTES.values()):
        for template in entry.values():
            for t in [template] if isinstance(template, str) else template.values():
                assert font.can_draw(t), t
    for pair in list(RULE_MESSAGES.values()) + list(OPTION_LABELS.values()):
        assert all(font.can_draw(t) for t in pair), pair


def message_uses() -> list[tuple[str, str, set[str]]]:
    """Every say("key", ...) and T("key", ...) with a literal key in the device's code: where,
    the key, the fields given."""
    root = Path(__file__).resolve().parents[2]
    uses = []
    for path in sorted((root / "firmware").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("say", "T")
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                where = f"{path.relative_to(root)}:{node.lineno}"
                uses.append((where, node.args[0].value, {k.arg for k in node.keywords if k.arg}))
    return uses


def test_every_message_the_device_asks_for_is_in_the_catalogue_with_the_fields_it_is_given():
    uses = message_uses()
    assert len(uses) > 100
    for where, key, given in uses:
        assert key in MESSAGES, f"{where}: no message {key!r}"
        assert fields(MESSAGES[key]["en"]) <= given, f"{where}: {key!r} needs {fields(MESSAGES[key]['en'])}"


def test_say_gives_both_languages_and_fills_names_in_each():
    label = say("score_q", category=Names(es="Escalera", en="Straight"))
    assert label == Names(es="¿Anotar Escalera?", en="Score Straight?")
    assert message("score_q", "es", {"category": Names(es="Escalera", en="Straight")}) == "¿Anotar Escalera?"
    assert say("die_cocked", die=3).es == "Dado 3 montado: tírelo"


def test_messages_fill_in_their_fields_and_plurals():
    assert message("dice_seen", "es", {"seen": 4, "expected": 5}) == "4 de 5 dados vistos"
    assert message("dice_seen", "en", {"seen": 4, "expected": 5}) == "4 of 5 dice seen"
    assert message("die_which", "es", {"die": 3, "a": 5, "b": 6}) == "Dado 3: ¿5 o 6?"
    assert message("usb_games_exported", "en", {"n": 1}) == "1 game exported"
    assert message("usb_games_exported", "es", {"n": 7}) == "7 partidas exportadas"


def test_a_missing_message_or_field_shows_something_instead_of_failing():
    assert message("no-such-message", "es") == "no-such-message"
    assert message("dice_seen", "en", {}) == "{seen} of {expected} dice seen"


def test_labels_of_every_kind():
    assert text("Ana", "es") == "Ana"
    assert text(Names(es="Escalera", en="Straight"), "en") == "Straight"
    assert text(T("yes"), "es") == "Sí"


def test_every_engine_reason_has_a_short_note_in_both_languages():
    reasons = [value for name, value in vars(advice).items() if name.isupper() and isinstance(value, str)]
    assert reasons
    for reason in reasons:
        assert reason in NOTES, reason
        for lang in LANGUAGES:
            assert font.text_width(note(reason, lang)) <= 60
    assert note("something new", "es") == "something new"


# Names the config allows: 1 to 8 printable Latin-1 characters; screens get longer ones too.
names = st.text(alphabet=st.sampled_from(LATIN1 + ["€"]), min_size=1, max_size=24)


def blank_margin(image) -> bool:
    return not any(image.getpixel((127, y)) for y in range(64)) and not any(image.getpixel((x, 63)) for x in range(128))


@settings(max_examples=60, deadline=None)
@given(
    player=names,
    throw=st.integers(0, 3),
    total=st.one_of(st.none(), st.integers(0, 9999)),
    dice=st.lists(st.builds(DieIcon, st.one_of(st.none(), st.integers(1, 6)), st.booleans(), st.booleans(),
                            st.booleans()), max_size=5),
    options=st.lists(st.builds(OptionRow, names, st.one_of(st.none(), st.integers(-999, 9999)),
                               st.lists(st.sampled_from(sorted(NOTES) + ["odd reason"]), max_size=2).map(tuple),
                               st.booleans()), max_size=12),
    selected=st.one_of(st.none(), st.integers(-1, 13)),
    message_text=st.one_of(st.none(), names),
    lang=st.sampled_from(LANGUAGES),
)
def test_any_turn_screen_renders_within_the_safe_area(player, throw, total, dice, options, selected, message_text, lang):
    screen = TurnScreen(player, throw, 3, tuple(dice), tuple(options), selected, message_text, total)
    image = render(screen, lang)
    assert image.size == (128, 64) and blank_margin(image)


@settings(max_examples=30, deadline=None)
@given(rows=st.lists(st.builds(FinalRow, names, st.integers(-999, 99999), st.booleans(),
                               st.one_of(st.none(), st.integers(-10**7, 10**7))), min_size=1, max_size=8),
       page=st.integers(0, 2), items=st.lists(st.builds(MenuItem, names, st.one_of(st.none(), names)),
                                              min_size=1, max_size=12),
       lang=st.sampled_from(LANGUAGES))
def test_any_table_and_menu_renders_within_the_safe_area(rows, page, items, lang):
    assert blank_margin(render(GameOverScreen(Names("Cacho", "Cacho"), tuple(rows), page), lang))
    menu = MenuScreen(T("settings"), tuple(items), selected=len(items) - 1, editing=True, hint=T("hint_menu"))
    assert blank_margin(render(menu, lang))


def test_eight_players_with_long_names_stay_on_two_readable_pages():
    rows = tuple(FinalRow(f"Jugadora número {i}", 300 - 10 * i, i == 0, 100 * (4 - i)) for i in range(8))
    screen = GameOverScreen(Names("General", "General"), rows)
    assert screen.page_count == 2
    for page in range(2):
        assert blank_margin(render(GameOverScreen(screen.game, rows, page), "es"))


def test_every_name_the_engine_gives_the_screen_is_drawable():
    """Games, boxes, bonus lines and poker hands reach the screen as the engine names them."""
    from itertools import product

    import engine
    from engine.games.poker_dice import HANDS

    names = [name for _, *pair in HANDS for name in pair]
    for game in engine.GAMES.values():
        names += [game.name_en, game.name_es]
        for values in product(*(option.allowed for option in game.options)):
            rules = game.rules(dict(zip((o.key for o in game.options), values)))
            names += [n for c in rules.categories for n in (c.name_en, c.name_es)]
            names += [n for b in rules.bonuses for n in (b.name_en, b.name_es)]
    assert all(font.can_draw(name) for name in names), [n for n in names if not font.can_draw(n)]
