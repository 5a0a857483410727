"""Headless Chromium driven over the DevTools protocol (CDP): just what the UI tests need.

Chromium is started with its own throwaway profile and a DevTools port it picks itself
(read back from DevToolsActivePort). One page target is driven over a websocket: navigate,
evaluate JavaScript, click like a person (real mouse events), take a screenshot, and record
every URL the page asked for (requests and websockets).
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from websockets.sync.client import connect

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1600,1000",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
]
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
HOSTLESS_SCHEMES = {"data", "blob", "about", "chrome", "chrome-extension", "devtools"}


class BrowserError(Exception):
    """Chromium did not start, did not answer, or a DevTools command failed."""


def chromium_executable() -> str | None:
    """Debian's chromium, if installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def is_outside(url: str) -> bool:
    """True when the URL names a host other than this machine's loopback."""
    parts = urlsplit(url)
    if parts.scheme in HOSTLESS_SCHEMES:
        return False
    return (parts.hostname or "") not in LOOPBACK_HOSTS


def wait_until(predicate: Callable[[], Any], *, timeout: float, interval: float = 0.25) -> Any:
    """Poll `predicate` until it returns something truthy; that value, or None after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


class HeadlessChromium:
    """One headless Chromium with one page, used as a context manager."""

    def __init__(self, executable: str, profile_dir: Path) -> None:
        self._executable = executable
        self._profile_dir = profile_dir
        self._process: subprocess.Popen | None = None
        self._connection = ExitStack()
        self._socket = None
        self._next_id = 0
        self.requested_urls: list[str] = []

    def __enter__(self) -> HeadlessChromium:
        self._profile_dir.mkdir(parents=True, exist_ok=True)
        (self._profile_dir / "DevToolsActivePort").unlink(missing_ok=True)
        self._process = subprocess.Popen(
            [self._executable, *CHROMIUM_FLAGS, f"--user-data-dir={self._profile_dir}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            self._attach()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _attach(self) -> None:
        port = wait_until(self._devtools_port, timeout=30)
        if not port:
            raise BrowserError("chromium did not open its DevTools port within 30 s")
        page = wait_until(lambda: self._page_target(port), timeout=10)
        if not page:
            raise BrowserError("chromium has no page target")
        self._socket = self._connection.enter_context(
            connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10)
        )
        self.send("Page.enable")
        self.send("Network.enable")
        self.send("Runtime.enable")

    def __exit__(self, *exc_info) -> None:
        self._connection.close()
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def _devtools_port(self) -> int | None:
        active = self._profile_dir / "DevToolsActivePort"
        if self._process.poll() is not None:
            raise BrowserError(f"chromium exited with code {self._process.returncode}")
        if not active.exists():
            return None
        first_line = active.read_text().splitlines()[:1]
        return int(first_line[0]) if first_line and first_line[0].isdigit() else None

    @staticmethod
    def _page_target(port: int) -> dict | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as response:
                targets = json.load(response)
        except OSError:
            return None
        return next((t for t in targets if t.get("type") == "page"), None)

    def send(self, method: str, params: dict | None = None, *, timeout: float = 30) -> dict:
        """Send one DevTools command and return its result; events seen meanwhile are recorded."""
        self._next_id += 1
        command_id = self._next_id
        self._socket.send(json.dumps({"id": command_id, "method": method, "params": params or {}}))
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BrowserError(f"no answer to {method} within {timeout} s")
            message = json.loads(self._socket.recv(timeout=remaining))
            if message.get("id") == command_id:
                if "error" in message:
                    raise BrowserError(f"{method} failed: {message['error'].get('message')}")
                return message.get("result", {})
            self._record(message)

    def _record(self, event: dict) -> None:
        method, params = event.get("method"), event.get("params", {})
        if method == "Network.requestWillBeSent":
            self.requested_urls.append(params["request"]["url"])
        elif method == "Network.webSocketCreated":
            self.requested_urls.append(params["url"])

    def navigate(self, url: str) -> None:
        result = self.send("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError(f"navigation failed: {result['errorText']}")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited when it is a promise)."""
        result = self.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"script error: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def click_at(self, x: float, y: float) -> None:
        """A left click as a person makes it: move, press, release."""
        self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        for kind in ("mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
            )

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
