#!/usr/bin/env python3
"""Load pages in headless Chromium, screenshot them and count failed subresource requests.

Talks to Chromium over the DevTools protocol through --remote-debugging-pipe (fd 3 in, fd 4 out,
NUL-terminated JSON), so it needs nothing but the Python standard library and Debian's
`chromium` package. Works offline.

    python3 Tools/browser-check/browser_check.py --out /tmp/shots http://127.0.0.1:8080/ http://127.0.0.1:8080/docs/

Prints one JSON object per page, then a summary line. A request fails when Chromium reports a
network error for it or its HTTP status is 400 or more. Exit status: 0 when every page loaded
and no subresource failed, 1 when something failed, 2 when Chromium could not be started.
"""

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HEADLESS_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-extensions", "--mute-audio", "--hide-scrollbars", "--no-proxy-server",
    "--window-size=1280,900",
]


class Chromium:
    """A headless Chromium driven over the DevTools pipe."""

    def __init__(self, binary, profile):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def wire_pipes():
            # Copy first: a pipe may already sit on fd 3 or 4, and dup2 onto itself would keep
            # its close-on-exec flag.
            read_copy, write_copy = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(read_copy, 3, inheritable=True)
            os.dup2(write_copy, 4, inheritable=True)

        self.process = subprocess.Popen(
            [binary, *HEADLESS_FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire_pipes, close_fds=False)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=30):
        """Sends a command and returns its result, keeping events that arrive meanwhile."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self.receive(deadline - time.monotonic())
            if reply is None:
                raise TimeoutError(f"no answer to {method}")
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def receive(self, timeout):
        """The next message, or None after `timeout` seconds."""
        import select
        while b"\0" not in self.buffer:
            if timeout <= 0:
                return None
            ready, _, _ = select.select([self.from_browser], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def pump(self, seconds):
        """Collects events for up to `seconds`."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            message = self.receive(left)
            if message is None:
                break
            self.events.append(message)

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_chromium(path, profile):
    """A started headless Chromium with its profile in `profile`, or None after printing why not as JSON."""
    try:
        browser = Chromium(path, profile)
        browser.send("Browser.getVersion", timeout=60)
        return browser
    except Exception as error:
        print(json.dumps({"error": f"chromium did not start: {error}"}))
        return None


def check_page(browser, url, screenshot_path, settle):
    """Loads `url` in a fresh tab and reports its requests."""
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Network.enable", "Page.enable", "Runtime.enable"):
        browser.send(domain, session=session)
    browser.send("Network.setCacheDisabled", {"cacheDisabled": True}, session=session)
    browser.events.clear()
    browser.send("Page.navigate", {"url": url}, session=session)

    requests = {}
    exceptions = []
    loaded = False
    quiet_since = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        browser.pump(0.1)
        for event in browser.events:
            if event.get("sessionId") != session:
                continue
            method, params = event.get("method"), event.get("params", {})
            request_id = params.get("requestId")
            if method == "Network.requestWillBeSent":
                requests.setdefault(request_id, {"url": params["request"]["url"], "type": params.get("type", "Other")})
                requests[request_id]["state"] = "pending"
            elif method == "Network.responseReceived":
                entry = requests.setdefault(request_id, {"url": params["response"]["url"], "type": params.get("type")})
                entry["status"] = params["response"]["status"]
            elif method == "Network.loadingFinished" and request_id in requests:
                requests[request_id]["state"] = "done"
            elif method == "Network.loadingFailed" and request_id in requests:
                requests[request_id]["state"] = "failed"
                requests[request_id]["error"] = params.get("errorText", "")
            elif method == "Page.loadEventFired":
                loaded = True
            elif method == "Runtime.exceptionThrown":
                exceptions.append(params.get("exceptionDetails", {}).get("text", "exception"))
        browser.events.clear()
        pending = [r for r in requests.values() if r.get("state") == "pending"]
        if loaded and not pending:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= settle:
                break
        else:
            quiet_since = None

    shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
    with open(screenshot_path, "wb") as file:
        file.write(base64.b64decode(shot["data"]))
    browser.send("Target.closeTarget", {"targetId": target})

    entries = list(requests.values())
    # Chromium asks for /favicon.ico on its own when a page names no icon; that is not the page's
    # request, so it is reported apart and not counted.
    favicon = [r for r in entries if r["type"] == "Other" and r["url"].endswith("/favicon.ico")]
    entries = [r for r in entries if r not in favicon]
    document = next((r for r in entries if r["type"] == "Document"), None)
    failed = [
        {"url": r["url"], "status": r.get("status"), "error": r.get("error")}
        for r in entries
        if r is not document and (r.get("state") == "failed" or r.get("status", 0) >= 400 or r.get("state") == "pending")
    ]
    document_ok = document is not None and document.get("state") == "done" and document.get("status", 0) < 400
    return {
        "url": url,
        "loaded": loaded and document_ok,
        "status": document.get("status") if document else None,
        "requests": len(entries),
        "subresources": len(entries) - (1 if document else 0),
        "failed": failed,
        "browserFaviconStatus": favicon[0].get("status") if favicon else None,
        "scriptExceptions": exceptions,
        "screenshot": screenshot_path,
        "screenshotBytes": os.path.getsize(screenshot_path),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("urls", nargs="+", help="pages to load")
    parser.add_argument("--out", default=".", help="folder for the screenshots (page-1.png, …)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    parser.add_argument("--settle", type=float, default=0.5, help="seconds without network activity after load")
    arguments = parser.parse_args()
    if not arguments.chromium:
        print(json.dumps({"error": "chromium not found: apt-get install -y chromium"}))
        return 2
    os.makedirs(arguments.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="webarc-browser-check-") as profile:
        browser = start_chromium(arguments.chromium, profile)
        if browser is None:
            return 2
        try:
            results = [
                check_page(browser, url, os.path.join(arguments.out, f"page-{index}.png"), arguments.settle)
                for index, url in enumerate(arguments.urls, start=1)
            ]
        finally:
            browser.close()
    for result in results:
        print(json.dumps(result))
    failures = sum(len(r["failed"]) for r in results)
    not_loaded = sum(1 for r in results if not r["loaded"])
    print(json.dumps({"pages": len(results), "notLoaded": not_loaded, "failedSubresources": failures,
                      "subresources": sum(r["subresources"] for r in results)}))
    return 0 if failures == 0 and not_loaded == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
