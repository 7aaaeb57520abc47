#!/usr/bin/env python3
"""The "1000 mutants" damage experiment: does any webarc command deliver damaged bytes as good data?

    python3 Tools/mutants/mutants.py --webarc .build/debug/webarc --archive site.webarc \\
        [--count 1000] [--seed 1] [--jobs 2] [--work DIR] [--keep] [--json] [--only OFFSET:XOR,...]

First it records the truth from the undamaged archive: `ls --json` (every record), `unpack`
(every body as a file), `cat` for a few URLs and `serve` for every GET URL (status, headers,
body). Then each mutant is a copy of the archive with one byte, at a uniformly random offset,
XOR'd with a random non-zero value (both from the seeded RNG, so a run is reproducible), and on
it the script runs, each under a 10 s timeout:

  ls      exit 0 with other records than the truth            -> silent index damage
  unpack  exit 0 with a file differing, missing or extra       -> wrong bytes
  cat     20 URLs: those unpack and serve found damaged, then seeded random ones;
          exit 0 with other bytes than stored                  -> wrong bytes
  serve   every GET URL over keep-alive connections; a response below 400 (or with the
          stored status) whose status, headers or complete body differ -> wrong bytes;
          a short body, a dropped connection, a 4xx/5xx -> clean error

A failing command is a clean error when its exit code is 64...78 and stderr is a short message;
a crash when it dies by a signal, exits 132/133/134/139 or prints "Fatal error"/"Illegal
instruction"; a hang when it outlives the timeout; any other failure is an "other error".
Exit status 1 when some mutant got wrong bytes, silent index damage, a crash or a hang.
Standard library only; servers bind 127.0.0.1 and are stopped by PID (SIGTERM, then SIGKILL).
"""

import argparse
import hashlib
import http.client
import json
import multiprocessing
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.dont_write_bytecode = True

TIMEOUT = 10.0                      # seconds for each command, server start and each request
STOP_GRACE = 5.0                    # seconds between SIGTERM and SIGKILL for a server
CAT_SAMPLE = 20                     # URLs `cat` checks per mutant
TRUTH_CATS = 5                      # URLs whose `cat` output the truth stage keeps and checks
BAD_CASES_SHOWN = 20
CLEAN_CODES = range(64, 79)         # sysexits: a deliberate, diagnosed failure
CRASH_CODES = {132, 133, 134, 139}  # 128 + SIGILL, SIGTRAP, SIGABRT, SIGSEGV as a shell reports them
CRASH_TEXT = ("Fatal error", "Illegal instruction", "Segmentation fault", "Current stack trace:",
              "Stack dump:")
CLEAN_STDERR_LINES = 4              # "one line-ish": at most this many non-empty stderr lines
CLEAN_STDERR_BYTES = 2048
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "date"}

COMMANDS = ("ls", "unpack", "cat", "serve")
# Outcomes, worst first; a mutant's outcome for a command is the worst of its checks.
OUTCOMES = ("wrong", "index", "crash", "hang", "other", "clean", "ok")
BAD = {"wrong", "index", "crash", "hang"}


# ---------------------------------------------------------------------------------------------
# Running commands

class Run:
    """One finished (or killed) command."""

    def __init__(self, rc, stdout, stderr, hung, seconds):
        self.rc, self.stdout, self.stderr, self.hung, self.seconds = rc, stdout, stderr, hung, seconds


