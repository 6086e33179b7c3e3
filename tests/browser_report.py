#!/usr/bin/env python3
"""browser_report.py REPORT_DIR [--min-images N] [--expect-violations]
[--expect-sections ID,...] [--screenshot FILE] — the browser check of an
HTML report: opens REPORT_DIR/index.html in headless Chromium through
chromedriver's W3C WebDriver HTTP API (standard library only); checks every
image loaded, no request left file:/data:, nothing logged as an error on
the console, optionally a non-empty #violations section and a non-empty
element for each id of --expect-sections; saves a full-page screenshot. Owns its chromedriver, the chromium it starts and a
temporary profile, and always removes them. Exit 0 pass, 1 a check failed,
2 usage error or chromium/chromium-driver missing."""
import argparse, base64, json, os, shutil, signal, socket, subprocess
import sys, tempfile, time, urllib.error, urllib.request

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
PNG_SIG = b"\x89PNG\r\n\x1a\n"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--window-size=1400,2400"]
RESULTS = []  # every "ok   "/"FAIL " line, printed as it comes


def emit(line):
    RESULTS.append(line)
    print(line, flush=True)


class Abort(Exception):
    """Raised by the overall timeout and by SIGINT/SIGTERM."""


def on_signal(signum, _frame):
    raise Abort("timeout (90 s)" if signum == signal.SIGALRM
                else "interrupted by signal %d" % signum)


def http(method, url, body=None, timeout=30):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read() or b"{}").get("value")
    except urllib.error.HTTPError as e:
        value = json.loads(e.read() or b"{}").get("value") or {}
        raise RuntimeError("%s %s: %s" % (method, url.split("/", 3)[-1],
                           value.get("message", e)).splitlines()[0]) from None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(proc, base, timeout=20):
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        try:
            if (http("GET", base + "/status", timeout=2) or {}).get("ready"):
                return True
        except (OSError, RuntimeError, ValueError):
            pass
        time.sleep(0.2)
    return False


def start_driver(profile, tries=3):
    """Returns (process, base url); chromedriver leads its own group.
    XDG dirs point into the profile so crash reports stay out of $HOME."""
    env = dict(os.environ, XDG_CONFIG_HOME=profile, XDG_CACHE_HOME=profile)
    null = subprocess.DEVNULL
    for _ in range(tries):
        port = free_port()
        proc = subprocess.Popen([DRIVER, "--port=%d" % port], env=env,
                                stdout=null, stderr=null,
                                start_new_session=True)
        base = "http://127.0.0.1:%d" % port
        if wait_ready(proc, base):
            return proc, base
        stop_driver(proc)
    raise RuntimeError("chromedriver not ready after %d tries" % tries)


def stop_driver(proc):
    """TERM, then KILL, chromedriver's whole group (chromium is in it)."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=wait)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


def new_session(base, profile):
    opts = {"binary": CHROMIUM, "args": ARGS + ["--user-data-dir=" + profile]}
    caps = {"capabilities": {"alwaysMatch": {
        "browserName": "chrome", "goog:chromeOptions": opts,
        "goog:loggingPrefs": {"browser": "ALL"}}}}
    value = http("POST", base + "/session", caps, timeout=60)
    return value["sessionId"], value["capabilities"].get("browserVersion", "?")


def run_js(sess, script, *args):
    return http("POST", sess + "/execute/sync", {"script": script,
                                                 "args": list(args)})


def open_page(sess, path, timeout=20):
    http("POST", sess + "/url", {"url": "file://" + path})
    end = time.monotonic() + timeout
    while run_js(sess, "return document.readyState") != "complete":
        if time.monotonic() > end:
            raise RuntimeError("page not complete after %d s" % timeout)
        time.sleep(0.2)


def check_images(sess, min_images, version):
    images = run_js(sess, "return Array.from(document.images).map(i => "
                    "({src: i.src, complete: i.complete, "
                    "w: i.naturalWidth, h: i.naturalHeight}))")
    broken = [i["src"] for i in images if not i["complete"] or i["w"] == 0]
    for src in broken:
        print("       broken image: %s" % src)
    n = len(images)
    if broken:
        return "FAIL browser: %d of %d images broken" % (len(broken), n)
    if n < min_images:
        return "FAIL browser: %d images, at least %d wanted" % (n, min_images)
    return "ok   browser: %d images loaded (chromium %s)" % (n, version)


def check_requests(sess):
    names = run_js(sess, "return performance.getEntriesByType('resource')"
                   ".map(e => e.name)")
    outside = [n for n in names if not n.startswith(("file:", "data:"))]
    for name in outside:
        print("       request outside file: %s" % name)
    if outside:
        return "FAIL browser: %d requests outside file:" % len(outside)
    return "ok   browser: no request outside file: (%d resources)" % len(names)


def check_violations(sess):
    found = run_js(sess, "const s = document.getElementById('violations');"
                   "if (!s) return null; const v = Array.from("
                   "s.getElementsByClassName('violation'));"
                   "return [v.length, v.filter(e => e.innerText.trim())"
                   ".length]")
    if found is None:
        return "FAIL browser: no element with id \"violations\""
    if found[1] == 0:
        return "FAIL browser: violations section with %d .violation " \
               "elements, none with text" % found[0]
    return "ok   browser: violations section with %d violations" % found[0]


def check_console(sess):
    """The console's errors (a resource that failed to load, a script
    error), from chromedriver's log of the browser."""
    logs = http("POST", sess + "/se/log", {"type": "browser"}) or []
    errors = [e["message"] for e in logs if e.get("level") == "SEVERE"]
    for message in errors:
        print("       console: %s" % message)
    if errors:
        return "FAIL browser: %d console errors" % len(errors)
    return "ok   browser: no console error (%d messages)" % len(logs)


