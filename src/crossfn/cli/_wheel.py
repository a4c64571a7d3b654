"""A wheel of the running crossfn, for a function project to install where crossfn is on no index.

:func:`write_wheel` packs the ``crossfn`` package this process imported, as it
is on disk (an installed copy or a source checkout), with the installed
distribution's metadata and entry points, into a pure-Python
``crossfn-<version>-py3-none-any.whl``. Native extensions are left out, so the
wheel installs on any platform and Python that crossfn supports; the optional
``dict`` <-> ``Struct`` accelerator (``crossfn.sdk._structpb``) is one of them,
and crossfn falls back to its pure-Python conversions without it. The archive
is reproducible: the same files give the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.machinery
import importlib.metadata
import os
import zipfile

import crossfn
from crossfn import errors

__all__ = ["wheel_name", "write_wheel"]

# Compiled files are tied to one platform and Python; the wheel is for any.
_SKIPPED_SUFFIXES = (".pyc", ".pyo", ".c", ".h", ".o", *importlib.machinery.EXTENSION_SUFFIXES)
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _distribution() -> importlib.metadata.Distribution:
    try:
        return importlib.metadata.distribution("crossfn")
    except importlib.metadata.PackageNotFoundError as exc:
        raise errors.CrossfnError(
            "cannot write a crossfn wheel: crossfn's metadata is not installed (install crossfn with pip)"
        ) from exc


def wheel_name() -> str:
    """The file name of the running crossfn's wheel, e.g. ``crossfn-0.1.0-py3-none-any.whl``."""
    version = _distribution().version.replace("-", "_")
    return f"crossfn-{version}-py3-none-any.whl"


def _package_files() -> list[tuple[str, str]]:
    """(path on disk, path in the wheel) for every file of the imported ``crossfn`` package, sorted."""
    root = os.path.dirname(os.path.abspath(crossfn.__file__))
    files = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__" and not d.startswith("."))
        for name in names:
            if name.endswith(_SKIPPED_SUFFIXES) or name.startswith("."):
                continue
            path = os.path.join(directory, name)
            files.append((path, "crossfn/" + os.path.relpath(path, root).replace(os.sep, "/")))
    return sorted(files, key=lambda pair: pair[1])


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def write_wheel(directory: str) -> str:
    """Write the running crossfn's wheel into ``directory`` (created if missing); returns its path."""
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise errors.InputError(f"cannot write a crossfn wheel to {directory}: it is not a directory")
    dist = _distribution()
    metadata = dist.read_text("METADATA")
    if metadata is None:
        raise errors.CrossfnError("cannot write a crossfn wheel: the installed crossfn has no METADATA")
    info = f"crossfn-{dist.version.replace('-', '_')}.dist-info"
    entries: list[tuple[str, bytes]] = []
    for path, arcname in _package_files():
        with open(path, "rb") as f:
            entries.append((arcname, f.read()))
    entries.append((f"{info}/METADATA", metadata.encode()))
    entry_points = dist.read_text("entry_points.txt")
    if entry_points:
        entries.append((f"{info}/entry_points.txt", entry_points.encode()))
    wheel = "Wheel-Version: 1.0\nGenerator: crossfn\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    entries.append((f"{info}/WHEEL", wheel.encode()))
    record = [_record_line(arcname, data) for arcname, data in entries]
    record.append(f"{info}/RECORD,,")
    entries.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))

    target = os.path.join(directory, wheel_name())
    partial = target + ".partial"
    try:
        os.makedirs(directory, exist_ok=True)
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for arcname, data in entries:
                entry = zipfile.ZipInfo(arcname, date_time=_ZIP_TIME)
                entry.external_attr = 0o644 << 16
                entry.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(entry, data)
        os.replace(partial, target)
    except OSError as exc:
        reason = (exc.strerror or str(exc)).lower()
        raise errors.InputError(f"cannot write a crossfn wheel to {directory}: {reason}") from exc
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return target
