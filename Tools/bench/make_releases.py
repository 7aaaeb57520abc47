#!/usr/bin/env python3
"""Builds the update-bench release series reproducibly: the same inputs give the same bytes.

    make_releases.py WORK [SERIES...]

SERIES (default: all three) are written to WORK/releases/SERIES/RELEASE/, one folder per release:

    flask    Flask 3.0.1, 3.0.2 and 3.0.3: the HTML documentation built from each release's source
             distribution on PyPI (`pip download --no-binary :all: --no-deps flask==X`) with one
             pinned Sphinx 7.2.6 and the theme and extensions Flask's requirements/docs.txt names,
             installed into WORK/venv. Intersphinx is switched off (no network here).
    pydocs   Debian's python3.11-doc HTML as release A; B is A with one added line in 10 % of the
             .html pages (picked by a hash of the path); C is B with 5 pages deleted, one renamed
             and one added.
    multi    The synthetic release series of make_corpus.py's multi corpus: python-3.11.0 to .3,
             each changing the version string in a fixed 2 % of its pages.

Modification times are part of an archive (`webarc pack` stores Last-Modified from them), so they
are set here, as a deploy that keeps unchanged files would leave them: a file whose bytes equal the
previous release's file at the same path keeps that file's time; any other file gets its release's
time (RELEASE_TIME below, the real release dates for Flask). Sphinx runs with SOURCE_DATE_EPOCH set
to that time, one process (-j 1), and its doctrees outside the output.

A series is rebuilt when its recipe changes (a stamp file holds a hash of this script); WORK/releases/
VERSIONS.txt lists what was built. Needs pip reaching PyPI (flask) and the Debian package
python3.11-doc (pydocs, multi).
"""

import hashlib
import os
import shutil
import subprocess
import sys

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, SCRIPT_DIR)
import make_corpus  # noqa: E402  (its release() is the multi corpus's series)

PYDOCS = make_corpus.PYDOCS

FLASK_RELEASES = ["3.0.1", "3.0.2", "3.0.3"]
# Release dates (UTC noon) from PyPI's upload times, used as SOURCE_DATE_EPOCH and file times.
RELEASE_TIME = {
    "flask/3.0.1": 1705579200,   # 2024-01-18
    "flask/3.0.2": 1706961600,   # 2024-02-03
    "flask/3.0.3": 1712491200,   # 2024-04-07
    "pydocs/A": 1700000000,
    "pydocs/B": 1701000000,
    "pydocs/C": 1702000000,
    "multi/python-3.11.0": 1700000000,
    "multi/python-3.11.1": 1701000000,
    "multi/python-3.11.2": 1702000000,
    "multi/python-3.11.3": 1703000000,
}
# One Sphinx for every Flask release: Flask 3.0.3's requirements/docs.txt, plus the runtime
# packages autodoc imports. Nothing else is installed into the venv.
SPHINX_PINS = [
    "sphinx==7.2.6", "docutils==0.20.1", "pallets-sphinx-themes==2.1.1", "sphinx-tabs==3.4.5",
    "sphinx-issues==3.0.1", "sphinxcontrib-log-cabinet==1.0.1", "sphinxcontrib-applehelp==1.0.8",
    "sphinxcontrib-devhelp==1.0.6", "sphinxcontrib-htmlhelp==2.0.5", "sphinxcontrib-jsmath==1.0.1",
    "sphinxcontrib-qthelp==1.0.7", "sphinxcontrib-serializinghtml==1.1.10", "alabaster==0.7.16",
    "babel==2.14.0", "pygments==2.17.2", "jinja2==3.1.3", "markupsafe==2.1.5", "packaging==24.0",
    "snowballstemmer==2.2.0", "imagesize==1.4.1", "requests==2.31.0", "certifi==2024.2.2",
    "charset-normalizer==3.3.2", "idna==3.6", "urllib3==2.2.1",
    "werkzeug==3.0.1", "itsdangerous==2.1.2", "click==8.1.7", "blinker==1.7.0", "flit_core==3.9.0",
]
CHANGED_PERCENT = 10   # pydocs B: share of .html pages given one added line
DELETED_PAGES = 5      # pydocs C


