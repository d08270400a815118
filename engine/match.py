"""A match of rounds instead of a score sheet (poker dice): who plays, who wins each round.

Every player of a round stands on a hand by filling the game's one box; once all have
stood, the best hand wins the round, and equal best hands play off between them. The fold
(`engine.fold`) starts a match with `start_match` and calls `stand` at every fill; the
rules are the game's `Match` data.
"""

from __future__ import annotations

import dataclasses

from engine.rules import Match
from engine.state import MatchState


def start_match(players: int) -> MatchState:
    """Round 1, led by the first player in play order."""
    return MatchState(round=1, round_winners=(), contenders=tuple(range(players)), hands=(None,) * players)


def next_to_play(match: MatchState) -> int:
    """The first contender who has not stood yet (the round's leader once it is decided)."""
    return next((p for p in match.contenders if match.hands[p] is None), match.contenders[0])


def round_decided(after: MatchState) -> bool:
    """The stand that led to `after` decided a round or a play-off (nobody has a hand now)."""
    return all(hand is None for hand in after.hands)


def stand(rule: Match, match: MatchState, player: int, dice: tuple[int, ...], throws: int) -> MatchState:
    """The match after `player` stood on `dice` after `throws` throws."""
    hands = match.hands[:player] + (dice,) + match.hands[player + 1:]
    limit = match.throw_limit
    if limit is None and rule.leader_sets_throws and player == match.contenders[0]:
        limit = throws
    if any(hands[p] is None for p in match.contenders):
        return dataclasses.replace(match, hands=hands, throw_limit=limit)
    best = max(rule.strength(hands[p]) for p in match.contenders)  # type: ignore[arg-type]
    tied = tuple(p for p in match.contenders if rule.strength(hands[p]) == best)  # type: ignore[arg-type]
    players = len(hands)
    nobody = (None,) * players
    if len(tied) > 1:
        return MatchState(match.round, match.round_winners, tied, nobody, rule.play_off_throws, True, hands)
    winners = match.round_winners + tied
    lead = len(winners) % players  # round r is led by player r - 1, round the table
    order = tuple((lead + i) % players for i in range(players))
    return MatchState(match.round + 1, winners, order, nobody, None, False, hands)
