"""The files of an export, as bytes: games.csv, fairness.csv, scoresheet.csv, events.jsonl,
scoresheet.html; all in the device's locale (firmware.localformat): its language (headers,
words, the catalogue's option names), its money style and its time zone.

CSV files are UTF-8 with a byte-order mark (so Excel shows accents right) and CRLF line
ends. A text cell that a spreadsheet would take for a formula (starting with = + - @) is
prefixed with an apostrophe: player names are typed by anyone at the bar.
The HTML sheet is printable and loads nothing from anywhere: inline CSS, no scripts, and a
Content-Security-Policy that allows only images beside it (each throw's snapshot, shown
small and linked).
"""

from __future__ import annotations

import csv
import html
import io
import json
from dataclasses import asdict
from datetime import date, tzinfo
from typing import Any, Iterable, Iterator, Mapping, Sequence

import engine
from engine.fairness import Fairness
from firmware.export.summary import GameSummary, PaymentLine
from firmware.export.throwlog import Deciding, LogRow
from firmware.fairness_report import FairnessReport
from firmware.localformat import Locale, local_clock, parse_utc, utc_offset
from firmware.ui import catalogue

GAMES_CSV_COLUMNS = (
    "game_id", "folder", "game", "options", "started_at", "ended_at", "status", "players",
    "totals", "winners", "settlement", "stake_per_point", "events", "throws", "corrections",
    "undos", "note",
)
FAIRNESS_CSV_COLUMNS = ("scope", "first_throws", "dice", "ones", "twos", "threes", "fours", "fives", "sixes",
                        "chi_square", "p_value", "warning")
LOG_COLUMNS = ("seq", "time", "player", "what", "dice", "camera", "snapshot", "deciding")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

# Every export is for people of the device's language: the headers, the words and the
# option names (the catalogue's) in it, money in the device's style, times in its zone.
LABELS = {
    "es": {"total": "Total", "winner": "Ganador", "winners": "Ganadores", "settlement": "Liquidación",
           "note": "Nota", "game": "partida", "started": "empezó", "ended": "terminó",
           "options": "opciones", "stake": "apuesta por punto", "legend": "X = tachado, * = servido (de mano). Abajo, cada tiro.",
           "log": "Tiros y anotaciones", "time": "hora", "player": "jugador", "what": "qué",
           "dice": "dados", "camera": "cámara", "throw": "tiro", "throw_some": "tiro ({n} dados)",
           "scored": "anota {name}: {points}", "crossed": "tacha {name}", "corrected": "lectura corregida",
           "by_hand": "a mano", "snapshot": "foto", "deciding": "decisivo", "yes": "sí", "no": "no",
           "turned": "dado {die} volteado a {value}", "undone": "se deshace la última anotación",
           "throw_undone": "se anula el tiro",
           "dice_order": "Dados de izquierda a derecha como quedaron en la bandeja (dado 1: el de más a la izquierda);"
                         " «cámara» es lo que leyó la cámara, «?» donde dudó.",
           "deciding_instant": "★ Tiro decisivo: {win}.",
           "deciding_passed": "★ Tiro decisivo: con él {player} pasó los {points} puntos de {others} y ya no lo alcanzaron.",
           "problems": "{n} avisos",
           "finished": "terminada", "in progress": "en juego", "ended unfinished": "terminada sin completar",
           "device": "dispositivo"},
    "en": {"total": "Total", "winner": "Winner", "winners": "Winners", "settlement": "Settlement",
           "note": "Note", "game": "game", "started": "started", "ended": "ended",
           "options": "options", "stake": "stake per point", "legend": "X = crossed out, * = served (de mano). Every throw follows.",
           "log": "Throws and scores", "time": "time", "player": "player", "what": "what",
           "dice": "dice", "camera": "camera", "throw": "throw", "throw_some": "throw ({n} dice)",
           "scored": "scores {name}: {points}", "crossed": "crosses out {name}", "corrected": "reading corrected",
           "by_hand": "by hand", "snapshot": "snapshot", "deciding": "deciding", "yes": "yes", "no": "no",
           "turned": "die {die} turned to {value}", "undone": "last score undone",
           "throw_undone": "throw cancelled",
           "dice_order": "Dice left to right as they lay on the tray (die 1 is the leftmost);"
                         " 'camera' is what the camera read, '?' where it was unsure.",
           "deciding_instant": "★ Deciding throw: {win}.",
           "deciding_passed": "★ Deciding throw: with it {player} passed the {points} points of {others} for good.",
           "problems": "{n} problems",
           "finished": "finished", "in progress": "in progress", "ended unfinished": "ended unfinished",
           "device": "device"},
}

