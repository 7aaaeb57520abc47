#!/usr/bin/env python3
"""A kiosk visitor searches in headless Chromium: type a query in the served search box, see the
results, open the first one.

    python3 Tools/browser-check/search_check.py --query bicycles --shot /tmp/search.png http://127.0.0.1:8080/

Drives Chromium over the DevTools pipe (browser_check.py's Chromium class, standard library only):
loads START_URL, finds the search box that `webarc serve --search-box` injects, types the query
into it key by key and presses Enter, waits for the results page, takes a screenshot of it
(--shot), clicks the first result and waits for that page. Prints one JSON object: the box found,
the results page URL, its result count and first result (title, href, marked words), the page
opened (URL, title). Exit status: 0 when every step happened, 1 when one did not, 2 when Chromium
could not be started.
"""

import argparse
import base64
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_check import start_chromium  # noqa: E402


class Tab:
    """One page target with its session."""

    def __init__(self, browser):
        self.browser = browser
        self.target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": self.target, "flatten": True})["sessionId"]
        for domain in ("Page.enable", "Runtime.enable"):
            self.send(domain)

    def send(self, method, params=None):
        return self.browser.send(method, params, session=self.session)

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result.get("result", {}).get("value")

    def wait_for_load(self, action, timeout=30):
        """Runs `action`, then waits for the next load event of this tab."""
        self.browser.events.clear()
        action()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.browser.pump(0.1)
            for event in self.browser.events:
                if event.get("sessionId") == self.session and event.get("method") == "Page.loadEventFired":
                    self.browser.events.clear()
                    return True
            self.browser.events.clear()
        return False

    def type_text(self, text):
        """Types `text` into the focused element one key at a time, as a keyboard would."""
        for character in text:
            self.send("Input.dispatchKeyEvent", {"type": "keyDown", "text": character, "key": character})
            self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": character})

    def press_enter(self):
        enter = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13}
        self.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", **enter})
        self.send("Input.dispatchKeyEvent", {"type": "char", "text": "\r", **enter})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", **enter})

    def click(self, selector):
        """Clicks the middle of the first element matching `selector` with the mouse."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null; "
            "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
            "return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()")
        if not box:
            return False
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent",
                      {"type": kind, "x": box["x"], "y": box["y"], "button": "left", "clickCount": 1})
        return True


def search(browser, start, query, shot):
    tab = Tab(browser)
    report = {"start": start, "query": query}
    report["startLoaded"] = tab.wait_for_load(lambda: tab.send("Page.navigate", {"url": start}))
    report["box"] = bool(tab.evaluate("!!document.querySelector('form[data-webarc-search-box] input[name=q]')"))
    if not report["box"]:
        return report
    tab.evaluate("document.querySelector('form[data-webarc-search-box] input[name=q]').focus()")
    tab.type_text(query)
    report["resultsLoaded"] = tab.wait_for_load(tab.press_enter)
    report["resultsURL"] = tab.evaluate("location.href")
    report["resultsTitle"] = tab.evaluate("document.title")
    report["results"] = tab.evaluate("document.querySelectorAll('main ol li').length")
    report["first"] = tab.evaluate(
        "(() => { const li = document.querySelector('main ol li'); if (!li) return null; const a = li.querySelector('a');"
        " return {title: a.textContent, href: a.href, marked: [...li.querySelectorAll('mark')].map(m => m.textContent)}; })()")
    shotData = tab.send("Page.captureScreenshot", {"format": "png"})
    with open(shot, "wb") as file:
        file.write(base64.b64decode(shotData["data"]))
    report["screenshot"] = shot
    if not report["first"]:
        return report
    report["openedLoaded"] = tab.wait_for_load(lambda: tab.click("main ol li a"))
    report["openedURL"] = tab.evaluate("location.href")
    report["openedTitle"] = tab.evaluate("document.title")
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("start", help="a served page with the search box")
    parser.add_argument("--query", required=True)
    parser.add_argument("--shot", required=True, help="where the screenshot of the results page goes (PNG)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    arguments = parser.parse_args()
    if not arguments.chromium:
        print(json.dumps({"error": "chromium not found: apt-get install -y chromium"}))
        return 2
    with tempfile.TemporaryDirectory(prefix="webarc-search-check-") as profile:
        browser = start_chromium(arguments.chromium, profile)
        if browser is None:
            return 2
        try:
            report = search(browser, arguments.start, arguments.query, arguments.shot)
        finally:
            browser.close()
    print(json.dumps(report))
    ok = report.get("box") and report.get("results") and report.get("openedLoaded") \
        and report.get("openedURL") == (report.get("first") or {}).get("href")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
