"""Confining a sandbox process with Linux Landlock: read-only access beneath a few directories, nothing else.

The controller runs the KCL programs and Python scripts of Compositions in
sandbox processes (:mod:`crossfn.functions._sandbox`). Those processes run as
the controller's user, in its pod, where its service account token and
kubeconfig live; a KCL program can ``file.read`` and ``file.write`` any path, and
a Python script can escape an audit hook through native code. Landlock (Linux
5.13 and later, unprivileged) lets a process give up file access for good:
after :func:`restrict`, the process and its children may only read (and
execute) files beneath the directories named, may write, create, remove or
rename nothing, and, where the kernel has them, may neither connect nor bind TCP
sockets (ABI 4), reach abstract Unix sockets outside it, or signal other
processes (ABI 6). Files already open (the job pipes) stay usable.

Run as a script, this module is the sandbox's first step::

    python -I _landlock.py '{"readable": [...], "required": true}' <worker.py> <worker args...>

It restricts itself to the interpreter's own directories, the system's shared
libraries and the ``readable`` paths, clears the environment, then runs the
worker as ``__main__``. When the kernel cannot confine it and confinement is
``required`` (the controller's), it answers its first job with
``{"sandbox_error": "..."}`` and exits: such a caller never runs unconfined.
Otherwise (function-python in render, where the audit hook was the only wall
before) it runs the worker as it would have run without this step. It imports
only the standard library, so starting it costs no more than starting the
worker.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import runpy
import sys
from collections.abc import Iterable, Sequence

__all__ = ["LandlockError", "abi", "interpreter_paths", "restrict"]

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
"""System call numbers, the same on every architecture Linux added them to at once (x86_64, arm64, ...)."""
_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_EXECUTE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 2, 1 << 3
_FS_V1 = (1 << 13) - 1
"""Every file-system right of ABI 1: execute, write, read, read a directory, remove, make any kind of file."""
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_TCP = (1 << 0) | (1 << 1)
"""Bind and connect TCP (ABI 4)."""
_SCOPE = (1 << 0) | (1 << 1)
"""Abstract Unix sockets and signals outside the domain (ABI 6)."""

SYSTEM_LIBRARIES = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache")
"""Where the dynamic loader finds the shared libraries native modules (kcl-lib, _ssl) load."""


class LandlockError(OSError):
    """The kernel cannot confine this process; the message says why, in one line."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _why(err: int) -> str:
    if err == errno.ENOSYS:
        return "the kernel has no Landlock (Linux 5.13 or later built with it)"
    if err == errno.EOPNOTSUPP:
        return "Landlock is not enabled in this kernel (add landlock to its lsm= boot parameter)"
    if err == errno.EPERM:
        return "a seccomp profile forbids Landlock's system calls"
    return f"Landlock failed: {os.strerror(err)}"


def abi() -> int:
    """The kernel's Landlock ABI version; :class:`LandlockError` when there is none."""
    if not sys.platform.startswith("linux"):
        raise LandlockError(f"Landlock is Linux's, and this is {sys.platform}")
    version = _libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION))
    if version < 0:
        raise LandlockError(_why(ctypes.get_errno()))
    return int(version)


def interpreter_paths() -> list[str]:
    """What this interpreter reads to run and import: its prefixes, its module path and the system's libraries."""
    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *sys.path, *SYSTEM_LIBRARIES}
    return sorted(p for p in found if p and os.path.isabs(p))


def restrict(readable: Iterable[str]) -> None:
    """Confine this process for good to reading (and executing) beneath ``readable``; :class:`LandlockError`.

    A path that does not exist is skipped; ``/`` (or a path that resolves to it) is refused, since it would
    allow every read.
    """
    version = abi()
    fs = _FS_V1 | (_REFER if version >= 2 else 0) | (_TRUNCATE if version >= 3 else 0)
    fs |= _IOCTL_DEV if version >= 5 else 0
    attr = _RulesetAttr(fs, _NET_TCP if version >= 4 else 0, _SCOPE if version >= 6 else 0)
    size = 24 if version >= 6 else 16 if version >= 4 else 8
    libc = _libc()
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise LandlockError(_why(ctypes.get_errno()))
    try:
        for path in sorted(set(readable)):
            _allow(libc, int(ruleset), path)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise LandlockError(f"cannot set no_new_privs: {os.strerror(ctypes.get_errno())}")
        if libc.syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise LandlockError(_why(ctypes.get_errno()))
    finally:
        os.close(ruleset)


def _allow(libc: ctypes.CDLL, ruleset: int, path: str) -> None:
    if os.path.realpath(path) == os.sep:
        raise LandlockError(f"refusing to let the sandbox read all of {os.sep} (through {path})")
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        rights = _EXECUTE | _READ_FILE | (_READ_DIR if os.path.isdir(path) else 0)
        rule = _PathBeneath(rights, fd)
        if libc.syscall(_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule),
                        ctypes.c_uint32(0)) != 0:  # fmt: skip
            raise LandlockError(f"cannot let the sandbox read {path}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


def _main(argv: Sequence[str]) -> None:
    """Confine, then become the worker ``argv[1]`` with the arguments after it."""
    policy = json.loads(argv[0])
    worker = argv[1]
    try:
        restrict([*interpreter_paths(), os.path.dirname(worker), *policy["readable"]])
    except LandlockError as exc:
        if not policy["required"]:
            _become(worker, argv[2:])
            return
        # The job protocol's first reply: the parent reads it as its first job's answer, and this process ends.
        sys.stdin.buffer.readline()
        sys.stdout.write(json.dumps({"sandbox_error": f"cannot confine the sandbox process: {exc}"}) + "\n")
        sys.stdout.flush()
        sys.exit(3)
    os.environ.clear()  # nothing of the parent's environment for a program to read (KCL's file.read_env)
    _become(worker, argv[2:])


def _become(worker: str, args: Sequence[str]) -> None:
    sys.argv = [worker, *args]
    sys.path[0] = os.path.dirname(worker)
    runpy.run_path(worker, run_name="__main__")


if __name__ == "__main__":
    _main(sys.argv[1:])
