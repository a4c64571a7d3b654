"""Function packages that run from PyPI: installed on request into a virtual environment crossfn manages.

Some upstream functions publish the same release twice: as a Crossplane
package (an OCI image, what ``spec.package`` names) and as a Python
distribution on PyPI, built from the same tag by the same release workflow.
No built-in stands in for them, and without Docker the image cannot run, but
the distribution can: ``crossfn function install <package>`` creates a
virtual environment for that one release, with an interpreter the release
supports, and installs the distribution at exactly the version the tag names.
Afterwards ``crossfn render`` and ``crossfn controller`` run it, in a process
of its own started with the command the image's entry point runs, whenever a
Function's ``spec.package`` is that release and no runtime annotation says
otherwise; each says so in a line (:meth:`Installed.line`).

Nothing is ever installed from the network except by ``install`` (what the user
asked for). A render only reads the install's record (:func:`find`), so the
same install runs the same code every time, and ``crossfn render --no-exec``
refuses it: it is code crossfn does not ship.

Where the installs live: ``$CROSSFN_FUNCTIONS_DIR``, else
``$XDG_CACHE_HOME/crossfn/functions`` (``~/.cache/crossfn/functions``), one
directory per repository and tag (``function-pythonic/v0.3.0``), holding the
virtual environment and ``crossfn-install.json``, written last: a directory
without it is an install that did not finish, and is made again.

The packages (:data:`PACKAGES`), each a fact of its upstream repository:

=======================  ==================================================
function-pythonic        ``crossplane-function-pythonic`` on PyPI; its
(crossplane-contrib)     workflow runs ``hatch version <tag>`` for both, so
                         ``vX.Y.Z`` is PyPI's ``X.Y.Z``; the image runs
                         ``function-pythonic grpc``. Python >=3.11,<3.14
                         up to v0.1.4, >=3.12,<3.15 from v0.1.5.
=======================  ==================================================
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from crossfn import errors
from crossfn.functions import _is_host, _split, process
from crossfn.functions._registry import Version, parse_version

__all__ = [
    "DIR_ENV",
    "PACKAGES",
    "Installed",
    "PyPIPackage",
    "Server",
    "Wanted",
    "find",
    "functions_dir",
    "install",
    "wanted",
]

DIR_ENV = "CROSSFN_FUNCTIONS_DIR"
RECORD = "crossfn-install.json"
_RECORD_VERSION = 1

Pythons = tuple[tuple[int, int], tuple[int, int]]
"""The interpreters a release supports: from ``(major, minor)`` inclusive to ``(major, minor)`` exclusive."""


@dataclasses.dataclass(frozen=True)
class PyPIPackage:
    """An upstream function package whose releases are also a Python distribution on PyPI.

    ``command`` is what the package image's entry point runs (the distribution's
    console script and its arguments); crossfn appends ``--insecure
    --address=127.0.0.1:<port>``. ``pythons`` lists, in version order, the
    first release of each ``Requires-Python`` range and that range.
    """

    org: str
    repo: str
    distribution: str
    command: tuple[str, ...]
    pythons: tuple[tuple[str, Pythons], ...]

    def python_range(self, v: Version) -> Pythons:
        """The interpreters release ``v`` supports (the latest known range for a newer release)."""
        found = self.pythons[0][1]
        for since, pythons in self.pythons:
            first = parse_version(since)
            if first is not None and first <= v:
                found = pythons
        return found


PACKAGES: tuple[PyPIPackage, ...] = (
    PyPIPackage(
        org="crossplane-contrib",
        repo="function-pythonic",
        distribution="crossplane-function-pythonic",
        command=("function-pythonic", "grpc"),
        pythons=(("v0.0.1", ((3, 11), (3, 14))), ("v0.1.5", ((3, 12), (3, 15)))),
    ),
)
_BY_REPO = {(p.org, p.repo): p for p in PACKAGES}


def _range_text(pythons: Pythons) -> str:
    (low_major, low_minor), (high_major, high_minor) = pythons
    return f">={low_major}.{low_minor},<{high_major}.{high_minor}"


@dataclasses.dataclass(frozen=True)
class Wanted:
    """The distribution and version a Function's ``spec.package`` is, for one of :data:`PACKAGES`.

    ``problem`` is why no install can be that release ("" when one can): a
    digest, ``latest``, a pre-release or a Go pseudo-version names no version
    of the distribution.
    """

    package: str
    source: PyPIPackage
    tag: str
    version: str
    pythons: Pythons
    problem: str = ""

    @property
    def requirement(self) -> str:
        """pip's requirement for exactly this release: ``crossplane-function-pythonic==0.3.0``."""
        return f"{self.source.distribution}=={self.version}"

    @property
    def shown(self) -> str:
        """The release as users name it: ``function-pythonic v0.3.0``."""
        return f"{self.source.repo} {self.tag}".rstrip()

    def directory(self, root: Path) -> Path:
        """Where this release's install lives under ``root``."""
        return root / self.source.repo / self.tag

    def python_text(self) -> str:
        return _range_text(self.pythons)