def run(argv, timeout=TIMEOUT):
    """Runs argv in its own process group; kills the group when it outlives `timeout`."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        hung = False
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        out, err = proc.communicate()
        hung = True
    except BaseException:
        kill_group(proc.pid)
        proc.wait()
        raise
    return Run(proc.returncode, out, err, hung, time.monotonic() - start)


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def failure_kind(rc, stderr):
    """Classifies a non-zero exit: 'crash', 'clean' or 'other'."""
    text = stderr.decode("utf-8", "replace")
    if rc < 0 or rc in CRASH_CODES or any(marker in text for marker in CRASH_TEXT):
        return "crash"
    lines = [line for line in text.splitlines() if line.strip()]
    if rc in CLEAN_CODES and 0 < len(lines) <= CLEAN_STDERR_LINES and len(stderr) <= CLEAN_STDERR_BYTES:
        return "clean"
    return "other"


def first_line(data, limit=160):
    text = data.decode("utf-8", "replace").strip().splitlines()
    return (text[0] if text else "")[:limit]


def md5(data):
    return hashlib.md5(data).hexdigest()


def file_md5(path):
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tree(root):
    """relative path -> (size, md5) of every regular file under root."""
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path):
                files[os.path.relpath(path, root)] = (os.path.getsize(path), file_md5(path))
    return files


# ---------------------------------------------------------------------------------------------
# Serving

class Server:
    """`webarc serve ARCHIVE --port 0 --quiet`, its stdout and stderr in files under `folder`."""

    def __init__(self, webarc, archive, folder):
        self.out_path = os.path.join(folder, "serve.out")
        self.err_path = os.path.join(folder, "serve.err")
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen([webarc, "serve", archive, "--port", "0", "--quiet"],
                                         stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                         start_new_session=True)
        self.port = None
        self.stop_hung = False

    def wait_for_url(self):
        """'ok' once the first stdout line names 127.0.0.1:PORT, 'exited' or 'hang'."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            with open(self.out_path, "rb") as f:
                data = f.read()
            if b"\n" in data:
                url = urllib.parse.urlsplit(data.split(b"\n", 1)[0].decode("utf-8", "replace").strip())
                if url.hostname != "127.0.0.1" or not url.port:
                    raise SystemExit(f"mutants: serve printed {url.geturl()!r}, not http://127.0.0.1:PORT/")
                self.port = url.port
                return "ok"
            if self.proc.poll() is not None:
                return "exited"
            time.sleep(0.02)
        return "hang"

    def stderr(self):
        with open(self.err_path, "rb") as f:
            return f.read()

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        """SIGTERM by PID, SIGKILL after STOP_GRACE seconds; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(STOP_GRACE)
            except subprocess.TimeoutExpired:
                self.stop_hung = True
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def request_target(url, start_origin):
    """The path `serve` answers a URL at: the start origin at /, others at /_/<scheme>/<host>/..."""
    parts = urllib.parse.urlsplit(url)
    path = urllib.parse.quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
    if parts.query:
        path += "?" + urllib.parse.quote(parts.query, safe="/%:@!$&'()*+,;=-._~?")
    if f"{parts.scheme}://{parts.netloc}".lower() == start_origin.lower():
        return path
    return f"/_/{parts.scheme}/{parts.netloc}{path}"


class Fetched:
    """One response: status, comparable headers, body digest; or how it failed."""

    def __init__(self, status=None, headers=None, body=b"", complete=True, error=None):
        self.status, self.headers, self.body, self.complete, self.error = status, headers, body, complete, error


def fetch_all(port, paths, alive):
    """GETs each path over keep-alive connections to 127.0.0.1:port. Yields (path, Fetched);
    after a timeout ('hang') or a server that is gone, the remaining paths are not tried."""
    conn = None
    for path in paths:
        if conn is None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            headers = sorted((name.lower(), value) for name, value in response.getheaders()
                             if name.lower() not in HOP_BY_HOP)
            try:
                body = response.read()
                complete = True
            except http.client.IncompleteRead as short:
                body, complete = short.partial, False
            if not complete or response.will_close:
                conn.close()
                conn = None
            yield path, Fetched(response.status, headers, body, complete)
        except (socket.timeout, TimeoutError):
            conn.close()
            yield path, Fetched(error="hang")
            return
        except (OSError, http.client.HTTPException) as error:
            conn.close()
            conn = None
            yield path, Fetched(error=f"{type(error).__name__}: {error}"[:160])
            if not alive():
                return
    if conn is not None:
        conn.close()


# ---------------------------------------------------------------------------------------------
# The truth

def record_truth(webarc, archive, work, warnings):
    """Everything the undamaged archive gives, each check of the harness's own assumptions failing hard."""
    def must(argv, what):
        result = run(argv, timeout=max(TIMEOUT, 120))
        if result.rc != 0 or result.hung:
            raise SystemExit(f"mutants: {what} of the original archive failed (exit {result.rc}): "
                             f"{first_line(result.stderr)}")
        return result

    listing = must([webarc, "ls", archive, "--json"], "ls --json")
    records = [json.loads(line) for line in listing.stdout.decode("utf-8").splitlines() if line.strip()]
    if not records:
        raise SystemExit("mutants: the original archive lists no records")
    info = json.loads(must([webarc, "info", archive, "--json"], "info --json").stdout)
    start = urllib.parse.urlsplit(info.get("startURL") or records[0]["url"])
    start_origin = f"{start.scheme}://{start.netloc}"

    unpack_dir = os.path.join(work, "truth", "unpack")
    os.makedirs(os.path.dirname(unpack_dir), exist_ok=True)
    unpacked = run([webarc, "unpack", archive, "-o", unpack_dir, "--quiet"], timeout=max(TIMEOUT, 300))
    if unpacked.hung:
        raise SystemExit("mutants: unpack of the original archive hung")
    unpack_rc = unpacked.rc
    if unpack_rc != 0:
        warnings.append(f"unpack of the original archive exits {unpack_rc} "
                        f"({first_line(unpacked.stderr)}); a mutant's unpack counts as right when it "
                        "exits the same and writes the same files")
    files = tree(unpack_dir)

    # Bodies by MD5: the unpacked files, else the original's `cat` (kept under truth/bodies).
    responses = [r for r in records if r["kind"] == "response"]
    body_paths = {}
    for rel, (_, digest) in files.items():
        body_paths.setdefault(digest, os.path.join(unpack_dir, rel))
    listed = {r["md5"] for r in responses}
    stray = [rel for rel, (_, digest) in files.items() if digest not in listed]
    if stray:
        raise SystemExit(f"mutants: unpack wrote {stray[0]!r}, whose MD5 no record of ls names")
    bodies_dir = os.path.join(work, "truth", "bodies")
    os.makedirs(bodies_dir, exist_ok=True)
    gets = [r for r in responses if r["method"].upper() == "GET"]
    for record in gets:
        if record["md5"] not in body_paths:
            out = must([webarc, "cat", archive, record["url"]], f"cat {record['url']}").stdout
            if md5(out) != record["md5"]:
                raise SystemExit(f"mutants: cat {record['url']} of the original archive is not the MD5 ls lists")
            path = os.path.join(bodies_dir, record["md5"])
            with open(path, "wb") as f:
                f.write(out)
            body_paths[record["md5"]] = path
    for record in random.Random("truth").sample(gets, min(TRUTH_CATS, len(gets))):
        out = must([webarc, "cat", archive, record["url"]], f"cat {record['url']}").stdout
        if md5(out) != record["md5"] or len(out) != record["size"]:
            raise SystemExit(f"mutants: cat {record['url']} of the original archive differs from ls "
                             f"(MD5 {md5(out)}, ls says {record['md5']})")

    # What the server answers for every GET URL.
    get_urls = [r["url"] for r in records if r["method"].upper() == "GET"]
    paths = {}
    for url in get_urls:
        paths.setdefault(request_target(url, start_origin), url)
    serve_dir = os.path.join(work, "truth")
    server = Server(webarc, archive, serve_dir)
    served = {}
    try:
        if server.wait_for_url() != "ok":
            raise SystemExit(f"mutants: serve of the original archive did not start: {first_line(server.stderr())}")
        for path, got in fetch_all(server.port, list(paths), server.alive):
            if got.error or not got.complete:
                raise SystemExit(f"mutants: serve of the original archive failed at {path}: {got.error or 'short body'}")
            served[path] = (got.status, got.headers, md5(got.body), len(got.body))
    finally:
        server.stop()
    by_url = {r["url"]: r for r in records if r["method"].upper() == "GET"}
    for path, (status, _, digest, _) in list(served.items()):
        record = by_url[paths[path]]
        if status == 404 and record["status"] != 404:
            warnings.append(f"serve answers 404 for {record['url']} at {path}; left out of the serve check")
            del served[path]
        elif record["kind"] == "response" and status == 200 and digest != record["md5"]:
            warnings.append(f"serve's body for {record['url']} is not the stored body (rewritten links?); "
                            "the served bytes are the truth")

    urls_by_md5 = {}
    for record in gets:
        urls_by_md5.setdefault(record["md5"], []).append(record["url"])
    return {
        "records": records,
        "ls_stdout_md5": md5(listing.stdout),
        "start_origin": start_origin,
        "unpack_rc": unpack_rc,
        "files": files,
        "body_paths": body_paths,
        "cat_urls": {r["url"]: (r["md5"], r["size"]) for r in gets},
        "file_urls": {rel: urls_by_md5.get(digest, []) for rel, (_, digest) in files.items()},
        "served": served,
        "serve_urls": {path: paths[path] for path in served},
    }


