"""FAT-safe names: every name a stick accepts, stable from one export to the next."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

from firmware.export.fatnames import FORBIDDEN, MAX_CHARS, RESERVED, FolderNames, NameClash, fat_name, is_fat_valid


def assert_valid(name: str) -> None:
    assert name and name not in (".", "..")
    assert not set(name) & FORBIDDEN
    assert not name.endswith((".", " ")) and not name.startswith(" ")
    assert name.split(".")[0].rstrip(" ").upper() not in RESERVED
    assert len(name) <= MAX_CHARS and len(name.encode()) <= 255
    name.encode("utf-8")  # no lone surrogates


@settings(max_examples=400)
@given(st.text(max_size=300))
def test_any_text_becomes_a_valid_name_and_stays_one(text: str) -> None:
    name = fat_name(text)
    assert_valid(name)
    assert fat_name(name) == name


@settings(max_examples=300)
@given(st.text(max_size=60), st.text(max_size=60))
def test_different_names_stay_different(a: str, b: str) -> None:
    if a != b:
        assert fat_name(a) != fat_name(b)


@pytest.mark.parametrize("name", ["20261122T072049Z-a1b2c3_generala", "Bar Pepe", "El Rincón", "cubilete"])
def test_valid_names_are_left_alone(name: str) -> None:
    assert fat_name(name) == name and is_fat_valid(name)


@pytest.mark.parametrize("name", ["CON", "con.txt", "Aux", "NUL.csv", "COM1", "lpt9.jpg", "a:b", 'x"y',
                                  "name.", "name ", "tab\t", "q?", "star*", "pipe|", "<>", "\x00"])
def test_names_fat_rejects_are_changed(name: str) -> None:
    assert fat_name(name) != name
    assert_valid(fat_name(name))


def test_names_equal_ignoring_case_clash_in_one_folder() -> None:
    names = FolderNames()
    names.claim("Game_1")
    names.claim("Game_1")
    with pytest.raises(NameClash):
        names.claim("GAME_1")
