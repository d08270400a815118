"""Adapters for the device's parts (camera, buttons, display, USB storage), each a small
interface (a Protocol) with a real implementation and a fake for tests: `camera`, `buttons`
(and `Press`, the one label type), `display`, `usb`; `recording` is the recorded-session format
that the replay camera plays. Imports no other package of the project."""
