#!/usr/bin/env python3
"""Time page loads in headless Chromium: time to first byte and load event, per load.

    python3 Tools/bench/page_timing.py --loads 3 https://127.0.0.1:8443/index.html

Drives Chromium over the DevTools pipe (Tools/browser-check/browser_check.py's `Chromium`) with
its HTTP cache disabled and a fresh tab per load, so every load asks the server for every
resource; certificate errors are ignored (the bench's servers use the test certificate). Prints
one JSON object per load: ttfbMs (responseStart - startTime of the navigation entry), loadMs
(loadEventEnd), resources (the page's resource entries) and failed (resources Chromium reports
as failed or ≥ 400).
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "browser-check"))
import browser_check  # noqa: E402

browser_check.HEADLESS_FLAGS.append("--ignore-certificate-errors")


def load(browser, url):
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Network.enable", "Page.enable"):
        browser.send(domain, session=session)
    browser.send("Network.setCacheDisabled", {"cacheDisabled": True}, session=session)
    browser.events.clear()
    browser.send("Page.navigate", {"url": url}, session=session)
    failed = 0
    loaded = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not loaded:
        browser.pump(0.05)
        for event in browser.events:
            if event.get("sessionId") != session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Page.loadEventFired":
                loaded = True
            elif method == "Network.loadingFailed":
                failed += 1
            elif method == "Network.responseReceived" and params["response"]["status"] >= 400 \
                    and not params["response"]["url"].endswith("/favicon.ico"):
                failed += 1
        browser.events.clear()
    time.sleep(0.05)
    script = """JSON.stringify((() => { const n = performance.getEntriesByType('navigation')[0];
        return {ttfbMs: n.responseStart - n.startTime, loadMs: n.loadEventEnd - n.startTime,
                resources: performance.getEntriesByType('resource').length}; })())"""
    result = browser.send("Runtime.evaluate", {"expression": script, "returnByValue": True}, session=session)
    browser.send("Target.closeTarget", {"targetId": target})
    timing = json.loads(result["result"]["value"])
    timing.update(url=url, loaded=loaded, failed=failed)
    return timing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("--loads", type=int, default=3)
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="webarc-page-timing-") as profile:
        browser = browser_check.Chromium(arguments.chromium, profile)
        browser.send("Browser.getVersion", timeout=60)
        try:
            for _ in range(arguments.loads):
                print(json.dumps(load(browser, arguments.url)), flush=True)
        finally:
            browser.close()


if __name__ == "__main__":
    sys.exit(main())
