"""The engine and ../shared/rules/GAMES.md name the same games, categories and options.

The rules themselves are tested without ../shared (test_vectors, test_every_roll); this only
checks that the specification and the definitions have not drifted apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import engine


@pytest.fixture(scope="module")
def sections(shared_dir: Path) -> dict[str, str]:
    text = (shared_dir / "rules" / "GAMES.md").read_text(encoding="utf-8")
    parts = re.split(r"^## ", text, flags=re.MULTILINE)
    found = {}
    for part in parts[1:]:
        heading, _, body = part.partition("\n")
        match = re.match(r"([a-z][a-z-]*) — ", heading)
        if match:
            found[match.group(1)] = body
    return found


def table_ids(body: str) -> list[str]:
    """The ids in the first column of the rules table (the one headed `| id |`)."""
    ids: list[str] = []
    in_table = False
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| id |"):
            in_table = True
        elif in_table and line.startswith("|"):
            if not set(cells[0]) <= set("-"):
                ids += [c.strip() for c in re.split(r",|\.\.\.", cells[0]) if c.strip()]
        else:
            in_table = False
    return ids


def test_every_game_of_the_specification_is_in_the_engine(sections) -> None:
    assert set(sections) == set(engine.GAMES)


def test_every_category_of_the_rules_tables_exists(sections) -> None:
    for game_id, body in sections.items():
        ids = table_ids(body)
        if game_id == "generala-classic" or game_id == "goldene-fuenfzig":
            continue  # "as generala", no table of their own
        if game_id == "kniffel":  # "the boxes, ids and points of `yahtzee`"
            assert "ids and points of `yahtzee`" in body
            assert engine.GAMES["kniffel"].default_rules.category_ids == engine.GAMES["yahtzee"].default_rules.category_ids
            continue
        if game_id == "poker-dice":  # no score sheet: the one box is the hand stood on
            assert "No score sheet" in body and engine.GAMES[game_id].default_rules.category_ids == ("hand",)
            continue
        assert ids, game_id
        known = set(engine.GAMES[game_id].default_rules.category_ids)
        assert set(ids) <= known, (game_id, set(ids) - known)


def test_every_option_named_in_the_specification_exists(sections) -> None:
    for game_id, body in sections.items():
        game = engine.GAMES[game_id]
        named = set(re.findall(r"`([a-z_]+)`", body))
        keys = {o.key for o in game.options}
        # Option words in backticks that are not category ids are option keys.
        options = {name for name in named if name not in set(game.default_rules.category_ids) | {"generala", "fifty"}}
        assert options <= keys | {"turn_required", "stake_per_match"}, (game_id, options - keys)
        if "stake_per_match" in options:  # not an option: the game's stake is per match
            assert game.default_rules.stake_per == "game"
    assert "yacht-1938" in engine.PRESETS and "`yacht-1938`" in sections["yacht"]