HEADERS = {
    "es": {"game_id": "id de partida", "folder": "carpeta", "game": "juego", "options": "opciones",
           "started_at": "empezó", "ended_at": "terminó", "status": "estado", "players": "jugadores",
           "totals": "totales", "winners": "ganadores", "settlement": "liquidación",
           "stake_per_point": "apuesta por punto", "events": "eventos", "throws": "tiros",
           "corrections": "correcciones", "undos": "deshechos", "note": "nota",
           "scope": "alcance", "first_throws": "primeros tiros", "dice": "dados", "ones": "unos", "twos": "doses",
           "threes": "treses", "fours": "cuatros", "fives": "cincos", "sixes": "seises",
           "chi_square": "chi cuadrado", "p_value": "valor p", "warning": "aviso",
           "seq": "#", "time": "hora", "player": "jugador", "what": "qué", "camera": "cámara",
           "snapshot": "foto", "deciding": "decisivo"},
    "en": {"game_id": "game id", "folder": "folder", "game": "game", "options": "options",
           "started_at": "started", "ended_at": "ended", "status": "status", "players": "players",
           "totals": "totals", "winners": "winners", "settlement": "settlement",
           "stake_per_point": "stake per point", "events": "events", "throws": "throws",
           "corrections": "corrections", "undos": "undos", "note": "note",
           "scope": "scope", "first_throws": "first throws", "dice": "dice", "ones": "ones", "twos": "twos",
           "threes": "threes", "fours": "fours", "fives": "fives", "sixes": "sixes",
           "chi_square": "chi-square", "p_value": "p-value", "warning": "warning",
           "seq": "#", "time": "time", "player": "player", "what": "what", "camera": "camera",
           "snapshot": "snapshot", "deciding": "deciding"},
}


def labels(language: str) -> dict[str, str]:
    return LABELS.get(language, LABELS["en"])


def headers(columns: Sequence[str], language: str) -> list[str]:
    names = HEADERS.get(language, HEADERS["en"])
    return [names.get(c, c) for c in columns]


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


# -- options and games -----------------------------------------------------------------------


def format_options(options: Mapping[str, Any], language: str) -> str:
    """House rules as people read them: "Apartados fijos: sí; Puntos generala: 80" (the
    catalogue's labels and words, never the engine's keys)."""
    parts = []
    for key, value in sorted(options.items()):
        label = catalogue.text(catalogue.option_label(key), language)
        parts.append(f"{label}: {catalogue.text(catalogue.value_label(value), language)}")
    return "; ".join(parts)


def _options_of(raw: str) -> dict[str, Any] | None:
    """The options a games.csv row keeps: JSON, or the "key=value; ..." of older ledgers."""
    if not raw:
        return {}
    try:
        options = json.loads(raw)
    except ValueError:
        options = None
    if isinstance(options, dict):
        return options
    parsed: dict[str, Any] = {}
    for part in raw.split("; "):
        key, equals, value = part.partition("=")
        if not equals:
            return None
        try:
            parsed[key] = json.loads(value)
        except ValueError:
            parsed[key] = value
    return parsed


def game_name(game: str, language: str) -> str:
    definition = engine.GAMES.get(game)
    if definition is None:
        return game
    return definition.name_es if language == "es" else definition.name_en


