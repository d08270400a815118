"""The errors the engine raises: one class per rule, each naming the rule it enforces.

Every error is a `RuleError`. `rule` is a stable identifier (for logs, tests and translated
messages on the display); `str(error)` is an English sentence saying what is wrong.
An event that raises leaves the game state exactly as it was (states are immutable).
"""

from __future__ import annotations


class RuleError(Exception):
    """Base class: the event, game or option breaks the rule named by `rule`."""

    rule = "rule"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- games, options, events ------------------------------------------------------------

class UnknownGame(RuleError):
    rule = "unknown_game"


class UnknownOption(RuleError):
    rule = "unknown_option"


class BadOptionValue(RuleError):
    rule = "option_value"


class MalformedEvent(RuleError):
    rule = "event_format"


class UnsupportedEventVersion(RuleError):
    rule = "event_version"


class BadPlayers(RuleError):
    rule = "players"


class BadPartnerships(RuleError):
    rule = "partnerships"


class RollOffMismatch(RuleError):
    rule = "roll_off_order"


class BadStake(RuleError):
    rule = "stake"


class GameNotStarted(RuleError):
    rule = "game_started_first"


class GameAlreadyStarted(RuleError):
    rule = "one_game_started"


class GameOver(RuleError):
    rule = "game_over"


class GameNotFinished(RuleError):
    rule = "game_not_finished"


class WrongPlayer(RuleError):
    rule = "wrong_player"


# --- dice and throws ---------------------------------------------------------------------

class WrongDiceCount(RuleError):
    rule = "dice_count"


class BadDieValue(RuleError):
    rule = "die_value"


class TooManyThrows(RuleError):
    rule = "max_throws"


class FirstThrowNotAllDice(RuleError):
    rule = "first_throw_all_dice"


class NothingThrown(RuleError):
    rule = "nothing_thrown"


class LockedDieRethrown(RuleError):
    rule = "held_dice_locked"


class HeldDieChanged(RuleError):
    rule = "held_die_unchanged"


class ThrowAfterTurnOver(RuleError):
    rule = "no_throw_after_turn_over"


class NoThrowYet(RuleError):
    rule = "throw_first"


# --- turning a die over (cacho) --------------------------------------------------------------

class TurningNotInGame(RuleError):
    rule = "no_turning_in_game"


class TurnTooEarly(RuleError):
    rule = "turn_after_second_throw"


class DieAlreadyTurned(RuleError):
    rule = "turn_die_once"


class TooManyTurnedDice(RuleError):
    rule = "at_most_two_turned"


class SecondTurnMustImprove(RuleError):
    rule = "second_turn_improves"


class TurnedDieNotOpposite(RuleError):
    rule = "turned_die_opposite_face"


class TurnRequired(RuleError):
    rule = "turn_required"


# --- filling categories ------------------------------------------------------------------

class UnknownCategory(RuleError):
    rule = "unknown_category"


class CategoryFilled(RuleError):
    rule = "category_filled"


class CategoryNotOpenYet(RuleError):
    rule = "fill_order"


class CrossingOutNotAllowed(RuleError):
    rule = "crossing_out"


class JokerBoxRequired(RuleError):
    rule = "joker_box"


class PointsMismatch(RuleError):
    rule = "points_mismatch"


# --- corrections and undo -----------------------------------------------------------------

class NothingToCorrect(RuleError):
    rule = "correct_current_throw"


class NothingToUndo(RuleError):
    rule = "undo_needs_a_fill"


class NoThrowToUndo(RuleError):
    rule = "undo_throw_needs_a_throw"


__all__ = [name for name, value in dict(globals()).items() if isinstance(value, type) and issubclass(value, RuleError)]