def check_sections(sess, ids):
    found = run_js(sess, "return arguments[0].map(id => {"
                   "const e = document.getElementById(id);"
                   "return e ? e.innerText.trim().length : -1})", ids)
    missing = [i for i, n in zip(ids, found) if n < 0]
    empty = [i for i, n in zip(ids, found) if n == 0]
    if missing or empty:
        return "FAIL browser: sections missing %s, empty %s" % (missing, empty)
    return "ok   browser: sections %s present" % ", ".join(ids)


def check_screenshot(sess, out):
    # the viewport is the window minus its frame: add the frame's height
    page, frame = run_js(sess, "return [document.documentElement.scrollHeight,"
                         " window.outerHeight - window.innerHeight]")
    http("POST", sess + "/window/rect",
         {"width": 1400, "height": min(int(page) + max(int(frame), 0), 16000)})
    png = base64.b64decode(http("GET", sess + "/screenshot", timeout=60))
    with open(out, "wb") as f:
        f.write(png)
    if not png.startswith(PNG_SIG):
        return "FAIL browser: screenshot %s is not a PNG" % out
    w, h = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    return "ok   browser: screenshot %s (%dx%d)" % (out, w, h)


def run_checks(base, profile, args, page):
    """Opens one session, emits one line per check, always deletes it."""
    sid, version = new_session(base, profile)
    sess = base + "/session/" + sid
    try:
        open_page(sess, page)
        emit(check_images(sess, args.min_images, version))
        emit(check_requests(sess))
        emit(check_console(sess))
        if args.expect_violations:
            emit(check_violations(sess))
        if args.expect_sections:
            emit(check_sections(sess, args.expect_sections.split(",")))
        emit(check_screenshot(sess, args.screenshot))
    finally:
        try:
            http("DELETE", sess, timeout=10)
        except (OSError, RuntimeError, ValueError):
            pass


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("report_dir")
    p.add_argument("--min-images", type=int, default=1)
    p.add_argument("--expect-violations", action="store_true")
    p.add_argument("--expect-sections", help="ids, comma-separated")
    p.add_argument("--screenshot")
    args = p.parse_args()  # exits 2 on usage errors
    page = os.path.abspath(os.path.join(args.report_dir, "index.html"))
    if not os.path.isfile(page):
        p.error("no index.html in %s" % args.report_dir)
    for path, pkg in ((CHROMIUM, "chromium"), (DRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            print("browser: %s missing (install package %s)" % (path, pkg),
                  file=sys.stderr)
            sys.exit(2)
    args.screenshot = args.screenshot or os.path.join(args.report_dir,
                                                      "screenshot.png")
    return args, page


def main():
    args, page = parse_args()
    for sig in (signal.SIGALRM, signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    signal.alarm(90)
    proc, profile = None, tempfile.mkdtemp(prefix="locksim-chrome-")
    try:
        proc, base = start_driver(profile)
        run_checks(base, profile, args, page)
    except (Abort, OSError, RuntimeError, ValueError, KeyError,
            TypeError) as e:
        emit("FAIL browser: %s" % e)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if proc:
            stop_driver(proc)
        shutil.rmtree(profile, ignore_errors=True)
    return 1 if any(line.startswith("FAIL") for line in RESULTS) else 0


if __name__ == "__main__":
    sys.exit(main())