def games_csv_row(summary: GameSummary, folder: str) -> dict[str, str]:
    """A game's games.csv row as the ledger keeps it: the facts (ids, UTC times, options
    and payments as JSON), written in the device's language only when games.csv is."""
    totals = summary.totals or []
    return {
        "game_id": summary.game_id,
        "folder": folder,
        "game": summary.game,
        "options": json.dumps(summary.options, sort_keys=True, ensure_ascii=False),
        "started_at": summary.started_at,
        "ended_at": summary.ended_at or "",
        "status": summary.status.partition(":")[0],
        "instant_win": json.dumps(summary.instant_win, ensure_ascii=False) if summary.instant_win else "",
        "players": "; ".join(summary.players),
        "totals": "; ".join(f"{p} {t}" for p, t in zip(summary.players, totals)),
        "winners": "; ".join(summary.winners),
        "settlement": json.dumps([asdict(p) for p in summary.payments], ensure_ascii=False),
        "stake_per_point": summary.stake or "",
        "events": str(summary.events),
        "throws": str(summary.throws),
        "corrections": str(summary.corrections),
        "undos": str(summary.undos),
        "note": summary.problem or "",
    }


def localized_games_row(row: Mapping[str, str], locale: Locale) -> list[str]:
    """A ledger row in the device's language, local time and money (older ledgers' rows,
    written before, as far as they can be read)."""
    lang = locale.language
    words = labels(lang)
    options = _options_of(row.get("options", ""))
    status, _, rest = row.get("status", "").partition(":")
    status_shown = words.get(status, status)
    win = _json(row.get("instant_win", ""))
    if isinstance(win, dict):
        status_shown += ": " + str(win.get(lang, win.get("en", "")))
    elif rest:
        status_shown += ":" + rest
    payments = _json(row.get("settlement", ""))
    if isinstance(payments, list):
        settlement = "; ".join(PaymentLine(**p).text(lang, locale.money) for p in payments if isinstance(p, dict))
    else:
        settlement = row.get("settlement", "")
    stake = row.get("stake_per_point", "")
    shown = {
        **row,
        "game": game_name(row.get("game", ""), lang),
        "options": row.get("options", "") if options is None else format_options(options, lang),
        "started_at": locale.time(row.get("started_at")),
        "ended_at": locale.time(row.get("ended_at")),
        "status": status_shown,
        "settlement": settlement,
        "stake_per_point": locale.amount(stake) if stake else "",
    }
    return [shown.get(c, "") for c in GAMES_CSV_COLUMNS]


def _json(raw: str) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def games_csv(rows: Iterable[Mapping[str, str]], locale: Locale = Locale()) -> bytes:
    """One row per game, oldest first, in the device's language."""
    ordered = sorted(rows, key=lambda r: (r.get("started_at", ""), r.get("game_id", "")))
    return _csv([headers(GAMES_CSV_COLUMNS, locale.language),
                 *(localized_games_row(row, locale) for row in ordered)])


def fairness_csv(report: FairnessReport, locale: Locale = Locale()) -> bytes:
    """The dice fairness test: the device's every first throw, then each game day."""
    words = labels(locale.language)

    def row(scope: str, result: Fairness) -> list[str]:
        return [scope, str(result.throws), str(result.dice), *map(str, result.counts),
                locale.number(f"{result.chi_square:.3f}"), locale.number(f"{result.p_value:.6f}"),
                words["yes"] if result.warning else words["no"]]

    rows = [row(words["device"], report.device)]
    rows += [row("" if day == date.min else day.isoformat(), result) for day, result in report.days]
    return _csv([headers(FAIRNESS_CSV_COLUMNS, locale.language), *rows])


# -- the score sheet ---------------------------------------------------------------------------


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


