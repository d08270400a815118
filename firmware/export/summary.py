"""What an exported game says: its score sheet, totals, winners and settlement, from a replay.

The exporter replays a game's recorded events through the engine (`engine.replay`) to get
what the players saw. The raw events are the record: if the engine refuses them (a log
from a newer version, a bug), the export still writes every event and notes the problem
in `games.csv` instead of failing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Sequence

import engine
from firmware.localformat import MoneyStyle, format_money, format_number

STATUS_FINISHED = "finished"
STATUS_ENDED = "ended unfinished"
STATUS_PLAYING = "in progress"
# What the sheet says when the log cannot be replayed (the engine's own reason follows, in English).
PROBLEMS = {
    "es": {"replay": "no se pudo rehacer la partida: {error}",
           "refused": "las reglas rechazan el evento {index} ({kind}): {error}"},
    "en": {"replay": "replay failed: {error}",
           "refused": "event {index} ({kind}) refused by the rules: {error}"},
}


@dataclass(frozen=True)
class Cell:
    """One box of the sheet: None while open."""

    points: int
    scratched: bool = False
    served: bool = False

    def text(self) -> str:
        if self.scratched:
            return "X"
        return f"{self.points}*" if self.served else str(self.points)


@dataclass(frozen=True)
class GameSummary:
    game_id: str
    game: str
    game_name: str
    started_at: str
    ended_at: str | None
    options: dict[str, Any]
    players: list[str]
    stake: str | None
    categories: list[tuple[str, str]]  # (id, name)
    sheet: list[list[Cell | None]]  # [category][player]
    totals: list[int] | None
    winners: list[str]
    payments: list["PaymentLine"]
    status: str
    events: int
    throws: int
    corrections: int
    undos: int
    problem: str | None = None
    extra_rows: list[tuple[str, list[str]]] = field(default_factory=list)  # e.g. the bank
    fills: dict[int, int] = field(default_factory=dict)  # event index -> points of the box filled
    instant_win: dict[str, str] | None = None  # {"en": "... (Ana)", "es": "... (Ana)"}
    language: str = "es"

    def category_name(self, category_id: str) -> str:
        return dict(self.categories).get(category_id, category_id)


@dataclass(frozen=True)
class PaymentLine:
    payers: str
    payees: str
    points: str
    amount: str | None  # None when the game was played for points only

    def text(self, language: str, money: MoneyStyle = MoneyStyle()) -> str:
        amount = format_money(self.amount, money, language) if self.amount else None
        points = format_number(self.points, language, money)
        if language == "es":
            what = f"{amount} ({points} puntos)" if amount else f"{points} puntos"
            return f"{self.payers} paga a {self.payees} {what}"
        what = f"{amount} ({points} points)" if amount else f"{points} points"
        return f"{self.payers} pays {self.payees} {what}"


def summarize(game_id: str, game: str, started_at: str, ended_at: str | None,
              events: Sequence[dict[str, Any]], language: str = "es") -> GameSummary:
    """The summary of one game from its engine events (seq order)."""
    started = events[0] if events and events[0].get("type") == "game_started" else {}
    players = [str(p) for p in started.get("players", [])]
    counts = {kind: sum(1 for e in events if e.get("type") == kind)
              for kind in ("throw", "reading_corrected", "turn_undone")}
    base = dict(
        game_id=game_id, game=game, game_name=game, started_at=started_at, ended_at=ended_at,
        options=dict(started.get("options", {})), players=players,
        stake=started.get("stake"), events=len(events), throws=counts["throw"],
        corrections=counts["reading_corrected"], undos=counts["turn_undone"], language=language,
    )
    status_if_unscored = STATUS_PLAYING if ended_at is None else STATUS_ENDED
    try:
        return _from_replay(events, language, base, status_if_unscored)
    except Exception as error:  # the raw events are exported whatever the engine thinks
        return GameSummary(**base, categories=[], sheet=[], totals=None, winners=[],
                           payments=[], status=status_if_unscored,
                           problem=PROBLEMS.get(language, PROBLEMS["en"])["replay"].format(error=f"{type(error).__name__}: {error}"))


def _from_replay(events: Sequence[dict[str, Any]], language: str, base: dict[str, Any],
                 status_if_unscored: str) -> GameSummary:
    state, fills, problem = _fold(events, language)
    spanish = language == "es"
    game_name = state.game.name_es if spanish else state.game.name_en
    categories = [(c.id, c.name_es if spanish else c.name_en) for c in state.rules.categories]
    sheet = [[_cell(player_sheet[c]) for player_sheet in state.sheets] for c, _ in categories]
    totals = [player_sheet.total for player_sheet in state.sheets]
    players = list(state.players)
    winners: list[str] = []
    payments: list[PaymentLine] = []
    status = status_if_unscored
    if state.finished:
        status = STATUS_FINISHED
        winners = [players[i] for i in engine.winners(state)]
        payments = [_payment(p, players, state.stake) for p in engine.settlement(state)]
    extra: list[tuple[str, list[str]]] = []
    for index, line in enumerate(state.rules.bonuses):  # the upper bonus, the yahtzee bonus
        extra.append((line.name_es if spanish else line.name_en,
                      [str(player_sheet.line_points[index][1]) for player_sheet in state.sheets]))
    if state.rules.spare_throw_bank:
        extra.append(("Banco" if spanish else "Bank", [str(b) for b in state.banks]))
    if state.instant_win is not None:
        win = state.instant_win
        who = players[win.player]
        instant = {"en": f"{win.name_en} ({who})", "es": f"{win.name_es} ({who})"}
        status = f"{STATUS_FINISHED}: {instant['en']}"
    else:
        instant = None
    return GameSummary(**{**base, "game_name": game_name, "players": players}, categories=categories,
                       sheet=sheet, totals=totals, winners=winners, payments=payments,
                       status=status, extra_rows=extra, fills=fills, problem=problem,
                       instant_win=instant)


def _fold(events: Sequence[dict[str, Any]], language: str) -> tuple[Any, dict[int, int], str | None]:
    """The game state, the points of each box filled (by event index) and the first event
    the rules refused, if any: the sheet then shows the game up to that event."""
    state = engine.start(events[0])
    fills: dict[int, int] = {}
    for index, event in enumerate(events[1:], start=1):
        try:
            state = engine.apply(state, event)
        except engine.RuleError as error:
            return state, fills, PROBLEMS.get(language, PROBLEMS["en"])["refused"].format(index=index, kind=event.get("type"), error=error)
        if event.get("type") in ("category_scored", "category_scratched"):
            mark = _mark(state, event)
            if mark is not None:
                fills[index] = int(mark.points)
    return state, fills, None


def _mark(state: Any, event: dict[str, Any]) -> Any:
    try:
        return state.sheets[event["player"]][event["category"]]
    except (IndexError, KeyError, ValueError, TypeError):
        return None


def _cell(mark: Any) -> Cell | None:
    if mark is None:
        return None
    return Cell(int(mark.points), bool(mark.scratched), bool(mark.served))


def _payment(payment: Any, players: list[str], stake: Decimal | None) -> PaymentLine:
    points = payment.points
    point_text = str(points.numerator) if points.denominator == 1 else f"{float(points):.2f}"
    return PaymentLine(payers=" & ".join(players[i] for i in payment.payers),
                       payees=" & ".join(players[i] for i in payment.payees),
                       points=point_text, amount=None if stake is None else str(payment.amount))
