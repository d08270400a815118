"""The OLED user interface: screen view models, the renderer, the pixel font, the texts (es/en)
and burn-in protection.

    from firmware.ui import TurnScreen, DieIcon, OptionRow, T, Names, render
    image = render(TurnScreen(...), "es")   # PIL.Image, mode "1", 128x64
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
    OptionRow,
    QrScreen,
    Screen,
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
    "MenuItem", "MenuScreen", "MessageScreen", "Names", "OptionRow", "QrScreen", "Screen", "T", "Text", "TurnScreen",
    "camera_lost_screen", "stopped_screen", "usb_done_screen", "usb_exporting_screen", "usb_failed_screen",
    "render", "LANGUAGES",
]

LANGUAGES = ("es", "en")


def render(screen: Screen, lang: str = "es"):  # -> PIL.Image.Image
    """Draw a screen: a 128x64 one-bit PIL image (mode "1")."""
    return _render(screen, lang)