def scoresheet_csv(summary: GameSummary, log: Sequence[LogRow] = (), deciding: Deciding | None = None,
                   locale: Locale = Locale()) -> bytes:
    """The sheet, who won and who pays, then every throw (the snapshot's file beside it,
    the deciding throw marked)."""
    words = labels(summary.language)
    rows = scoresheet_rows(summary)
    if summary.winners:
        rows.append([words["winner" if len(summary.winners) == 1 else "winners"], "; ".join(summary.winners)])
    for payment in summary.payments:
        rows.append([words["settlement"], payment.text(summary.language, locale.money)])
    if summary.problem:
        rows.append([words["note"], summary.problem])
    rows.append([words["started"].capitalize(), locale.time(summary.started_at)])
    if summary.ended_at:
        rows.append([words["ended"].capitalize(), locale.time(summary.ended_at)])
    if summary.options:
        rows.append([words["options"].capitalize(), format_options(summary.options, summary.language)])
    if summary.stake:
        rows.append([words["stake"].capitalize(), locale.amount(summary.stake)])
    if log:
        rows += [[], [words["log"]], [words["dice_order"]]]
        if deciding is not None:
            rows.append([deciding_text(deciding, summary)])
        rows.append(headers(LOG_COLUMNS, summary.language))
        for row in log:
            rows.append([str(row.seq), locale.time(row.at), _who(row, summary), describe(row, summary),
                         _dice_text(row.dice), _camera_text(row, words), row.snapshot or "",
                         "★" if row.deciding else ""])
    return _csv(rows)


def deciding_text(deciding: Deciding, summary: GameSummary) -> str:
    words = labels(summary.language)
    if deciding.instant is not None:
        win = deciding.instant
        name = win.name_es if summary.language == "es" else win.name_en
        return words["deciding_instant"].format(win=f"{name} ({_name(summary, win.player)})")
    others = " / ".join(_name(summary, p) for p in deciding.others)
    return words["deciding_passed"].format(player=_name(summary, deciding.player), points=deciding.passed,
                                           others=others)


def _name(summary: GameSummary, player: int | None) -> str:
    names = summary.players
    return names[player] if isinstance(player, int) and 0 <= player < len(names) else ""


def _who(row: LogRow, summary: GameSummary) -> str:
    return _name(summary, row.player)


def events_jsonl(game_id: str, events: Iterable[Any], snapshot_names: Mapping[int, str],
                 zone: tzinfo | None = None) -> Iterator[bytes]:
    """One JSON object per line per stored event: what happened, when (the device's local
    time with its offset, to the millisecond), what the camera read and the snapshot's file
    name in the game's folder."""
    for stored in events:
        line = {
            "game_id": game_id,
            "seq": stored.seq,
            "at": _local_millis(stored.at, zone),
            "event": stored.event,
            "reading": stored.reading,
            "snapshot": snapshot_names.get(stored.seq),
        }
        yield (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def _local_millis(stamp: str, zone: tzinfo | None) -> str:
    moment = parse_utc(stamp)
    if moment is None:
        return stamp
    return moment.astimezone(zone).isoformat(sep=" ", timespec="milliseconds")


_CSS = """
body{font-family:Helvetica,Arial,sans-serif;margin:1.5em;color:#000;background:#fff}
h1{font-size:1.4em;margin:0 0 .2em}
p.meta{margin:.1em 0;color:#333}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #000;padding:.25em .6em;text-align:center}
th:first-child,td:first-child{text-align:left}
tr.total td{font-weight:bold;border-top:2px solid #000}
table.log td,table.log th{font-size:.85em;vertical-align:middle}
table.log td.dice{font-family:monospace;font-size:1em;white-space:nowrap}
tr.deciding td{background:#fff3c4;font-weight:bold}
img.snap{height:3.2em;width:auto;display:block;border:0}
.note{color:#a00}
@media print{body{margin:0}h2{page-break-before:auto}table{page-break-inside:auto}tr{page-break-inside:avoid}
tr.deciding td{background:none;border-width:2px}}
"""

# The sheet loads nothing but its own snapshots beside it (no scripts, no network).
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' file:"


def scoresheet_html(summary: GameSummary, log: Sequence[LogRow], deciding: Deciding | None, device_name: str,
                    locale: Locale = Locale()) -> bytes:
    e = html.escape
    words = labels(summary.language)
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{e(summary.language)}"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        f"<title>{e(summary.game_name)} {e(locale.time(summary.started_at))}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{e(summary.game_name)}</h1>",
        f'<p class="meta">{e(device_name)} &middot; {words["game"]} {e(summary.game_id)}'
        f" &middot; {e(status_text(summary))}</p>",
        f'<p class="meta">{words["started"]} {e(locale.time(summary.started_at))}'
        + (f" &middot; {words['ended']} {e(locale.time(summary.ended_at))}" if summary.ended_at else "") + "</p>",
    ]
    if summary.options:
        parts.append(f'<p class="meta">{words["options"]}: {e(format_options(summary.options, summary.language))}</p>')
    if summary.stake:
        parts.append(f'<p class="meta">{words["stake"]}: {e(locale.amount(summary.stake))}</p>')
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
        parts.append(f"<p>{e(payment.text(summary.language, locale.money))}</p>")
    if summary.problem:
        parts.append(f'<p class="note">{e(summary.problem)}</p>')
    if deciding is not None:
        parts.append(f"<p><b>{e(deciding_text(deciding, summary))}</b></p>")
    parts.append(f'<p class="meta">{words["legend"]}</p>')
    parts.append(_throw_log(summary, log, words, locale))
    parts.append("</body></html>\n")
    return "\n".join(parts).encode("utf-8")


