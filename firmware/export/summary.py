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

STATUS_FINISHED = "finished"
STATUS_ENDED = "ended unfinished"
STATUS_PLAYING = "in progress"


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
    settlement: list[str]  # one line per payment
    status: str
    events: int
    throws: int
    corrections: int
    undos: int
    problem: str | None = None
    extra_rows: list[tuple[str, list[str]]] = field(default_factory=list)  # e.g. the bank


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
        corrections=counts["reading_corrected"], undos=counts["turn_undone"],
    )
    status_if_unscored = STATUS_PLAYING if ended_at is None else STATUS_ENDED
    try:
        return _from_replay(events, language, base, status_if_unscored)
    except Exception as error:  # the raw events are exported whatever the engine thinks
        return GameSummary(**base, categories=[], sheet=[], totals=None, winners=[],
                           settlement=[], status=status_if_unscored,
                           problem=f"replay failed: {type(error).__name__}: {error}")


def _from_replay(events: Sequence[dict[str, Any]], language: str, base: dict[str, Any],
                 status_if_unscored: str) -> GameSummary:
    import engine

    state = engine.replay(events)
    spanish = language == "es"
    game_name = state.game.name_es if spanish else state.game.name_en
    categories = [(c.id, c.name_es if spanish else c.name_en) for c in state.rules.categories]
    sheet = [[_cell(player_sheet[c]) for player_sheet in state.sheets] for c, _ in categories]
    totals = [player_sheet.total for player_sheet in state.sheets]
    players = list(state.players)
    winners: list[str] = []
    payments: list[str] = []
    status = status_if_unscored
    if state.finished:
        status = STATUS_FINISHED
        winners = [players[i] for i in engine.winners(state)]
        payments = [_payment_line(p, players, state.stake) for p in engine.settlement(state)]
    extra: list[tuple[str, list[str]]] = []
    if state.rules.spare_throw_bank:
        extra.append(("Banco" if spanish else "Bank", [str(b) for b in state.banks]))
    if state.instant_win is not None:
        win = state.instant_win
        status = f"{STATUS_FINISHED}: {win.name_es if spanish else win.name_en} ({players[win.player]})"
    return GameSummary(**{**base, "game_name": game_name, "players": players}, categories=categories,
                       sheet=sheet, totals=totals, winners=winners, settlement=payments,
                       status=status, extra_rows=extra)


def _cell(mark: Any) -> Cell | None:
    if mark is None:
        return None
    return Cell(int(mark.points), bool(mark.scratched), bool(mark.served))


def _payment_line(payment: Any, players: list[str], stake: Decimal | None) -> str:
    payers = " & ".join(players[i] for i in payment.payers)
    payees = " & ".join(players[i] for i in payment.payees)
    points = payment.points
    point_text = str(points.numerator) if points.denominator == 1 else f"{float(points):.2f}"
    if stake is None:
        return f"{payers} pays {payees} {point_text} points"
    return f"{payers} pays {payees} {payment.amount} ({point_text} points)"
