"""Load a page in headless Chromium and ask the browser itself what it shows (test helper).

Chromium is driven over the Chrome DevTools Protocol through ``--remote-debugging-pipe`` (file
descriptors 3 and 4, messages are JSON texts ended by a NUL byte): no port, no web socket package,
nothing injected into the page. :func:`inspect_page` opens a tab, navigates to the page, waits for
the ``load`` event (every ``<img>`` has then loaded or failed), evaluates one expression in the page
that returns each image's ``src``, ``complete`` and ``naturalWidth``/``naturalHeight`` and the page's
``innerText``, and captures a full-page PNG screenshot. An image that failed to load has
``naturalWidth`` 0 — the browser's own verdict, not a guess from the file system.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

#: Debian package name of the browser (``apt-get install --no-install-recommends chromium``)
CHROMIUM = "chromium"

_PROBE = """(() => ({
  images: Array.from(document.images).map(i => ({src: i.getAttribute('src'), complete: i.complete,
                                                   width: i.naturalWidth, height: i.naturalHeight})),
  text: document.body.innerText,
  title: document.title,
  height: Math.ceil(document.documentElement.scrollHeight),
}))()"""


class ChromiumError(RuntimeError):
    """The browser could not be started or did not answer in time."""


def chromium_path() -> str | None:
    """The ``chromium`` executable on ``PATH`` (or ``$DCSFLOW_CHROMIUM``), or None."""
    return shutil.which(os.environ.get("DCSFLOW_CHROMIUM", CHROMIUM))


class _Pipe:
    """One Chromium process spoken to over ``--remote-debugging-pipe``."""

    def __init__(self, exe: str, width: int, height: int, timeout: float):
        self.timeout = timeout
        to_r, to_w = os.pipe()      # we write commands -> browser's fd 3
        fr_r, fr_w = os.pipe()      # browser's fd 4 -> we read replies
        self.profile = Path(tempfile.mkdtemp(prefix="dcsflow-chromium-"))      # a fresh browser profile
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--allow-file-access-from-files", f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}", "about:blank"]

        # the protocol's fixed descriptors (3 = commands in, 4 = replies out): the pipes come in as
        # stdin/stdout and a shell moves them to 3 and 4 (no preexec_fn: not safe with threads)
        self.log = open(self.profile / "stderr.txt", "w+b")
        self.proc = subprocess.Popen(["/bin/sh", "-c", 'exec "$@" 3<&0 4>&1 </dev/null >/dev/null', "sh", *args],
                                     stdin=to_r, stdout=fr_w, stderr=self.log)
        os.close(to_r)
        os.close(fr_w)
        self.w, self.r = to_w, fr_r
        self.buf = b""
        self.next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        try:
            os.write(self.w, json.dumps(msg).encode() + b"\0")
        except OSError as e:
            raise ChromiumError(f"chromium stopped reading commands ({e.strerror or e})") from None
        while True:
            m = self._read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise ChromiumError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method: str, session: str) -> dict:
        while True:
            for k, e in enumerate(self.events):
                if e.get("method") == method and e.get("sessionId") == session:
                    return self.events.pop(k)
            self.events.append(self._read())

    def _read(self) -> dict:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                raise ChromiumError(f"no answer from chromium within {self.timeout:.0f} s")
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                self.log.seek(0)
                err = self.log.read().decode(errors="replace").strip().splitlines()
                raise ChromiumError("chromium exited: " + (err[-1] if err else f"status {self.proc.poll()}"))
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def close(self) -> None:
        for fd in (self.w, self.r):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def _browser(width: int, height: int, timeout: float) -> tuple[_Pipe, str]:
    """A headless Chromium with one tab of ``width`` x ``height`` CSS pixels: (pipe, tab session)."""
    exe = chromium_path()
    if not exe:
        raise ChromiumError(f"{CHROMIUM} not found on PATH")
    b = _Pipe(exe, width, height, timeout)
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        sess = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        b.send("Page.enable", session=sess)
        b.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                       "mobile": False}, session=sess)
    except BaseException:
        b.close()
        raise
    return b, sess


def _load_and_evaluate(b: _Pipe, sess: str, page: Path, expression: str):
    """Navigate the tab to ``page``, wait for its ``load`` event, return ``expression``'s JSON value."""
    nav = b.send("Page.navigate", {"url": page.resolve().as_uri()}, session=sess)
    if nav.get("errorText"):
        raise ChromiumError(f"navigation to {page} failed: {nav['errorText']}")
    b.wait_event("Page.loadEventFired", sess)
    res = b.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=sess)
    if "exceptionDetails" in res:
        raise ChromiumError(f"{page}: probe failed: {res['exceptionDetails'].get('text')}")
    return res["result"].get("value")


def inspect_page(page: Path, screenshot: Path, width: int = 1200, height: int = 3000,
                 timeout: float = 120.0) -> dict:
    """Load ``page`` (a local HTML file) in headless Chromium and return what the browser saw:
    ``{"images": [{"src", "complete", "width", "height"}], "text": innerText, "title", "height"}``
    (image sizes in CSS pixels as decoded, 0 when the image failed). Writes a PNG screenshot of the
    whole page (``width`` CSS pixels wide, at least ``height`` tall) to ``screenshot``.

    Raises:
        ChromiumError: chromium missing, crashed, or silent for ``timeout`` seconds.
    """
    b, sess = _browser(width, height, timeout)
    try:
        seen = _load_and_evaluate(b, sess, page, _PROBE)
        full = max(height, int(seen["height"]))
        shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                 "clip": {"x": 0, "y": 0, "width": width, "height": full,
                                                          "scale": 1}}, session=sess)
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        screenshot.write_bytes(base64.b64decode(shot["data"]))
        return seen
    finally:
        b.close()


def probe_pages(pages: list[Path], expression: str, width: int = 1280, height: int = 900,
                timeout: float = 120.0) -> dict:
    """Load each of ``pages`` (local HTML files) in one headless Chromium, in a window ``width`` x
    ``height`` CSS pixels, and evaluate ``expression`` in it once loaded; returns page -> its JSON
    value. No screenshot.

    Raises:
        ChromiumError: chromium missing, crashed, silent for ``timeout`` seconds, or the expression
            failed on a page.
    """
    b, sess = _browser(width, height, timeout)
    try:
        return {page: _load_and_evaluate(b, sess, page, expression) for page in pages}
    finally:
        b.close()
