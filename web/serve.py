"""Runs the scoreboard under uvicorn, as `cubilete web` (the unit `cubilete-web.service`).

Starlette over uvicorn with its pure-Python HTTP parser (h11): no compiled extension to
build on a Pi Zero 2 W, one process, one thread for the event loop plus a few for SQLite.
Bounds, besides the live viewers' (`web.live`):

- at most `max_connections(max_viewers)` open connections: a connection past that is
  closed as soon as it is accepted. (uvicorn's own `limit_concurrency` is not used: it
  answers 503 to every request while that many connections are open, idle ones included,
  so a few silent connections would turn every page away.) Past `max_viewers` live streams,
  `/events` answers 503 and the page polls `/api/board` instead;
- a connection that has not sent a whole request within IDLE_S is closed, as uvicorn closes
  an idle kept-alive one (it sets no such limit on a new connection by itself);
- request heads are limited by h11 (16 kB), and no request has a body.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from firmware.config import Config
from web.app import create_app
from web.board import BoardBuilder
from web.logreader import LogReader

log = logging.getLogger(__name__)

SPARE_CONNECTIONS = 32  # page loads, board polls and snapshots beside the live streams
IDLE_S = 10.0


class _QuietIncompleteResponse(logging.Filter):
    """A stream dropped for not reading ends without a final chunk by design; uvicorn logs
    that as an error, which under a flood of such clients would fill the journal."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "returned without completing response" not in record.getMessage()


def max_connections(max_viewers: int) -> int:
    """Room for every live stream, as many connections being refused one, and the rest."""
    return 2 * max_viewers + SPARE_CONNECTIONS


def bounded_protocol(max_connections: int, idle_s: float = IDLE_S) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a cap on open connections and a deadline for the first request."""

    class BoundedH11Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                self.connections.discard(self)
                transport.close()
                return
            # The keep-alive timer closes the connection unless a request starts in time.
            self.timeout_keep_alive_task = self.loop.call_later(idle_s, self.timeout_keep_alive_handler)

    return BoundedH11Protocol


def build(config: Config, state_dir: str | None = None, poll_s: float | None = None) -> Any:
    """The application for this config (and state directory, when given apart)."""
    reader = LogReader(state_dir or config.device.state_dir)
    builder = BoardBuilder(reader, config.device.language, config.device.name,
                           config.device.money_style())
    return create_app(reader, builder, max_viewers=config.web.max_viewers, poll_s=poll_s)


def serve(config: Config, state_dir: str | None = None, host: str | None = None, port: int | None = None,
          log_level: str = "warning") -> None:
    """Serve until stopped (SIGTERM or SIGINT)."""
    logging.getLogger("uvicorn.error").addFilter(_QuietIncompleteResponse())
    app = build(config, state_dir)
    server_config = uvicorn.Config(
        app, host=host or config.web.bind, port=port if port is not None else config.web.port,
        http=bounded_protocol(max_connections(config.web.max_viewers)), ws="none", loop="asyncio",
        lifespan="on", interface="asgi3", access_log=False, server_header=False, proxy_headers=False,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=3, log_level=log_level)
    uvicorn.Server(server_config).run()
