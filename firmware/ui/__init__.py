"""The OLED user interface: screen view models, the renderer, the pixel font, the texts (es/en)
and burn-in protection.

    from firmware.ui import TurnScreen, DieIcon, OptionRow, T, Names, render
    image = render(TurnScreen(...), "es")   # PIL.Image, mode "1", 128x64
    image = render(TurnScreen(...), "es", (256, 64))   # a larger panel: 128x128, 256x64
"""

from firmware.ui.renderer import render as _render
from firmware.ui.screens import (
    ICONS,
    ConfirmScreen,
    CorrectionScreen,
    DieIcon,
    FinalRow,
    GameOverScreen,
    Label,
    MenuItem,
    MenuScreen,
    MessageScreen,
    Names,
    NameScreen,
    OptionRow,
    QrScreen,
    Screen,
    ScoreScreen,
    T,
    Text,
    TurnScreen,
    camera_lost_screen,
    stopped_screen,
    usb_done_screen,
    usb_exporting_screen,
    usb_failed_screen,
)

__all__ = [
    "ICONS", "ConfirmScreen", "CorrectionScreen", "DieIcon", "FinalRow", "GameOverScreen", "Label",
    "MenuItem", "MenuScreen", "MessageScreen", "Names", "NameScreen", "OptionRow", "QrScreen", "Screen", "ScoreScreen",
    "T", "Text", "TurnScreen",
    "camera_lost_screen", "stopped_screen", "usb_done_screen", "usb_exporting_screen", "usb_failed_screen",
    "render", "LANGUAGES",
]

LANGUAGES = ("es", "en")


def render(screen: Screen, lang: str = "es", size: tuple[int, int] = (128, 64)):  # -> PIL.Image.Image
    """Draw a screen: a one-bit PIL image (mode "1") of the panel's size (width, height)."""
    return _render(screen, lang, size)