# ---------------------------------------------------------------------------------------------
# One mutant

STATE = {}   # set in the parent before the workers fork: webarc, archive bytes, truth, work folder


def interrupted(signum, frame):
    raise KeyboardInterrupt


def init_worker():
    # Ctrl-C is the parent's to handle; it ends the pool, whose SIGTERM reaches each worker once.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, worker_terminated)


def worker_terminated(signum, frame):
    """Pool.terminate(): a busy worker unwinds (its `finally` blocks stop servers), an idle one exits."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if STATE.get("busy"):
        raise KeyboardInterrupt
    os._exit(130)


def worst(outcomes):
    for outcome in OUTCOMES:
        if outcome in outcomes:
            return outcome
    return "ok"


def is_prefix(data, digest_path):
    """Whether `data` is a prefix of the truth body stored at `digest_path`."""
    if not data:
        return True
    with open(digest_path, "rb") as f:
        return f.read(len(data)) == data


def check_ls(webarc, mutant, truth):
    result = run([webarc, "ls", mutant, "--json"])
    if result.hung:
        return {"outcome": "hang"}
    if result.rc != 0:
        return {"outcome": failure_kind(result.rc, result.stderr), "exit": result.rc,
                "message": first_line(result.stderr)}
    if md5(result.stdout) == truth["ls_stdout_md5"]:
        return {"outcome": "ok"}
    # Which records differ, for the report.
    got = []
    for line in result.stdout.decode("utf-8", "replace").splitlines():
        try:
            got.append(json.loads(line))
        except ValueError:
            got.append({"unparsable": line[:80]})
    original = truth["records"]
    changed = [i for i in range(min(len(got), len(original))) if got[i] != original[i]]
    first = changed[0] if changed else min(len(got), len(original))
    url = (original[first] if first < len(original) else got[first]).get("url", "?")
    return {"outcome": "index", "bad": [{"url": url, "reason":
            f"{len(got)} records listed, {len(original)} stored, {len(changed)} changed"}]}


def check_unpack(webarc, mutant, truth, folder):
    out_dir = os.path.join(folder, "unpack")
    try:
        result = run([webarc, "unpack", mutant, "-o", out_dir, "--quiet"])
        files = tree(out_dir) if os.path.isdir(out_dir) else {}
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    expected = truth["files"]
    differing = sorted(rel for rel in files if rel in expected and files[rel] != expected[rel])
    if result.hung:
        return {"outcome": "hang"}
    if result.rc != truth["unpack_rc"]:
        entry = {"outcome": failure_kind(result.rc, result.stderr) if result.rc != 0 else "other",
                 "exit": result.rc, "message": first_line(result.stderr)}
        if differing:   # damaged files left behind by a failed unpack
            entry["wrongLeft"] = len(differing)
            entry["bad"] = [{"url": rel, "reason": "left behind with wrong bytes after a failed unpack"}
                            for rel in differing[:3]]
        return entry
    missing = sorted(set(expected) - set(files))
    extra = sorted(set(files) - set(expected))
    if not (differing or missing or extra):
        return {"outcome": "ok"}
    bad = ([{"url": rel, "reason": "wrong bytes"} for rel in differing]
           + [{"url": rel, "reason": "missing"} for rel in missing]
           + [{"url": rel, "reason": "extra file"} for rel in extra])
    suspects = sorted({url for rel in differing + missing for url in truth["file_urls"].get(rel, [])})
    return {"outcome": "wrong", "wrongURLs": len(bad), "bad": bad[:5], "suspects": suspects}


def check_cat(webarc, mutant, truth, rng, suspects):
    """`cat` for the URLs serve and unpack found damaged (up to CAT_SAMPLE), then random others."""
    urls = truth["cat_urls"]
    sample = [url for url in sorted(suspects) if url in urls][:CAT_SAMPLE]
    others = sorted(set(urls) - set(sample))
    sample += rng.sample(others, min(CAT_SAMPLE - len(sample), len(others)))
    counts, bad, wrong_left, errors = {}, [], 0, []
    for url in sample:
        digest, size = urls[url]
        result = run([webarc, "cat", mutant, url])
        if result.hung:
            outcome = "hang"
        elif result.rc != 0:
            outcome = failure_kind(result.rc, result.stderr)
            if len(errors) < 3:
                errors.append({"url": url, "what": f"exit {result.rc}: {first_line(result.stderr)}"})
            if not is_prefix(result.stdout, truth["body_paths"][digest]):
                wrong_left += 1
                bad.append({"url": url, "reason": f"exit {result.rc} after writing wrong bytes"})
        elif len(result.stdout) == size and md5(result.stdout) == digest:
            outcome = "ok"
        else:
            outcome = "wrong"
            bad.append({"url": url, "reason": f"exit 0 with {len(result.stdout)} bytes, MD5 {md5(result.stdout)}"
                                              f" (stored: {size} bytes, {digest})"})
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome in ("hang", "crash") and counts[outcome] >= 3:
            break   # the same damage again: spare the remaining timeouts
    entry = {"outcome": worst(counts), "urls": counts, "bad": bad[:5], "errors": errors}
    if counts.get("wrong"):
        entry["wrongURLs"] = counts["wrong"]
    if wrong_left:
        entry["wrongLeft"] = wrong_left
    return entry


def check_serve(webarc, mutant, truth, folder):
    served, serve_urls = truth["served"], truth["serve_urls"]
    server = Server(webarc, mutant, folder)
    counts, bad, wrong_left, entry, suspects, errors = {}, [], 0, {}, [], []
    try:
        started = server.wait_for_url()
        if started == "hang":
            return {"outcome": "hang", "message": "no URL on stdout"}
        if started == "exited":
            rc = server.proc.returncode
            stderr = server.stderr()
            return {"outcome": failure_kind(rc, stderr) if rc != 0 else "other", "exit": rc,
                    "message": first_line(stderr)}
        for path, got in fetch_all(server.port, list(served), server.alive):
            url = serve_urls[path]
            status, headers, digest, size = served[path]
            if got.error == "hang":
                outcome, what = "hang", "no answer in 10 s"
            elif got.error:
                outcome, what = "clean", got.error   # a dropped connection; a crash shows in the exit code below
            elif not got.complete:
                outcome, what = "clean", f"{got.status} with {len(got.body)} of its bytes, then the connection closed"
                stored = truth["body_paths"].get(digest)
                if stored and got.status == status and not is_prefix(got.body, stored):
                    wrong_left += 1
                    bad.append({"url": url, "reason": f"{got.status} cut short after wrong bytes"})
            elif got.status >= 400 and got.status != status:
                outcome, what = "clean", f"status {got.status} (stored {status})"
            elif (got.status, got.headers, md5(got.body), len(got.body)) == (status, headers, digest, size):
                outcome = "ok"
            else:
                outcome = "wrong"
                why = []
                if got.status != status:
                    why.append(f"status {got.status} (stored {status})")
                if md5(got.body) != digest:
                    why.append(f"body {len(got.body)} bytes MD5 {md5(got.body)} (stored {size} bytes, {digest})")
                changed = sorted({name for name, _ in set(got.headers) ^ set(headers)})
                if changed:
                    why.append("headers " + ", ".join(changed))
                bad.append({"url": url, "reason": "; ".join(why)})
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome != "ok":
                suspects.append(url)
            if outcome not in ("ok", "wrong") and len(errors) < 3:
                errors.append({"url": url, "what": what})
        if not server.alive():
            rc = server.proc.returncode
            kind = failure_kind(rc, server.stderr()) if rc != 0 else "other"
            counts[kind] = counts.get(kind, 0) + 1
            entry.update({"exit": rc, "message": first_line(server.stderr()) or "server exited while serving"})
    finally:
        rc = server.stop()
    if server.stop_hung:
        counts["hang"] = counts.get("hang", 0) + 1
        entry["message"] = "ignored SIGTERM for 5 s"
    elif "exit" not in entry and rc is not None and (rc < 0 and rc != -signal.SIGTERM or rc in CRASH_CODES):
        counts["crash"] = counts.get("crash", 0) + 1
        entry.update({"exit": rc, "message": "crashed when stopped: " + first_line(server.stderr())})
    entry.update({"outcome": worst(counts), "urls": counts, "bad": bad[:5], "errors": errors, "suspects": suspects})
    if counts.get("wrong"):
        entry["wrongURLs"] = counts["wrong"]
    if wrong_left:
        entry["wrongLeft"] = wrong_left
    return entry


def run_mutant(job):
    STATE["busy"] = True
    try:
        return check_mutant(*job)
    except KeyboardInterrupt:
        os._exit(130)   # the servers are stopped and files removed by now
    finally:
        STATE["busy"] = False


def check_mutant(index, offset, xor):
    webarc, data, truth, seed = STATE["webarc"], STATE["data"], STATE["truth"], STATE["seed"]
    folder = os.path.join(STATE["work"], f"m{index:05d}-{offset}-{xor:02x}")
    os.makedirs(folder, exist_ok=True)
    mutant = os.path.join(folder, "mutant.webarc")
    damaged = bytearray(data)
    damaged[offset] ^= xor
    with open(mutant, "wb") as f:
        f.write(damaged)
    del damaged
    rng = random.Random(f"{seed}/{offset}/{xor}")    # the cat sample depends on the mutant only
    start = time.monotonic()
    result = {"index": index, "offset": offset, "xor": xor, "before": data[offset], "after": data[offset] ^ xor}
    commands = STATE["commands"]
    try:
        if "ls" in commands:
            result["ls"] = check_ls(webarc, mutant, truth)
        if "unpack" in commands:
            result["unpack"] = check_unpack(webarc, mutant, truth, folder)
        if "serve" in commands:
            result["serve"] = check_serve(webarc, mutant, truth, folder)
        if "cat" in commands:   # last: it starts with the URLs unpack and serve found damaged
            suspects = {url for c in ("unpack", "serve") for url in result.get(c, {}).get("suspects", [])}
            result["cat"] = check_cat(webarc, mutant, truth, rng, suspects)
        for entry in result.values():
            if isinstance(entry, dict) and "suspects" in entry:
                entry["suspects"] = entry["suspects"][:20]
    finally:
        if not STATE["keep"]:
            shutil.rmtree(folder, ignore_errors=True)
    result["seconds"] = round(time.monotonic() - start, 3)
    return result


# ---------------------------------------------------------------------------------------------
# Report

def summarize(results, commands):
    summary = {}
    for command in commands:
        row = {"run": 0, "ok": 0, "clean": 0, "other": 0, "wrong": 0, "wrongURLs": 0, "index": 0,
               "crash": 0, "hang": 0, "wrongLeft": 0}
        for result in results:
            entry = result.get(command)
            if entry is None:
                continue
            row["run"] += 1
            row[entry["outcome"]] += 1
            row["wrongURLs"] += entry.get("wrongURLs", 0)
            row["wrongLeft"] += 1 if entry.get("wrongLeft") else 0
            for outcome, n in entry.get("urls", {}).items():
                row.setdefault("urlOutcomes", {}).setdefault(outcome, 0)
                row["urlOutcomes"][outcome] += n
        summary[command] = row
    return summary


def bad_cases(results, commands):
    """Up to two lines per mutant and command: the bad outcomes first, then junk before an error."""
    cases, junk = [], []
    for result in results:
        for command in commands:
            entry = result.get(command)
            if entry is None or not (entry["outcome"] in BAD or entry.get("wrongLeft")):
                continue
            listed = entry.get("bad") or entry.get("errors") or [{"url": "", "reason": entry.get("message", "")}]
            for item in listed[:2]:
                (cases if entry["outcome"] in BAD else junk).append({
                    "mutant": f"{result['offset']}:0x{result['xor']:02x}", "command": command,
                    "outcome": entry["outcome"], "url": item["url"],
                    "reason": item.get("reason") or item.get("what") or entry.get("message", "")})
    return cases + junk


COLUMNS = (("run", "run"), ("ok", "ok"), ("clean", "clean err"), ("other", "other err"),
           ("wrong", "WRONG"), ("wrongURLs", "wrong URLs"), ("index", "index dmg"),
           ("crash", "crash"), ("hang", "hang"), ("wrongLeft", "junk+err"))


def print_table(report):
    print(f"webarc:  {report['webarc']}")
    print(f"archive: {report['archive']} ({report['archiveBytes']} bytes, {len(report['truth']['records'])} records,"
          f" {report['truth']['servePaths']} served paths)")
    print(f"mutants: {report['mutants']} (seed {report['seed']}) in {report['seconds']:.0f} s:"
          f" {report['secondsPerMutant']:.2f} s each with {report['jobs']} jobs,"
          f" {report['medianMutantSeconds']:.2f} s one alone (median)")
    for warning in report["warnings"]:
        print(f"warning: {warning}")
    print()
    widths = [max(len(title), 6) for _, title in COLUMNS]
    print(f"{'command':<8}" + "".join(f" {title:>{w}}" for (_, title), w in zip(COLUMNS, widths)))
    for command, row in report["commands"].items():
        print(f"{command:<8}" + "".join(f" {row[key]:>{w}}" for (key, _), w in zip(COLUMNS, widths)))
    print()
    print("Counts are mutants by their worst outcome (WRONG > index dmg > crash > hang > other err > clean err > ok);")
    print("wrong URLs counts URLs or files; junk+err counts failures that first delivered wrong bytes.")
    for command in ("cat", "serve"):
        outcomes = report["commands"].get(command, {}).get("urlOutcomes")
        if outcomes:
            print(f"{command} per URL: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    cases = report["badCases"]
    if cases:
        print(f"\nFirst {min(len(cases), BAD_CASES_SHOWN)} of {report['badCasesTotal']} bad cases "
              f"(rerun one with --only OFFSET:XOR --keep):")
        for case in cases[:BAD_CASES_SHOWN]:
            print(f"  {case['mutant']:<14} {case['command']:<7} {case['outcome']:<6} {case['url']}  {case['reason']}")
    print(f"\nverdict: {report['verdict']}")


def parse_only(values):
    mutants = []
    for value in values:
        for item in value.split(","):
            if not item.strip():
                continue
            try:
                offset, xor = item.split(":")
                mutants.append((int(offset, 0), int(xor, 0)))
            except ValueError:
                raise SystemExit(f"mutants: --only wants OFFSET:XOR (e.g. 1234:0x5a), not {item!r}")
    return mutants


def main():
    parser = argparse.ArgumentParser(description="Flip one byte of an archive, many times, and check "
                                     "that no webarc command delivers the damage as good data.")
    parser.add_argument("--webarc", required=True, help="the webarc binary to test")
    parser.add_argument("--archive", required=True, help="the undamaged archive")
    parser.add_argument("--count", type=int, default=1000, help="mutants to make (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="RNG seed (default 1)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--work", help="folder for work files (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the work files (mutants, truth)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--only", action="append", default=[], metavar="OFFSET:XOR[,...]",
                        help="run just these mutants (as the bad-case list names them)")
    parser.add_argument("--commands", default=",".join(COMMANDS),
                        help=f"commands to check (default {','.join(COMMANDS)})")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args()

    webarc = os.path.abspath(args.webarc)
    archive = os.path.abspath(args.archive)
    commands = [c.strip() for c in args.commands.split(",") if c.strip()]
    if any(c not in COMMANDS for c in commands):
        raise SystemExit(f"mutants: --commands takes {', '.join(COMMANDS)}")
    if not os.access(webarc, os.X_OK):
        raise SystemExit(f"mutants: {webarc} is not an executable")
    with open(archive, "rb") as f:
        data = f.read()
    if not data:
        raise SystemExit("mutants: the archive is empty")
    if args.jobs < 1 or args.count < 0:
        raise SystemExit("mutants: --jobs must be at least 1 and --count not negative")

    made_work = args.work is None
    work = os.path.abspath(args.work) if args.work else tempfile.mkdtemp(prefix="webarc-mutants-")
    os.makedirs(work, exist_ok=True)
    started = time.monotonic()
    warnings = []
    try:
        truth = record_truth(webarc, archive, work, warnings)
        if args.only:
            jobs = [(i, offset, xor) for i, (offset, xor) in enumerate(parse_only(args.only))]
            for _, offset, xor in jobs:
                if not (0 <= offset < len(data) and 1 <= xor <= 255):
                    raise SystemExit(f"mutants: {offset}:{xor} is outside the archive or not a non-zero byte")
        else:
            rng = random.Random(args.seed)
            jobs = [(i, rng.randrange(len(data)), rng.randrange(1, 256)) for i in range(args.count)]
        STATE.update(webarc=webarc, data=data, truth=truth, seed=args.seed, work=os.path.join(work, "mutants"),
                     keep=args.keep, commands=commands)
        os.makedirs(STATE["work"], exist_ok=True)
        results = []
        progress = not args.quiet
        mutants_started = time.monotonic()
        with multiprocessing.get_context("fork").Pool(args.jobs, initializer=init_worker) as pool:
            for result in pool.imap(run_mutant, jobs):
                results.append(result)
                if progress and (sys.stderr.isatty() or len(results) % max(1, len(jobs) // 10) == 0
                                 or len(results) == len(jobs)):
                    bad = sum(1 for r in results if any(r[c]["outcome"] in BAD for c in commands))
                    end = "\r" if sys.stderr.isatty() and len(results) < len(jobs) else "\n"
                    print(f"mutants: {len(results)}/{len(jobs)} done, {bad} with bad outcomes", end=end,
                          file=sys.stderr, flush=True)
            pool.close()
            pool.join()
        mutant_seconds = time.monotonic() - mutants_started
    finally:
        if not args.keep and made_work:
            shutil.rmtree(work, ignore_errors=True)
        elif not args.keep:
            shutil.rmtree(os.path.join(work, "mutants"), ignore_errors=True)
            shutil.rmtree(os.path.join(work, "truth"), ignore_errors=True)

    summary = summarize(results, commands)
    cases = bad_cases(results, commands)
    failed = any(summary[c][k] for c in commands for k in ("wrong", "index", "crash", "hang"))
    report = {
        "webarc": webarc, "archive": archive, "archiveBytes": len(data), "seed": args.seed,
        "mutants": len(results), "jobs": args.jobs, "timeoutSeconds": TIMEOUT,
        "seconds": round(time.monotonic() - started, 1),
        "secondsPerMutant": round(mutant_seconds / max(1, len(results)), 3),
        "medianMutantSeconds": sorted(r["seconds"] for r in results)[len(results) // 2] if results else 0,
        "truth": {"records": truth["records"], "servePaths": len(truth["served"]),
                  "files": len(truth["files"]), "unpackExit": truth["unpack_rc"]},
        "warnings": warnings,
        "commands": summary,
        "badCasesTotal": len(cases), "badCases": cases[:BAD_CASES_SHOWN],
        "verdict": ("FAIL: damaged bytes delivered as good data, or a crash or hang" if failed
                    else "pass: every mutant gave correct bytes or a clean error"),
        "results": results,
    }
    if args.keep:
        report["work"] = work
    if args.json:
        report["truth"]["records"] = len(truth["records"])
        json.dump(report, sys.stdout, indent=1)
        print()
    else:
        print_table(report)
        if args.keep:
            print(f"work files kept in {work}")
    return 1 if failed else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)      # even when started in the background, which ignores it
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("mutants: interrupted", file=sys.stderr)
        sys.exit(130)