def say(message: str) -> None:
    print(f"make_releases: {message}", file=sys.stderr, flush=True)


def run(command: list[str], **kwargs) -> None:
    subprocess.run(command, check=True, **kwargs)


def files_of(root: str) -> list[str]:
    found = []
    for folder, _, names in os.walk(root):
        found += [os.path.relpath(os.path.join(folder, name), root) for name in names]
    return sorted(found)


def same_bytes(a: str, b: str) -> bool:
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def set_times(release: str, previous: str | None, epoch: int) -> None:
    """Unchanged files keep the previous release's time, every other file (and folder) gets `epoch`."""
    for relative in files_of(release):
        path = os.path.join(release, relative)
        old = os.path.join(previous, relative) if previous else None
        if old and os.path.isfile(old) and same_bytes(path, old):
            stat = os.stat(old)
            os.utime(path, ns=(stat.st_mtime_ns, stat.st_mtime_ns))
        else:
            os.utime(path, (epoch, epoch))
    for folder, _, _ in os.walk(release):
        os.utime(folder, (epoch, epoch))


def hash_line(text: str) -> int:
    return hashlib.sha256(text.encode()).digest()[0] * 100 // 256


# --- flask ---------------------------------------------------------------------------------------

def flask(work: str, dest: str) -> list[str]:
    venv = os.path.join(work, "venv")
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        say("making the Sphinx venv")
        run([sys.executable, "-m", "venv", venv])
    run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", *SPHINX_PINS])
    sdists = os.path.join(work, "sdist")
    os.makedirs(sdists, exist_ok=True)
    notes = []
    previous = None
    for version in FLASK_RELEASES:
        sdist = os.path.join(sdists, f"flask-{version}.tar.gz")
        if not os.path.exists(sdist):
            say(f"downloading the flask {version} source distribution")
            run([python, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-binary", ":all:",
                 "--no-deps", "-d", sdists, f"flask=={version}"])
        with open(sdist, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        source = os.path.join(work, "src", f"flask-{version}")
        shutil.rmtree(source, ignore_errors=True)
        os.makedirs(os.path.dirname(source), exist_ok=True)
        run(["tar", "-xzf", sdist, "-C", os.path.dirname(source)])
        # The docs read Flask's version from the installed distribution, and autodoc imports it.
        run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
             "--no-build-isolation", "--force-reinstall", sdist])
        with open(os.path.join(source, "docs", "conf.py"), "a") as f:
            f.write("\n# make_releases.py: no network, so no intersphinx inventories\nintersphinx_mapping = {}\n")
        epoch = RELEASE_TIME[f"flask/{version}"]
        out = os.path.join(dest, version)
        say(f"building flask {version} docs with Sphinx 7.2.6")
        env = dict(os.environ, SOURCE_DATE_EPOCH=str(epoch), PYTHONHASHSEED="0", LC_ALL="C.UTF-8", TZ="UTC")
        run([os.path.join(venv, "bin", "sphinx-build"), "-b", "html", "-j", "1", "-q", "-E", "-a",
             "-d", os.path.join(work, "src", f"doctrees-{version}"), os.path.join(source, "docs"), out],
            env=env, stderr=subprocess.DEVNULL)
        set_times(out, previous, epoch)
        previous = out
        notes.append(f"flask/{version}: flask-{version}.tar.gz sha256 {digest}, Sphinx 7.2.6, SOURCE_DATE_EPOCH={epoch}")
    return notes


# --- pydocs A, B, C ----------------------------------------------------------------------------------

ADDED_LINE = '<p class="release-note">Release B: {path} was reviewed ({tag}).</p>\n'


def add_line(path: str, relative: str) -> None:
    """One line after the opening of the page's body (or its first line), naming the page."""
    with open(path, "rb") as f:
        data = f.read()
    line = ADDED_LINE.format(path=relative, tag=hashlib.sha256(relative.encode()).hexdigest()[:8]).encode()
    anchor = data.find(b'<div class="body" role="main">')
    at = data.find(b"\n", anchor) + 1 if anchor >= 0 else data.find(b"\n") + 1
    with open(path, "wb") as f:
        f.write(data[:at] + line + data[at:])


