"""What an exported game says: its score sheet, totals, winners and settlement, from a replay.

The exporter replays a game's recorded events through the engine (`engine.replay`) to get
what the players saw. The raw events are the record: if the engine refuses them (a log
from a newer version, a bug), the export still writes every event and notes the problem
in `games.csv` instead of failing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Sequence

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
    definition = state.game
    name_attr = "name_es" if language == "es" else "name_en"
    game_name = str(getattr(definition, name_attr, None) or getattr(definition, "name_en", base["game"]))
    names = {c.id: str(getattr(c, name_attr, None) or c.id) for c in definition.categories}
    sheets = list(_sheets(state))
    category_ids = list(sheets[0].categories) if sheets else list(names)
    sheet = [[_cell(s[c]) for s in sheets] for c in category_ids]
    totals = [int(t) for t in _totals(state, sheets)]
    finished = bool(getattr(state, "finished", False))
    winners = [base["players"][i] if isinstance(i, int) else str(i)
               for i in (getattr(state, "winners", None) or ())] if finished else []
    settlement = _settlement(state, base["stake"]) if finished else []
    status = STATUS_FINISHED if finished else status_if_unscored
    return GameSummary(**{**base, "game_name": game_name}, categories=[(c, names.get(c, c)) for c in category_ids],
                       sheet=sheet, totals=totals, winners=winners, settlement=settlement,
                       status=status, extra_rows=_extra_rows(state))


def _sheets(state: Any) -> Iterable[Any]:
    sheets = getattr(state, "sheets", None)
    if sheets is None:
        sheets = getattr(state, "scores")
    return sheets


def _cell(mark: Any) -> Cell | None:
    if mark is None:
        return None
    if isinstance(mark, int):
        return Cell(mark)
    return Cell(int(mark.points), bool(getattr(mark, "scratched", False)), bool(getattr(mark, "served", False)))


def _totals(state: Any, sheets: list[Any]) -> Iterable[int]:
    totals = getattr(state, "totals", None)
    if totals is None:
        return [s.total for s in sheets]
    return totals


def _settlement(state: Any, stake: str | None) -> list[str]:
    import engine

    function = getattr(engine, "settlement", None)
    if function is None:
        return []
    try:
        per_point = Decimal(stake) if stake else Decimal(0)
    except InvalidOperation:
        per_point = Decimal(0)
    result = function(state, per_point)
    if result is None:
        return []
    lines = getattr(result, "lines", None)
    if callable(lines):
        return [str(line) for line in lines()]
    if isinstance(result, (list, tuple)):
        return [str(item) for item in result]
    return [str(result)]


def _extra_rows(state: Any) -> list[tuple[str, list[str]]]:
    bank = getattr(state, "bank", None)
    if isinstance(bank, (list, tuple)):
        return [("bank", [str(b) for b in bank])]
    return []
