"""Held, thrown, turned over or ambiguous, die by die, between two settled throws."""

from __future__ import annotations

from vision.dice_moves import MoveEvidence, classify_moves
from vision.reading import DieReading


def die(value: int, x: float, y: float = 100.0) -> DieReading:
    return DieReading(value=value, center=(x, y), size=40.0, angle=0.0, confidence=1.0)


BEFORE = [die(2, 100), die(6, 200), die(1, 300)]


def test_dice_that_did_not_move_are_held_and_new_places_are_thrown() -> None:
    now = [die(2, 100), die(6, 200), die(4, 420)]
    assert classify_moves(BEFORE, now).moved == ("held", "held", "thrown")


def test_a_die_showing_its_opposite_face_in_place_is_turned() -> None:
    now = [die(2, 100), die(1, 202), die(1, 300)]
    assert classify_moves(BEFORE, now).moved == ("held", "turned", "held")


def test_a_die_flipped_by_hand_that_tumbled_and_left_its_place_is_still_turned() -> None:
    now = [die(2, 100), die(1, 205), die(1, 300)]
    evidence = MoveEvidence(tumbled=(False, True, False), vacated=(False, True, False))
    assert classify_moves(BEFORE, now, evidence).moved == ("held", "turned", "held")


def test_an_opposite_face_in_a_throw_of_other_dice_is_not_called_turned() -> None:
    now = [die(2, 100), die(1, 205), die(3, 300)]
    evidence = MoveEvidence(tumbled=(False, True, True), vacated=(False, True, True))
    moved = classify_moves(BEFORE, now, evidence).moved
    assert moved[1] != "turned" and moved[2] == "thrown"


def test_a_die_pushed_without_rolling_is_ambiguous() -> None:
    now = [die(2, 100), die(6, 225), die(1, 300)]
    assert classify_moves(BEFORE, now).moved == ("held", "ambiguous", "held")
