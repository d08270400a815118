"""File names every stick accepts: FAT32 and exFAT (and so Windows) rules, applied to names
that come from the device (its name, game ids, game names).

FAT refuses the characters <>:"/\\|?* and control characters, names that end in a dot or a
space, and Windows reserves CON, PRN, AUX, NUL, COM1-9 and LPT1-9 with any extension. FAT
is also case-insensitive, so two names that differ only in case are the same file.

`fat_name` is deterministic: the same input always gives the same name, so a game goes to
the same folder on every export. When it had to change a name (lossy), it appends a short
hash of the original, so two different inputs never end up with one name. `FolderNames`
catches what is left: two names equal ignoring case within one folder.
"""

from __future__ import annotations

import hashlib
import unicodedata

FORBIDDEN = set('<>:"/\\|?*') | {chr(c) for c in range(0x20)} | {"\x7f"}
RESERVED = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"} | {
    f"{stem}{n}" for stem in ("COM", "LPT") for n in (*"123456789", "¹", "²", "³")
}
MAX_CHARS = 80  # well under FAT's 255 UTF-16 units, so paths stay short for Windows too
MAX_BYTES = 255  # ext4's limit, in UTF-8
_HASH_CHARS = 8


class NameClash(ValueError):
    """Two names that are one file on a case-insensitive stick."""


def fat_name(name: str, max_chars: int = MAX_CHARS) -> str:
    """`name` made valid on FAT, exFAT and ext4; unchanged when it already is."""
    normal = unicodedata.normalize("NFC", name)
    cleaned = "".join("_" if ch in FORBIDDEN or _unencodable(ch) else ch for ch in normal)
    cleaned = cleaned.strip(" ").rstrip(". ")
    if cleaned in ("", ".", ".."):
        cleaned = "_"
    stem = cleaned.split(".", 1)[0].rstrip(" ").upper()
    if stem in RESERVED:
        cleaned = "_" + cleaned
    too_long = len(cleaned) > max_chars or len(cleaned.encode()) > MAX_BYTES
    if cleaned != name or too_long:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
        cleaned = f"{_truncate(cleaned, max_chars - _HASH_CHARS - 1)}~{digest}"
    return cleaned


def is_fat_valid(name: str) -> bool:
    return fat_name(name) == name


def _unencodable(ch: str) -> bool:
    # Lone surrogates (from undecodable bytes) cannot be written to any stick.
    return 0xD800 <= ord(ch) <= 0xDFFF or unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cn")


def _truncate(text: str, max_chars: int) -> str:
    text = text[:max_chars]
    while len(text.encode()) > MAX_BYTES - _HASH_CHARS - 1:
        text = text[:-1]
    return text.rstrip(". ") or "_"


class FolderNames:
    """The names used in one folder; refuses a second name equal ignoring case."""

    def __init__(self) -> None:
        self._used: dict[str, str] = {}

    def claim(self, name: str) -> str:
        key = name.casefold()
        previous = self._used.get(key)
        if previous is not None and previous != name:
            raise NameClash(f"{name!r} and {previous!r} are the same name on a FAT stick")
        self._used[key] = name
        return name

