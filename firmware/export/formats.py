"""The files of an export, as bytes: games.csv, scoresheet.csv, events.jsonl, scoresheet.html.

CSV files are UTF-8 with a byte-order mark (so Excel shows accents right) and CRLF line
ends. A text cell that a spreadsheet would take for a formula (starting with = + - @) is
prefixed with an apostrophe: player names are typed by anyone at the bar.
The HTML sheet is self-contained and printable: inline CSS, no scripts, no images, no
links, and a Content-Security-Policy that forbids loading anything.
"""

from __future__ import annotations

import csv
import html
import io
import json
from datetime import date
from typing import Any, Iterable, Iterator, Mapping, Sequence

from engine.fairness import Fairness
from firmware.export.summary import GameSummary
from firmware.fairness_report import FairnessReport

GAMES_CSV_COLUMNS = (
    "game_id", "folder", "game", "options", "started_at", "ended_at", "status", "players",
    "totals", "winners", "settlement", "stake_per_point", "events", "throws", "corrections",
    "undos", "note",
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

# The score sheets are for people: in the device's language. games.csv and events.jsonl
# are data: English column names and values, whatever the language.
LABELS = {
    "es": {"total": "Total", "winner": "Ganador", "winners": "Ganadores", "settlement": "Liquidación",
           "note": "Nota", "game": "partida", "started": "empezó", "ended": "terminó",
           "options": "opciones", "stake": "apuesta por punto", "legend": "X = tachado, * = servido (de mano). Abajo, cada tiro.",
           "log": "Tiros y anotaciones", "time": "hora (UTC)", "player": "jugador", "what": "qué",
           "dice": "dados", "camera": "cámara", "throw": "tiro", "throw_some": "tiro ({n} dados)",
           "scored": "anota {name}: {points}", "crossed": "tacha {name}", "corrected": "lectura corregida",
           "by_hand": "a mano",
           "turned": "dado {die} volteado a {value}", "undone": "se deshace la última anotación",
           "finished": "terminada", "in progress": "en juego", "ended unfinished": "terminada sin completar"},
    "en": {"total": "Total", "winner": "Winner", "winners": "Winners", "settlement": "Settlement",
           "note": "Note", "game": "game", "started": "started", "ended": "ended",
           "options": "options", "stake": "stake per point", "legend": "X = crossed out, * = served (de mano). Every throw follows.",
           "log": "Throws and scores", "time": "time (UTC)", "player": "player", "what": "what",
           "dice": "dice", "camera": "camera", "throw": "throw", "throw_some": "throw ({n} dice)",
           "scored": "scores {name}: {points}", "crossed": "crosses out {name}", "corrected": "reading corrected",
           "by_hand": "by hand",
           "turned": "die {die} turned to {value}", "undone": "last score undone",
           "finished": "finished", "in progress": "in progress", "ended unfinished": "ended unfinished"},
}


def labels(language: str) -> dict[str, str]:
    return LABELS.get(language, LABELS["en"])


def status_text(summary: GameSummary) -> str:
    head = summary.status.partition(":")[0]
    text = labels(summary.language).get(head, head)
    if summary.instant_win:
        text += ": " + summary.instant_win.get(summary.language, summary.instant_win["en"])
    return text


def safe_cell(value: Any) -> str:
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_START) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _csv(rows: Iterable[Sequence[Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for row in rows:
        writer.writerow([safe_cell(v) for v in row])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def format_options(options: Mapping[str, Any]) -> str:
    return "; ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in sorted(options.items()))


def games_csv_row(summary: GameSummary, folder: str) -> dict[str, str]:
    totals = summary.totals or []
    return {
        "game_id": summary.game_id,
        "folder": folder,
        "game": summary.game,
        "options": format_options(summary.options),
        "started_at": summary.started_at,
        "ended_at": summary.ended_at or "",
        "status": summary.status,
        "players": "; ".join(summary.players),
        "totals": "; ".join(f"{p} {t}" for p, t in zip(summary.players, totals)),
        "winners": "; ".join(summary.winners),
        "settlement": "; ".join(summary.settlement),
        "stake_per_point": summary.stake or "",
        "events": str(summary.events),
        "throws": str(summary.throws),
        "corrections": str(summary.corrections),
        "undos": str(summary.undos),
        "note": summary.problem or "",
    }


def games_csv(rows: Iterable[Mapping[str, str]]) -> bytes:
    """One row per game, oldest first."""
    ordered = sorted(rows, key=lambda r: (r.get("started_at", ""), r.get("game_id", "")))
    return _csv([GAMES_CSV_COLUMNS, *([row.get(c, "") for c in GAMES_CSV_COLUMNS] for row in ordered)])


FAIRNESS_CSV_COLUMNS = ("scope", "first_throws", "dice", "ones", "twos", "threes", "fours", "fives", "sixes",
                        "chi_square", "p_value", "warning")


def fairness_csv(report: FairnessReport) -> bytes:
    """The dice fairness test: the device's every first throw, then each game day."""
    def row(scope: str, result: Fairness) -> list[str]:
        return [scope, str(result.throws), str(result.dice), *map(str, result.counts),
                f"{result.chi_square:.3f}", f"{result.p_value:.6f}", "yes" if result.warning else "no"]

    rows = [row("device", report.device)]
    rows += [row("" if day == date.min else day.isoformat(), result) for day, result in report.days]
    return _csv([FAIRNESS_CSV_COLUMNS, *rows])


def scoresheet_rows(summary: GameSummary) -> list[list[str]]:
    """Categories down, players across, like the paper sheet; open boxes are empty,
    crossed-out boxes X, served (de mano) points marked with *."""
    rows: list[list[str]] = [["", *summary.players]]
    for (_, name), cells in zip(summary.categories, summary.sheet):
        rows.append([name, *("" if c is None else c.text() for c in cells)])
    for label, values in summary.extra_rows:
        rows.append([label, *values])
    if summary.totals is not None:
        rows.append([labels(summary.language)["total"], *(str(t) for t in summary.totals)])
    return rows


def scoresheet_csv(summary: GameSummary) -> bytes:
    words = labels(summary.language)
    rows = scoresheet_rows(summary)
    if summary.winners:
        rows.append([words["winner" if len(summary.winners) == 1 else "winners"], "; ".join(summary.winners)])
    for payment in summary.payments:
        rows.append([words["settlement"], payment.text(summary.language)])
    if summary.problem:
        rows.append([words["note"], summary.problem])
    return _csv(rows)


def events_jsonl(game_id: str, events: Iterable[Any], snapshot_names: Mapping[int, str]) -> Iterator[bytes]:
    """One JSON object per line per stored event: what happened, when, what the camera read
    and the snapshot's file name in the game's folder."""
    for stored in events:
        line = {
            "game_id": game_id,
            "seq": stored.seq,
            "at": stored.at,
            "event": stored.event,
            "reading": stored.reading,
            "snapshot": snapshot_names.get(stored.seq),
        }
        yield (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


_CSS = """
body{font-family:Helvetica,Arial,sans-serif;margin:1.5em;color:#000;background:#fff}
h1{font-size:1.4em;margin:0 0 .2em}
p.meta{margin:.1em 0;color:#333}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #000;padding:.25em .6em;text-align:center}
th:first-child,td:first-child{text-align:left}
tr.total td{font-weight:bold;border-top:2px solid #000}
table.log td,table.log th{font-size:.85em}
.note{color:#a00}
@media print{body{margin:0}h2{page-break-before:auto}table{page-break-inside:auto}tr{page-break-inside:avoid}}
"""


def scoresheet_html(summary: GameSummary, events: Sequence[Any], device_name: str) -> bytes:
    e = html.escape
    words = labels(summary.language)
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{e(summary.language)}"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{e(summary.game_name)} {e(summary.started_at)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{e(summary.game_name)}</h1>",
        f'<p class="meta">{e(device_name)} &middot; {words["game"]} {e(summary.game_id)}'
        f" &middot; {e(status_text(summary))}</p>",
        f'<p class="meta">{words["started"]} {e(summary.started_at)}'
        + (f" &middot; {words['ended']} {e(summary.ended_at)}" if summary.ended_at else "") + "</p>",
    ]
    if summary.options:
        parts.append(f'<p class="meta">{words["options"]}: {e(format_options(summary.options))}</p>')
    if summary.stake:
        parts.append(f'<p class="meta">{words["stake"]}: {e(summary.stake)}</p>')
    rows = scoresheet_rows(summary)
    parts.append("<table><thead><tr>" + "".join(f"<th>{e(c)}</th>" for c in rows[0]) + "</tr></thead><tbody>")
    for index, row in enumerate(rows[1:], start=1):
        total = index == len(rows) - 1 and summary.totals is not None
        parts.append(("<tr class=\"total\">" if total else "<tr>")
                     + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>")
    parts.append("</tbody></table>")
    if summary.winners:
        parts.append(f"<p><b>{words['winner' if len(summary.winners) == 1 else 'winners']}:</b> "
                     f"{e(', '.join(summary.winners))}</p>")
    for payment in summary.payments:
        parts.append(f"<p>{e(payment.text(summary.language))}</p>")
    if summary.problem:
        parts.append(f'<p class="note">{e(summary.problem)}</p>')
    parts.append(f'<p class="meta">{words["legend"]}</p>')
    parts.append(_throw_log(summary, events, words))
    parts.append("</body></html>\n")
    return "\n".join(parts).encode("utf-8")


def _throw_log(summary: GameSummary, events: Sequence[Any], words: Mapping[str, str]) -> str:
    e = html.escape
    names = summary.players
    rows = [f"<h2>{words['log']}</h2>", f'<table class="log"><thead><tr><th>#</th><th>{words["time"]}</th>'
            f"<th>{words['player']}</th><th>{words['what']}</th><th>{words['dice']}</th>"
            f"<th>{words['camera']}</th></tr></thead><tbody>"]
    for index, stored in enumerate(events):
        event = stored.event
        if event.get("type", "?") == "game_started":
            continue
        player = event.get("player")
        who = names[player] if isinstance(player, int) and 0 <= player < len(names) else ""
        rows.append(
            f"<tr><td>{stored.seq}</td><td>{e(stored.at[11:19])}</td><td>{e(who)}</td>"
            f"<td>{e(_describe_event(event, summary, summary.fills.get(index), words))}</td>"
            f"<td>{e(_dice(event))}</td><td>{e(_camera(stored.reading, event, words))}</td></tr>")
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _describe_event(event: Mapping[str, Any], summary: GameSummary, points: int | None,
                    words: Mapping[str, str]) -> str:
    kind = event.get("type")
    if kind == "throw":
        thrown = event.get("thrown", [])
        values = event.get("values", [])
        return words["throw"] if len(thrown) == len(values) else words["throw_some"].format(n=len(thrown))
    name = summary.category_name(str(event.get("category")))
    if kind == "category_scored":
        if points is None:
            points = event.get("points")
        return words["scored"].format(name=name, points="?" if points is None else points)
    if kind == "category_scratched":
        return words["crossed"].format(name=name)
    if kind == "reading_corrected":
        return words["corrected"]
    if kind == "die_turned":
        return words["turned"].format(die=int(event.get("die", 0)) + 1, value=event.get("value"))
    if kind == "turn_undone":
        return words["undone"]
    return str(kind)


def _dice(event: Mapping[str, Any]) -> str:
    values = event.get("values")
    return " ".join(str(v) for v in values) if isinstance(values, list) else ""


def _camera(reading: Any, event: Mapping[str, Any], words: Mapping[str, str]) -> str:
    """The reader's values and any doubt, briefly; "by hand" for dice the players entered."""
    if event.get("source") == "hand":
        return words["by_hand"]
    if not isinstance(reading, Mapping):
        return ""
    dice = reading.get("dice")
    if not isinstance(dice, list):
        return ""
    values = []
    for die in dice:
        if not isinstance(die, Mapping):
            continue
        value = die.get("value")
        confidence = die.get("confidence")
        unsure = isinstance(confidence, (int, float)) and confidence < 0.9 or die.get("cocked")
        values.append(f"{value}?" if unsure else str(value))
    problems = reading.get("problems")
    note = f" ({len(problems)} problem{'s' if len(problems) != 1 else ''})" if isinstance(problems, list) and problems else ""
    return " ".join(values) + note
