"""Set up function-pythonic for the peer tests: its PyPI release, pinned, in a Python >= 3.12 environment.

function-pythonic (crossplane-contrib/function-pythonic) is a real function nobody
here wrote; ``tests/peers/pythonic`` and ``tests/controller/test_peer_pythonic.py``
run it under ``crossfn render``, the engine and the controller. Its releases
need Python >= 3.12 and pin an official SDK crossfn's own environment does not
have, so it gets an environment of its own, made the way users make one:
``crossfn function install`` (``crossfn.functions.installs``), with every
dependency pinned by ``tests/peers/pythonic/constraints.txt``. Its examples
come from the same release's source distribution on PyPI (they are not in the
wheel), unpacked beside it.

Everything lands in ``$XDG_CACHE_HOME/crossfn/peers/pythonic-<key>`` (like the
envtest binaries), ``<key>`` hashing the release and the pins, so a change to
either makes a new one and an unchanged one is reused without the network.
``.ci/run`` runs this before the tests; the tests' fixtures run it too (a
no-op once it is made) and read the JSON it prints on stdout::

    {"functions_dir": ..., "install": ..., "examples": ..., "python": ..., "package": ...}

The interpreter: ``$CROSSFN_PEER_PYTHON``, else the newest ``python3.14``,
``python3.13`` or ``python3.12`` on PATH that runs, else one under pyenv's
root (``$PYENV_ROOT``, ``~/.pyenv``). Without one it prints why on stderr and
exits with status 3, which the fixtures turn into a skip (a failure under
``CI=true``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RELEASE = "v0.3.0"
PACKAGE = f"xpkg.crossplane.io/crossplane-contrib/function-pythonic:{RELEASE}"
DISTRIBUTION = "crossplane-function-pythonic"
CONSTRAINTS = ROOT / "tests" / "peers" / "pythonic" / "constraints.txt"
NO_PYTHON = 3
_SUPPORTED = ((3, 14), (3, 13), (3, 12))


def cache_root() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME", "") or Path.home() / ".cache")
    key = hashlib.sha256(f"{PACKAGE}\n{CONSTRAINTS.read_text()}".encode()).hexdigest()[:16]
    return cache / "crossfn" / "peers" / f"pythonic-{key}"


def _version(interpreter: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [interpreter, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True, text=True, timeout=30, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    parts = out.stdout.split()
    if out.returncode != 0 or len(parts) != 2:
        return None
    return int(parts[0]), int(parts[1])


def find_python() -> str | None:
    """An interpreter pythonic's release supports (see the module docstring for the order)."""
    given = os.environ.get("CROSSFN_PEER_PYTHON", "")
    if given:
        return given if _version(given) in _SUPPORTED else None
    for major, minor in _SUPPORTED:
        found = shutil.which(f"python{major}.{minor}")
        if found and _version(found) == (major, minor):
            return found
    pyenv = Path(os.environ.get("PYENV_ROOT", "") or Path.home() / ".pyenv") / "versions"
    for major, minor in _SUPPORTED:
        for candidate in sorted(pyenv.glob(f"{major}.{minor}.*/bin/python"), reverse=True):
            if _version(str(candidate)) == (major, minor):
                return str(candidate)
    return None


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    """One setup at a time: test workers may ask together."""
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _examples(install: Path, into: Path) -> None:
    """Unpack the release's ``examples/`` from its source distribution on PyPI."""
    version = RELEASE.removeprefix("v")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [str(install / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "download", "-q",
             "--no-deps", "--no-binary", ":all:", f"{DISTRIBUTION}=={version}", "-d", tmp],
            check=True, stdin=subprocess.DEVNULL, stdout=sys.stderr,
        )  # fmt: skip
        (sdist,) = Path(tmp).glob("*.tar.gz")
        partial = into.with_name(into.name + ".tmp")
        shutil.rmtree(partial, ignore_errors=True)
        with tarfile.open(sdist) as tar:
            members = [m for m in tar.getmembers() if m.name.split("/")[1:2] == ["examples"]]
            tar.extractall(partial, members=members, filter="data")
        (top,) = partial.iterdir()
        shutil.rmtree(into, ignore_errors=True)
        (top / "examples").rename(into)
        shutil.rmtree(partial)


def ensure() -> dict[str, str]:
    """Make the environment if it is not made yet; what the tests need to know about it."""
    root = cache_root()
    functions_dir = root / "functions"
    examples = root / "examples"
    with _locked(root):
        python = find_python()
        if python is None:
            supported = ", ".join(f"python{major}.{minor}" for major, minor in _SUPPORTED)
            raise SystemExit(
                f"no Python >= 3.12 for function-pythonic {RELEASE}: set CROSSFN_PEER_PYTHON, or put "
                f"{supported} on PATH"
            )
        out = subprocess.run(
            [sys.executable, "-m", "crossfn", "function", "install", PACKAGE, "--python", python,
             "--constraint", str(CONSTRAINTS), "--dir", str(functions_dir)],
            check=False, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        if out.returncode != 0:
            raise SystemExit(f"crossfn function install {PACKAGE} failed (status {out.returncode})")
        install = Path(out.stdout.strip())
        if not (examples / "get-started-app").is_dir():
            _examples(install, examples)
    record = json.loads((install / "crossfn-install.json").read_text())
    return {
        "package": PACKAGE,
        "functions_dir": str(functions_dir),
        "install": str(install),
        "examples": str(examples),
        "python": str(record["python"]),
    }


def main() -> int:
    try:
        env = ensure()
    except SystemExit as exc:
        print(f"pythonic_peer_env: {exc}", file=sys.stderr)
        return NO_PYTHON if "no Python" in str(exc) else 1
    print(json.dumps(env))
    return 0


if __name__ == "__main__":
    sys.exit(main())