def _throw_log(summary: GameSummary, log: Sequence[LogRow], words: Mapping[str, str], locale: Locale) -> str:
    e = html.escape
    offset = utc_offset(summary.started_at, locale.zone)
    rows = [f"<h2>{words['log']}</h2>", f'<p class="meta">{e(words["dice_order"])}</p>',
            f'<table class="log"><thead><tr><th>#</th><th>{words["time"]} (UTC{e(offset)})</th>'
            f"<th>{words['player']}</th><th>{words['what']}</th><th>{words['dice']}</th>"
            f"<th>{words['camera']}</th><th>{words['snapshot']}</th></tr></thead><tbody>"]
    for row in log:
        when = local_clock(row.at, locale.zone)
        if utc_offset(row.at, locale.zone) != offset:  # summer time began or ended during the game
            when = locale.time(row.at)
        mark = "★ " if row.deciding else ""
        picture = ""
        if row.snapshot:
            link = e(row.snapshot, quote=True)
            picture = (f'<a href="{link}"><img class="snap" src="{link}" alt="{e(words["snapshot"])} {row.seq}">'
                       "</a>")
        opening = '<tr class="deciding">' if row.deciding else "<tr>"
        rows.append(
            f"{opening}<td>{mark}{row.seq}</td><td>{e(when)}</td>"
            f"<td>{e(_who(row, summary))}</td><td>{e(describe(row, summary))}</td>"
            f'<td class="dice">{e(_dice_text(row.dice))}</td><td class="dice">{e(_camera_text(row, words))}</td>'
            f"<td>{picture}</td></tr>")
    rows.append("</tbody></table>")
    return "\n".join(rows)


def describe(row: LogRow, summary: GameSummary) -> str:
    """What an event did, in words."""
    words = labels(summary.language)
    event, kind = row.event, row.kind
    if kind == "throw":
        thrown = event.get("thrown", [])
        values = event.get("values", [])
        return words["throw"] if len(thrown) == len(values) else words["throw_some"].format(n=len(thrown))
    name = summary.category_name(str(event.get("category")))
    if kind == "category_scored":
        points = summary.fills.get(row.index, event.get("points"))
        return words["scored"].format(name=name, points="?" if points is None else points)
    if kind == "category_scratched":
        return words["crossed"].format(name=name)
    if kind == "reading_corrected":
        return words["corrected"]
    if kind == "die_turned":
        die = row.die if row.die is not None else int(event.get("die", 0)) + 1
        return words["turned"].format(die=die, value=event.get("value"))
    if kind == "turn_undone":
        return words["undone"]
    if kind == "throw_undone":
        return words["throw_undone"]
    return kind


def _dice_text(dice: Sequence[int]) -> str:
    return " ".join(str(v) for v in dice)


def _camera_text(row: LogRow, words: Mapping[str, str]) -> str:
    """The reader's values and any doubt, briefly; "by hand" for dice the players entered."""
    if row.kind == "throw" and row.event.get("source") == "hand":
        return words["by_hand"]
    if row.camera is None:
        return ""
    note = f" ({words['problems'].format(n=row.camera_problems)})" if row.camera_problems else ""
    return " ".join(row.camera) + note