def wanted(package: str) -> Wanted | None:
    """What ``spec.package`` asks for when it is a release of one of :data:`PACKAGES`, else None.

    Any registry (or none) counts, as for the built-ins; another organisation's
    fork does not.
    """
    path, tag, digest = _split(package.strip())
    if len(path) > 2 and _is_host(path[0]):
        path = path[1:]
    if len(path) != 2:
        return None
    source = _BY_REPO.get((path[0], path[1]))
    if source is None:
        return None
    v = parse_version(tag)
    if v is None:
        what = f"the digest {digest}" if digest else f"the tag {tag!r}" if tag else "no tag"
        return Wanted(
            package, source, tag, "", source.pythons[-1][1],
            f"{what} names no release of {source.distribution} on PyPI: pin a release tag (vX.Y.Z)",
        )  # fmt: skip
    return Wanted(package, source, tag.partition("+")[0], ".".join(map(str, v)), source.python_range(v))


@dataclasses.dataclass(frozen=True)
class Installed:
    """A finished install: the virtual environment at ``path`` and what its record says."""

    wanted: Wanted
    path: Path
    python: str
    """The interpreter's version (``3.12.1``)."""
    freeze: tuple[str, ...]
    """``pip freeze`` of the environment when it was installed: every distribution and version."""

    @property
    def argv(self) -> tuple[str, ...]:
        """The command that serves the function (without ``--insecure --address``)."""
        script, *args = self.wanted.source.command
        return (str(self.path / "bin" / script), *args)

    def line(self) -> str:
        """What runs, for a ``crossfn: note:`` line or the controller's log."""
        return (
            f"running {self.wanted.shown} as the PyPI package {self.wanted.source.distribution} "
            f"{self.wanted.version} installed in {self.path} (crossfn function install; Python "
            f"{self.python}), in a process of its own"
        )


def functions_dir() -> Path:
    """Where installs live: ``$CROSSFN_FUNCTIONS_DIR``, else the user's cache directory."""
    configured = os.environ.get(DIR_ENV, "")
    if configured:
        return Path(configured).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME", "") or str(Path.home() / ".cache")
    return Path(cache) / "crossfn" / "functions"


_FOUND: dict[Path, tuple[int, Installed | None]] = {}
"""Records read so far, by path, with the modification time they had: the controller asks on every call."""


def find(package: str, root: Path | None = None) -> Installed | None:
    """The finished install of ``spec.package``'s release under ``root`` (default :func:`functions_dir`), or None.

    Reads only the install's record: never the network, never pip.
    """
    want = wanted(package)
    if want is None or want.problem:
        return None
    record = want.directory(root if root is not None else functions_dir()) / RECORD
    try:
        stamp = record.stat().st_mtime_ns
    except OSError:
        return None
    known = _FOUND.get(record)
    if known is not None and known[0] == stamp:
        return known[1]
    found = _read_record(want, record)
    _FOUND[record] = (stamp, found)
    return found


