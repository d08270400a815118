"""The appliance's state machine: menus, the turn, corrections, the final table.

    app = Appliance(EventLog.open(state_dir), prefs, defaults, notices)
    app.handle(Press("ok")) / app.handle(ThrowSeen(...)) / app.handle(Tick(now))
    screen = app.screen()     # a firmware.ui view model for the display

The game itself is a fold over the event log (`session.GameSession`); the machine only adds
what is on screen, so a restart lands where it was.

Where things live: `inputs` (what the machine reacts to), `settings` (prefs, game defaults),
`session` (the game as a fold over its recorded events), `throws` (what a settled throw
means for the turn), `views` (screens built from the state), `mode` (a mode, and the
`Appliance` Protocol that is all modes see of the machine), the modes (`menus`, `rolloff`,
`play`, `practice` (the turns of a seat the device plays itself), `corrections`, `by_hand`,
`no_buttons`) and `machine` (the one `Appliance`, the only module that knows every mode).
Every word on screen comes from `firmware.ui.catalogue`. Modes import one another one way:
play -> by_hand -> corrections, menus -> rolloff, menus -> practice -> by_hand.
"""

from firmware.appliance.inputs import (
    ButtonsBack, ButtonsMissing, CameraBack, CameraLost, Input, MotionSeen, ObjectOnTray, Press, ReadingUnstable,
    ThrowSeen, Tick, TrayCleared,
    UsbExportDone, UsbExportFailed, UsbExportStarted,
)
from firmware.appliance.machine import Appliance
from firmware.appliance.settings import GameDefaults, Prefs

__all__ = [
    "Appliance", "GameDefaults", "Prefs", "Input", "Press", "ThrowSeen", "MotionSeen", "TrayCleared",
    "ObjectOnTray", "ReadingUnstable", "CameraLost", "CameraBack", "ButtonsMissing", "ButtonsBack",
    "UsbExportStarted", "UsbExportDone", "UsbExportFailed", "Tick",
]
