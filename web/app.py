"""The Starlette application: the page, its script and style, the board, the live stream and
the throw snapshots. Nothing else answers.

- No URL path reaches the file system: the page's files are read from the package once, at
  start, into memory and served by fixed names (no static-files mount, so no directory
  listing either); a snapshot is found by game id and event number in the log
  (`LogReader.snapshot`), never by a path from the URL.
- Every response carries strict headers: a Content-Security-Policy of `default-src 'self'`
  with no inline script or style, `frame-ancestors 'none'`, `nosniff`, no referrer.
- The live stream (`/events`, server-sent events) is a plain ASGI endpoint so that a client
  that stops reading is dropped after WRITE_TIMEOUT_S instead of holding its place forever;
  at most `max_viewers` streams are open (503 with Retry-After past that).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from importlib import resources
from typing import Any, AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from web.board import BoardBuilder
from web.live import Hub
from web.logreader import LogReader, LogUnavailable

log = logging.getLogger(__name__)

HEARTBEAT_S = 15.0
WRITE_TIMEOUT_S = 10.0
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=(), usb=()"),
]
# The page's files: URL -> (file in web/static, media type).
ASSETS = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/board.js": ("board.js", "text/javascript; charset=utf-8"),
    "/board.css": ("board.css", "text/css; charset=utf-8"),
    "/favicon.svg": ("favicon.svg", "image/svg+xml"),
}


def load_assets() -> dict[str, tuple[bytes, str]]:
    folder = resources.files("web") / "static"
    return {url: ((folder / name).read_bytes(), media) for url, (name, media) in ASSETS.items()}


class SecurityHeaders:
    """Adds the strict headers to every response (404s and 503s included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in SECURITY_HEADERS}
                message["headers"] = [(k, v) for k, v in message.get("headers", []) if k not in names] \
                    + SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


class EventStream:
    """`GET /events`: the board now and after every change, as server-sent events."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        viewer = self.hub.join()
        if viewer is None:
            response = Response("too many viewers\n", status_code=503, media_type="text/plain",
                                headers={"Retry-After": "10", "Cache-Control": "no-store"})
            await response(scope, receive, send)
            return
        watcher = asyncio.ensure_future(self._watch_disconnect(receive, viewer))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-store"),
                (b"x-accel-buffering", b"no")]})
            while not viewer.closed:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(viewer.wake.wait(), HEARTBEAT_S)
                if viewer.closed:
                    break
                message = viewer.take() or b": ping\n\n"
                try:
                    await asyncio.wait_for(send({"type": "http.response.body", "body": message, "more_body": True}),
                                           WRITE_TIMEOUT_S)
                except asyncio.TimeoutError:
                    log.info("dropped a viewer that stopped reading")
                    return
        finally:
            watcher.cancel()
            self.hub.leave(viewer)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    @staticmethod
    async def _watch_disconnect(receive: Receive, viewer: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                viewer.close()
                return


def create_app(reader: LogReader, builder: BoardBuilder, max_viewers: int = 100,
               poll_s: float | None = None) -> Starlette:
    """The scoreboard's application over a read-only log."""
    hub = Hub(reader, builder, max_viewers=max_viewers, **({} if poll_s is None else {"poll_s": poll_s}))
    assets = load_assets()

    async def asset(request: Request) -> Response:
        body, media = assets[request.url.path]
        return Response(body, media_type=media, headers={"Cache-Control": "no-cache"})

    async def board(request: Request) -> Response:
        if not hub.message:
            await hub.refresh(force=True)
        return JSONResponse({**hub.board, "v": hub.version}, headers={"Cache-Control": "no-store"})

    async def snapshot(request: Request) -> Response:
        try:
            data = await asyncio.to_thread(reader.snapshot, request.path_params["game_id"],
                                           request.path_params["seq"])
        except LogUnavailable:
            data = None
        if data is None:
            return Response("no such snapshot\n", status_code=404, media_type="text/plain")
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "private, max-age=3600"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.refresh(force=True)
        task = asyncio.create_task(hub.run())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            for viewer in list(hub.viewers):
                viewer.close()

    routes = [Route(url, asset, methods=["GET", "HEAD"]) for url in ASSETS]
    routes += [
        Route("/api/board", board, methods=["GET", "HEAD"]),
        Route("/events", EventStream(hub), methods=["GET"]),
        Route("/snapshot/{game_id:str}/{seq:int}", snapshot, methods=["GET", "HEAD"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.hub = hub
    app.add_middleware(SecurityHeaders)
    return app
