"""The systemd notify protocol, client side: tell systemd we are ready, alive or stopping.

systemd passes `$NOTIFY_SOCKET` to a `Type=notify` service: a UNIX datagram socket, either a
path or an abstract name written with a leading "@". Each message is a datagram of
newline-separated `KEY=VALUE` assignments (`READY=1`, `WATCHDOG=1`, `STATUS=...`,
`STOPPING=1`). Outside systemd the variable is unset and every call is a quiet no-op, so
`cubilete run` behaves the same in a terminal.

With `WatchdogSec=` systemd also passes `$WATCHDOG_USEC` (and `$WATCHDOG_PID`, the process
that must ping); `watchdog_interval()` says how often to send `WATCHDOG=1`: half the
timeout, as sd_watchdog_enabled(3) recommends.

Sending never raises: a service must not die because systemd's socket went away; a failed
send returns False (and systemd's watchdog will notice a service that really hangs).
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Mapping

log = logging.getLogger(__name__)

READY = "READY=1"
WATCHDOG = "WATCHDOG=1"
STOPPING = "STOPPING=1"


def notify_socket_address(environ: Mapping[str, str] | None = None) -> str | bytes | None:
    """The address in `$NOTIFY_SOCKET` as socket.sendto() wants it, or None when unset.

    An abstract socket ("@name") becomes bytes with a leading NUL.
    """
    value = (os.environ if environ is None else environ).get("NOTIFY_SOCKET", "")
    if not value:
        return None
    if value.startswith("@"):
        return b"\0" + value[1:].encode()
    if value.startswith("/"):
        return value
    return None  # systemd only ever passes absolute paths or abstract names


def notify(state: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send `state` (one or more "KEY=VALUE" lines) to systemd.

    Returns True when the datagram was sent, False when `$NOTIFY_SOCKET` is unset or the
    send failed (logged once per call at debug level; never raised).
    """
    address = notify_socket_address(environ)
    if address is None:
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.sendto(state.encode("utf-8"), address)
    except OSError as error:
        log.debug("sd_notify %r failed: %s", state, error)
        return False
    return True


def ready(status: str | None = None) -> bool:
    return notify(READY if status is None else f"{READY}\n{status_line(status)}")


def watchdog() -> bool:
    return notify(WATCHDOG)


def status(text: str) -> bool:
    return notify(status_line(text))


def stopping(status: str | None = None) -> bool:
    return notify(STOPPING if status is None else f"{STOPPING}\n{status_line(status)}")


def status_line(text: str) -> str:
    """A STATUS= assignment; newlines would start a new assignment, so they become spaces."""
    return "STATUS=" + " ".join(text.splitlines())


def watchdog_timeout(environ: Mapping[str, str] | None = None) -> float | None:
    """The watchdog timeout in seconds that systemd set for this process, or None.

    None when `$WATCHDOG_USEC` is unset or invalid, or when `$WATCHDOG_PID` names another
    process (the variables were inherited by a child).
    """
    env = os.environ if environ is None else environ
    usec_text = env.get("WATCHDOG_USEC", "")
    try:
        usec = int(usec_text)
    except ValueError:
        return None
    if usec <= 0:
        return None
    pid_text = env.get("WATCHDOG_PID", "")
    if pid_text:
        try:
            if int(pid_text) != os.getpid():
                return None
        except ValueError:
            return None
    return usec / 1_000_000


def watchdog_interval(environ: Mapping[str, str] | None = None) -> float | None:
    """How often to send WATCHDOG=1, in seconds (half the timeout), or None when off."""
    timeout = watchdog_timeout(environ)
    return None if timeout is None else timeout / 2