def pydocs(dest: str) -> list[str]:
    a, b, c = (os.path.join(dest, name) for name in "ABC")
    make_corpus.copy_tree(PYDOCS, a)
    set_times(a, None, RELEASE_TIME["pydocs/A"])
    make_corpus.copy_tree(a, b)
    pages = [p for p in files_of(b) if p.endswith(".html")]
    changed = [p for p in pages if hash_line(f"B/{p}") < CHANGED_PERCENT]
    for relative in changed:
        add_line(os.path.join(b, relative), relative)
    set_times(b, a, RELEASE_TIME["pydocs/B"])
    make_corpus.copy_tree(b, c)
    candidates = sorted((p for p in pages if p != "index.html"), key=lambda p: hashlib.sha256(f"C/{p}".encode()).digest())
    deleted, renamed = candidates[:DELETED_PAGES], candidates[DELETED_PAGES]
    for relative in deleted:
        os.remove(os.path.join(c, relative))
    new_name = renamed[:-len(".html")] + "-renamed.html"
    os.rename(os.path.join(c, renamed), os.path.join(c, new_name))
    added = "whatsnew/release-c.html"
    with open(os.path.join(c, "whatsnew", "3.11.html"), "rb") as f:
        page = f.read()
    with open(os.path.join(c, added), "wb") as f:
        f.write(page.replace(b"What\xe2\x80\x99s New In Python 3.11", b"What\xe2\x80\x99s New In Release C"))
    set_times(c, b, RELEASE_TIME["pydocs/C"])
    return [
        f"pydocs/A: {PYDOCS} (python3.11-doc {package_version('python3.11-doc')}), {len(pages)} .html pages",
        f"pydocs/B: A with one line added to {len(changed)} pages ({CHANGED_PERCENT} %)",
        f"pydocs/C: B less {', '.join(deleted)}; {renamed} renamed to {new_name}; {added} added",
    ]


def multi(dest: str) -> list[str]:
    notes = []
    previous = None
    for number in range(make_corpus.RELEASES):
        name = f"python-3.11.{number}"
        out = os.path.join(dest, name)
        make_corpus.release(PYDOCS, out, number)
        set_times(out, previous, RELEASE_TIME[f"multi/{name}"])
        previous = out
        notes.append(f"multi/{name}: make_corpus.py release {number} ({make_corpus.CHANGED_PER_RELEASE} % of pages per release)")
    return notes


def package_version(name: str) -> str:
    result = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], capture_output=True, text=True)
    return result.stdout.strip() or "not installed"


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 0 if len(sys.argv) > 1 else 64
    work = os.path.abspath(sys.argv[1])
    series = sys.argv[2:] or ["flask", "pydocs", "multi"]
    builders = {"flask": lambda d: flask(work, d), "pydocs": pydocs, "multi": multi}
    unknown = [s for s in series if s not in builders]
    if unknown:
        print(f"make_releases: error: unknown series {', '.join(unknown)} (flask, pydocs, multi)", file=sys.stderr)
        return 64
    with open(__file__, "rb") as f:
        recipe = hashlib.sha256(f.read()).hexdigest()[:16]
    with open(make_corpus.__file__, "rb") as f:
        recipe += hashlib.sha256(f.read()).hexdigest()[:16]
    for name in series:
        dest = os.path.join(work, "releases", name)
        stamp = os.path.join(work, "releases", f".{name}.stamp")
        if os.path.exists(stamp) and open(stamp).read().split("\n")[0] == recipe:
            continue
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        say(f"building the {name} series in {dest}")
        notes = builders[name](dest)
        with open(stamp, "w") as f:
            f.write(recipe + "\n" + "\n".join(notes) + "\n")
    with open(os.path.join(work, "releases", "VERSIONS.txt"), "w") as f:
        for name in ("flask", "pydocs", "multi"):
            stamp = os.path.join(work, "releases", f".{name}.stamp")
            if os.path.exists(stamp):
                f.writelines(line + "\n" for line in open(stamp).read().split("\n")[1:] if line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
