"""The appliance's state machine: menus, the turn, corrections, the final table.

    app = Appliance(EventLog.open(state_dir), prefs, defaults, notices)
    app.handle(Press("ok")) / app.handle(ThrowSeen(...)) / app.handle(Tick(now))
    screen = app.screen()     # a firmware.ui view model for the display

The game itself is a fold over the event log (`session.GameSession`); the machine only adds
what is on screen, so a restart lands where it was.
"""

from firmware.appliance.inputs import (
    ButtonsBack, ButtonsMissing, CameraBack, CameraLost, Input, MotionSeen, ObjectOnTray, Press, ReadingUnstable,
    ThrowSeen, Tick, TrayCleared,
    UsbExportDone, UsbExportFailed, UsbExportStarted,
)
from firmware.appliance.machine import Appliance, GameDefaults, Prefs

__all__ = [
    "Appliance", "GameDefaults", "Prefs", "Input", "Press", "ThrowSeen", "MotionSeen", "TrayCleared",
    "ObjectOnTray", "ReadingUnstable", "CameraLost", "CameraBack", "ButtonsMissing", "ButtonsBack",
    "UsbExportStarted", "UsbExportDone", "UsbExportFailed", "Tick",
]