def _read_record(want: Wanted, record: Path) -> Installed | None:
    try:
        data = json.loads(record.read_text())
    except (OSError, ValueError):
        return None
    if (
        not isinstance(data, dict)
        or data.get("record") != _RECORD_VERSION
        or data.get("distribution") != want.source.distribution
        or data.get("version") != want.version
    ):
        return None
    installed = Installed(
        want, record.parent, str(data.get("python") or ""), tuple(str(x) for x in data.get("freeze") or ())
    )
    return installed if Path(installed.argv[0]).is_file() else None


Log = Callable[[str], None]


def install(
    package: str,
    *,
    root: Path | None = None,
    python: str | None = None,
    constraint: Path | None = None,
    log: Log = lambda _: None,
) -> Installed:
    """Install ``spec.package``'s release from PyPI (the network: only when a user asks), or find it installed.

    ``python`` is the interpreter for the environment; by default this one,
    else the newest ``python3.N`` on ``PATH`` that the release supports.
    ``constraint`` is a pip constraints file (``-c``) for the distribution's
    dependencies. Raises :class:`crossfn.errors.InputError` with one line.
    """
    want = wanted(package)
    if want is None:
        known = ", ".join(f"{p.org}/{p.repo}" for p in PACKAGES)
        raise errors.InputError(
            f"cannot install {errors.quote(package)}: crossfn installs only function packages published on "
            f"PyPI too ({known})"
        )
    if want.problem:
        raise errors.InputError(f"cannot install {errors.quote(package)}: {want.problem}")
    if constraint is not None:
        _readable(constraint, "cannot read the constraints file")
    where = root if root is not None else functions_dir()
    found = find(package, where)
    if found is not None:
        log(f"{want.shown} is installed in {found.path} (Python {found.python})")
        return found
    interpreter, version = _interpreter(want, python)
    target = want.directory(where)
    shutil.rmtree(target, ignore_errors=True)  # an install that did not finish
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise errors.InputError(f"cannot make the directory {target.parent}: {exc.strerror or exc}") from exc
    log(f"installing {want.requirement} for {want.shown} with Python {version} ({interpreter}) into {target}")
    _run([interpreter, "-m", "venv", str(target)], f"cannot create a virtual environment in {target}")
    pip = [str(target / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "--no-input"]
    extra = ["-c", str(constraint)] if constraint is not None else []
    _run([*pip, "install", "-q", want.requirement, *extra], f"cannot install {want.requirement}")
    freeze = _run([*pip, "freeze", "--all"], "cannot list what was installed").splitlines()
    record = {
        "record": _RECORD_VERSION,
        "package": package,
        "distribution": want.source.distribution,
        "version": want.version,
        "python": version,
        "freeze": sorted(line for line in freeze if line.strip()),
    }
    partial = target / f".{RECORD}.tmp"
    partial.write_text(json.dumps(record, indent=2) + "\n")
    partial.replace(target / RECORD)
    installed = find(package, where)
    if installed is None:
        raise errors.InputError(
            f"cannot install {want.requirement}: it installed no {want.source.command[0]} command in {target}"
        )
    return installed


def _readable(path: Path, what: str) -> None:
    """Raise one line when ``path`` is not a file this process can read."""
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        raise errors.InputError(f"{what} {path}: {exc.strerror or exc}") from exc


def _interpreter(want: Wanted, given: str | None) -> tuple[str, str]:
    """The interpreter to install with and its version: ``given``, else this one, else ``python3.N`` on PATH."""
    (low, high) = want.pythons
    if given:
        version = _version_of(given)
        if version is None:
            raise errors.InputError(f"cannot run the Python interpreter {errors.quote(given)}")
        if not low <= version[:2] < high:
            raise errors.InputError(
                f"{want.requirement} needs Python {want.python_text()}; {given} is Python "
                f"{'.'.join(map(str, version))}"
            )
        return given, ".".join(map(str, version))
    candidates = [sys.executable]
    candidates += [f"python{major}.{minor}" for major, minor in _minors(low, high)]
    for candidate in candidates:
        if candidate != sys.executable and shutil.which(candidate) is None:
            continue
        version = _version_of(candidate)
        if version is not None and low <= version[:2] < high:
            return (shutil.which(candidate) or candidate), ".".join(map(str, version))
    *first, last = [f"python{major}.{minor}" for major, minor in _minors(low, high)]
    names = f"{', '.join(first)} or {last}" if first else last
    raise errors.InputError(
        f"{want.requirement} needs Python {want.python_text()}; this is Python "
        f"{'.'.join(map(str, sys.version_info[:3]))} and no {names} on PATH runs: "
        f"pass --python PATH of a Python {want.python_text()} interpreter"
    )


def _minors(low: tuple[int, int], high: tuple[int, int]) -> list[tuple[int, int]]:
    """Every ``(3, minor)`` from ``low`` up to ``high`` (exclusive), newest first."""
    return [(low[0], m) for m in range(high[1] - 1, low[1] - 1, -1)] if low[0] == high[0] else [low]


_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def _version_of(interpreter: str) -> tuple[int, int, int] | None:
    """``(major, minor, micro)`` of an interpreter, asked by running it; None when it does not run."""
    try:
        out = subprocess.run(
            [interpreter, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True, text=True, timeout=30, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    m = _VERSION.fullmatch(out.stdout.strip())
    if out.returncode != 0 or m is None:
        return None
    return int(m[1]), int(m[2]), int(m[3])


def _run(argv: Sequence[str], what: str) -> str:
    """Run a step of the install; its output on success, else one line with its last error."""
    try:
        out = subprocess.run(
            list(argv), capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL
        )
    except OSError as exc:
        raise errors.InputError(f"{what}: {exc.strerror or exc}") from exc
    if out.returncode != 0:
        lines = [line.strip() for line in (out.stderr + out.stdout).splitlines() if line.strip()]
        errs = [line for line in lines if line.startswith("ERROR:")]
        last = (errs or lines or [f"exit status {out.returncode}"])[-1]
        raise errors.InputError(f"{what}: {last}")
    return out.stdout


class Server:
    """An install serving gRPC on a free loopback port, insecure: the controller's child process.

    :meth:`target` starts it on first use (and again if it has exited),
    waiting until it serves (:class:`crossfn.functions.process.ServerProcess`);
    :meth:`stop` stops its whole process group. Its output goes to this
    process's stderr, where a developer running the controller sees it.
    """

    def __init__(self, installed: Installed, *, start_timeout: float = 60.0) -> None:
        self.installed = installed
        self._timeout = start_timeout
        self._server: process.ServerProcess | None = None
        self._lock = asyncio.Lock()

    async def target(self) -> str:
        """``127.0.0.1:<port>`` of the running server, started now when it is not running."""
        async with self._lock:
            if self._server is not None and self._server.running:
                return self._server.target
            program = self.installed.argv[0]
            try:
                self._server = await process.ServerProcess.start(
                    self.installed.argv, output=sys.stderr.fileno()
                )
            except OSError as exc:
                raise errors.FunctionRunError(f"cannot start {program}: {exc.strerror or exc}") from exc
            deadline = asyncio.get_running_loop().time() + self._timeout
            try:
                await self._server.wait_serving(deadline, program)
            except errors.FunctionRunError:
                await self.stop()
                raise
            return self._server.target

    async def stop(self) -> None:
        """SIGTERM to its process group, SIGKILL after :data:`crossfn.functions.process.STOP_GRACE` seconds."""
        server, self._server = self._server, None
        if server is not None:
            await server.stop()
