"""`cubilete games`: the games the engine plays, with their names, dice and options."""

from __future__ import annotations

import argparse
import json

from engine import GAMES, PRESETS


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "games", help="list the games, their categories and house-rule options",
        description="List every game the scorer plays with its names, dice, throws, categories "
                    "and house-rule options (with defaults), and the option presets.")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(handler=run)


def catalogue() -> dict:
    """Every game and preset as plain data (what --json prints)."""
    games = []
    for game in GAMES.values():
        games.append({
            "id": game.id, "name_en": game.name_en, "name_es": game.name_es,
            "dice": game.dice, "throws": game.throws,
            "categories": [{"id": c.id, "name_en": c.name_en, "name_es": c.name_es} for c in game.categories],
            "options": [{"key": o.key, "default": o.default, "allowed": list(o.allowed),
                         "description": o.description} for o in game.options],
            "note": game.note,
        })
    presets = [{"id": p.id, "game": p.game, "options": dict(p.options), "name_en": p.name_en,
                "name_es": p.name_es} for p in PRESETS.values()]
    return {"games": games, "presets": presets}


def _word(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def run(args: argparse.Namespace) -> int:
    data = catalogue()
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
        return 0
    for game in data["games"]:
        print(f"{game['id']}: {game['name_en']} / {game['name_es']}; "
              f"{game['dice']} dice, up to {game['throws']} throws, {len(game['categories'])} categories")
        if game["note"]:
            print(f"  note: {game['note']}")
        print("  categories: " + ", ".join(c["id"] for c in game["categories"]))
        for option in game["options"]:
            allowed = "|".join(_word(v) for v in option["allowed"])
            print(f"  option {option['key']}={_word(option['default'])} ({allowed}): {option['description']}")
    for preset in data["presets"]:
        given = " ".join(f"{k}={_word(v)}" for k, v in preset["options"].items())
        print(f"{preset['id']}: {preset['name_en']}; preset of {preset['game']} with {given}")
    return 0
