#!/usr/bin/python3
"""Opens an --html page in real headless Chromium (DevTools protocol over a pipe, no network,
no extra Python packages) and checks it as a person would see it.

  browser_check.py PAGE --charts ID[,ID...] --screenshot OUT.png [--chromium PATH] [--timing]
                   [--click CHART]

Passes (exit 0) when: the page loads; every listed chart's element holds a drawn canvas
(Vega's canvas renderer) of non-zero size; the page's own count of drawn charts equals the
number of chart elements; the console got no error (console.error, an uncaught exception or
a browser log entry of level error); no request left the file (every request is file: or
data:); with --click, a mouse click on the chart's first configuration point shows (and
copies) exactly that configuration. Writes a full-page screenshot. --timing prints the page
size and the load and render times (ms).
Exit 77 (CTest's skip) when Chromium is not installed.
"""
import argparse
import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    """Chromium with --remote-debugging-pipe: commands on fd 3, replies and events on fd 4."""

    def __init__(self, exe):
        self.profile = tempfile.mkdtemp(prefix="ipusim_chromium_")
        # The child's ends go to fds >= 10 first, so that dup2 onto 3 and 4 never meets itself
        # (dup2 of an fd onto itself would keep its close-on-exec flag).
        to_chrome_r, self.to_chrome_w = os.pipe()
        self.from_chrome_r, from_chrome_w = os.pipe()
        low = (to_chrome_r, from_chrome_w)
        to_chrome_r, from_chrome_w = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in low)
        for fd in low:
            os.close(fd)

        def child_fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
                "--user-data-dir=" + self.profile, "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(args, close_fds=False, preexec_fn=child_fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome_w, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(method + ": " + json.dumps(reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_chrome_r, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        message = json.loads(message)
        message["_received"] = time.monotonic()
        return message

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def console_errors(events):
    errors = []
    for e in events:
        method, p = e.get("method"), e.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append("console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                        for a in p.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            errors.append("exception: " + d.get("text", "") + " " + d.get("exception", {}).get("description", ""))
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            errors.append("log: " + p["entry"].get("text", ""))
    return errors


def external_requests(events):
    urls = []
    for e in events:
        if e.get("method") == "Network.requestWillBeSent":
            url = e["params"]["request"]["url"]
            if not (url.startswith("file:") or url.startswith("data:") or url.startswith("about:")):
                urls.append(url)
    return urls


FIND_POINT = """(function(id){
  const view = window.ipusimViews[id];
  let found = null;
  function walk(mark, ox, oy) {
    for (const item of mark.items || []) {
      if (found) return;
      if (mark.marktype === 'symbol' && item.datum && item.datum.config !== undefined) {
        found = {x: ox + item.x, y: oy + item.y, config: item.datum.config}; return; }
      if (mark.marktype === 'group')
        for (const sub of item.items || []) walk(sub, ox + (item.x || 0), oy + (item.y || 0));
    }
  }
  walk(view.scenegraph().root, 0, 0);
  if (!found) return JSON.stringify(null);
  const canvas = view.container().querySelector('canvas') || view.container().querySelector('svg.marks');
  canvas.scrollIntoView();
  const r = canvas.getBoundingClientRect();
  const pad = view.padding();  // the chart's padding sits between the element and the origin
  return JSON.stringify({x: r.left + (pad.left || 0) + view.origin()[0] + found.x,
                         y: r.top + (pad.top || 0) + view.origin()[1] + found.y,
                         config: found.config});
})(%s)"""


def click_copies(b, chart):
    """Clicks the first point of `chart` that carries a configuration, as a mouse would, and
    checks that the configuration appears (as JSON) in the chart's copy box."""
    point = json.loads(b.send("Runtime.evaluate", {"expression": FIND_POINT % json.dumps(chart),
                                                   "returnByValue": True})["result"]["value"])
    if point is None:
        return ["click %s: no point with a configuration" % chart]
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        b.send("Input.dispatchMouseEvent", {"type": kind, "x": point["x"], "y": point["y"], "button": "left",
                                            "clickCount": 1})
    time.sleep(0.2)
    copied = b.send("Runtime.evaluate", {"expression": "document.getElementById(%s).textContent"
                                         % json.dumps(chart + "-copied"), "returnByValue": True})["result"]
    text = copied.get("value") or ""
    try:
        ok = json.loads(text) == point["config"]
    except ValueError:
        ok = False
    return [] if ok else ["click %s: expected %s copied, the page shows %r" % (chart, point["config"], text)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--charts", required=True, help="comma-separated chart element ids")
    ap.add_argument("--screenshot", required=True)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--timing", action="store_true")
    ap.add_argument("--click", default="", help="chart id: click its first configuration point and"
                    " check that the configuration is copied (shown under the chart)")
    ap.add_argument("--timeout-s", type=float, default=60)
    a = ap.parse_args()
    if not os.path.exists(a.chromium):
        print("SKIP: Chromium not installed (tools/setup.sh ci installs Debian's chromium)")
        return 77
    charts = [c for c in a.charts.split(",") if c]
    url = "file://" + os.path.abspath(a.page)
    b = Browser(a.chromium)
    failures = []
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        b.session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network", "Performance"):
            b.send(domain + ".enable")
        b.send("Emulation.setDeviceMetricsOverride", {"width": 1300, "height": 900, "deviceScaleFactor": 1,
                                                      "mobile": False})
        start = time.monotonic()
        b.send("Page.navigate", {"url": url})
        drawn = None
        while time.monotonic() - start < a.timeout_s:
            state = b.send("Runtime.evaluate", {"expression":
                "JSON.stringify({drawn: document.body ? document.body.dataset.chartsDrawn || null : null,"
                " errors: document.body ? document.body.dataset.errors || null : null})",
                "returnByValue": True})["result"]["value"]
            state = json.loads(state)
            if state["errors"]:
                failures.append("page error: " + state["errors"])
                break
            if state["drawn"] is not None:
                drawn = int(state["drawn"])
                break
            time.sleep(0.02)
        ready_ms = (time.monotonic() - start) * 1000
        load_ms = None
        while load_ms is None and time.monotonic() - start < a.timeout_s:
            loads = [e["_received"] for e in b.events if e.get("method") == "Page.loadEventFired"]
            if loads:
                load_ms = (loads[0] - start) * 1000
            else:
                time.sleep(0.02)
                b.send("Runtime.evaluate", {"expression": "1"})
        if drawn is None and not failures:
            failures.append("the charts were not drawn within %.0f s" % a.timeout_s)
        # Let late console messages arrive, then read the DOM.
        b.send("Runtime.evaluate", {"expression": "1"})
        check = json.loads(b.send("Runtime.evaluate", {"expression": """JSON.stringify({
            elements: Array.from(document.querySelectorAll('div.chart')).map(d => d.id),
            canvases: Object.fromEntries(Array.from(document.querySelectorAll('div.chart')).map(d => {
              const c = d.querySelector('canvas') || d.querySelector('svg.marks');
              const box = c ? c.getBoundingClientRect() : null;
              return [d.id, box ? [box.width, box.height] : null]; })),
            height: document.documentElement.scrollHeight,
            render_ms: document.body.dataset.renderMs || null})""", "returnByValue": True})["result"]["value"])
        for c in charts:
            size = check["canvases"].get(c)
            if size is None:
                failures.append("chart %s: no drawn canvas or svg in #%s" % (c, c))
            elif size[0] <= 0 or size[1] <= 0:
                failures.append("chart %s: empty canvas %s" % (c, size))
        if drawn is not None and drawn != len(check["elements"]):
            failures.append("%d charts drawn of %d chart elements" % (drawn, len(check["elements"])))
        failures += ["console: " + e for e in console_errors(b.events)]
        failures += ["request that leaves the file: " + u for u in external_requests(b.events)]
        if a.click and drawn is not None:
            failures += click_copies(b, a.click)
        height = min(int(check["height"]), 16000)
        b.send("Emulation.setDeviceMetricsOverride", {"width": 1300, "height": height, "deviceScaleFactor": 1,
                                                      "mobile": False})
        shot = b.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(a.screenshot, "wb") as f:
            f.write(base64.b64decode(shot))
        if a.timing:
            # Wall time depends on how busy the machine is; the renderer's main-thread task time
            # (Performance.getMetrics TaskDuration) is what the page costs a free core.
            metrics = {m["name"]: m["value"] for m in b.send("Performance.getMetrics")["metrics"]}
            print("timing %s: %d bytes, load event %.0f ms, charts drawn %.0f ms after navigation (wall);"
                  " renderer main thread busy %.0f ms (script %.0f ms, layout %.0f ms)"
                  % (a.page, os.path.getsize(a.page), load_ms or -1, ready_ms,
                     1000 * metrics.get("TaskDuration", -1), 1000 * metrics.get("ScriptDuration", -1),
                     1000 * metrics.get("LayoutDuration", -1)))
        print("charts on the page: " + ",".join(check["elements"]))
    finally:
        b.close()
    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print("ok: %s: %d charts drawn, no console error, screenshot %s" % (a.page, len(charts), a.screenshot))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
