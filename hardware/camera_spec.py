"""Camera specs ("picamera", "usb:0", "replay:DIR?realtime" ...) parsed without opening anything.

Apart from `hardware.camera` so that the config's validation (and the web scoreboard, which
reads the config) does not import OpenCV and numpy to check a spec.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class CameraSpec:
    """A parsed camera spec: kind ("picamera" | "usb" | "video" | "replay" | "fake" | "manual")
    and its target. "manual" is no camera at all: the players enter every throw by hand."""

    kind: str
    target: str | int | None = None
    realtime: bool = False
    options: Mapping[str, str] = field(default_factory=dict)


SPEC_HELP = ('camera spec: "picamera[:INDEX]", "usb:INDEX" or "usb:/dev/videoN", "video:FILE", '
             '"replay:DIR[?realtime]", "fake", "manual" (no camera: dice entered by hand)')


def parse_camera_spec(spec: str) -> CameraSpec:
    """Parse without opening anything (the config validation uses this). Raises ValueError."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "picamera":
        return CameraSpec("picamera", _int(rest, spec) if rest else 0)
    if kind == "usb":
        if not rest:
            raise ValueError(f"{spec!r}: usb needs an index or a device, e.g. usb:0; {SPEC_HELP}")
        return CameraSpec("usb", rest if rest.startswith("/") else _int(rest, spec))
    if kind == "video" and rest:
        return CameraSpec("video", rest)
    if kind == "replay" and rest:
        path, _, query = rest.partition("?")
        if query not in ("", "realtime"):
            raise ValueError(f"{spec!r}: unknown replay option {query!r}; {SPEC_HELP}")
        return CameraSpec("replay", path, realtime=query == "realtime")
    if kind == "fake" and not rest:
        return CameraSpec("fake")
    if kind == "manual" and not rest:
        return CameraSpec("manual")
    raise ValueError(f"{spec!r} is not a camera; {SPEC_HELP}")


def _int(text: str, spec: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{spec!r}: {text!r} is not a number; {SPEC_HELP}") from None


__all__ = ["CameraSpec", "SPEC_HELP", "parse_camera_spec"]
