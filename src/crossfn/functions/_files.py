"""Which files a built-in function may read in the process it runs in: :class:`FileAccess`.

Upstream functions run in containers of their own, so a path in a step's
input (function-go-templating's ``fileSystem.dirPath``, function-kcl's local
source, its settings and dependencies, a KCL program's ``file.read``) reaches
only that container's files: usually a ConfigMap the operator mounted. crossfn
runs built-ins in the process that calls them. In ``crossfn render`` and
``crossfn function serve`` that process is the user's own, and a built-in reads
what the user can (``None``: no :class:`FileAccess`). In the controller it is
the controller's pod, with its service account token: there a built-in gets a
:class:`FileAccess` and may read only beneath its ``root`` (none at all without
one), symbolic links resolved first, so a link cannot lead out; the sandbox
processes of KCL programs and Python scripts are confined by the kernel to the
same directory (:mod:`crossfn.functions._landlock`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from pathlib import Path

from crossfn import errors

__all__ = ["FileAccess", "FileAccessError"]


class FileAccessError(errors.CrossfnError):
    """A built-in was asked to read a file its :class:`FileAccess` does not allow; the message says why."""


@dataclasses.dataclass(frozen=True)
class FileAccess:
    """Built-ins read files only beneath ``root`` (a directory, resolved), or none when it is ``None``.

    ``flag`` is how the operator allows a directory, for the refusal's text.
    """

    root: Path | None = None
    flag: str = "--function-filesystem-root"

    @property
    def readable(self) -> tuple[str, ...]:
        """The directories a confined sandbox process may read besides the interpreter's own."""
        return () if self.root is None else (str(self.root),)

    def refusal(self) -> str:
        """Why a path was refused."""
        if self.root is None:
            return (
                f"this controller lets built-in functions read no files (allow a directory with {self.flag})"
            )
        return f"not in {self.root}, the directory this controller lets built-in functions read ({self.flag})"

    def sandbox_note(self) -> str:
        """What a sandboxed program was allowed, for an error its refused access caused."""
        if self.root is None:
            return f"the controller runs programs with no access to its files ({self.flag} DIR lets them read DIR)"
        return (
            f"the controller runs programs able to read only {self.root}, and to write nothing ({self.flag})"
        )

    def within(self, path: str | os.PathLike[str]) -> str:
        """``path`` with every symbolic link resolved, when it lies beneath :attr:`root`; else FileAccessError.

        A relative path is taken from the root, as a container's paths are from its own root.
        """
        if self.root is None:
            raise FileAccessError(self.refusal())
        real = os.path.realpath(os.path.join(self.root, path))
        if real != str(self.root) and not real.startswith(str(self.root) + os.sep):
            raise FileAccessError(self.refusal())
        return real

    def open(self, path: str | os.PathLike[str]) -> int:
        """A descriptor of ``path`` opened for reading, only when the file it opens lies beneath :attr:`root`.

        The file opened is checked again through ``/proc/self/fd`` where there is one, so a link swapped
        in between the check and the open cannot lead out either. Non-blocking, so a FIFO does not hang.
        """
        real = self.within(path)
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            with contextlib.suppress(FileNotFoundError):  # no /proc: the check above stands
                self.within(os.readlink(f"/proc/self/fd/{fd}"))
        except FileAccessError:
            os.close(fd)
            raise
        return fd

    @classmethod
    def beneath(
        cls, root: str | os.PathLike[str] | None, *, flag: str = "--function-filesystem-root"
    ) -> FileAccess:
        """Access beneath ``root`` (resolved now; it must be a directory), or to nothing for ``None``."""
        if root is None:
            return cls(None, flag)
        real = Path(os.path.realpath(root))
        if not real.is_dir():
            raise errors.InputError(f"{flag} {errors.quote(str(root))}: not a directory")
        if real == Path(os.sep):
            raise errors.InputError(f"{flag} {errors.quote(str(root))}: would let built-ins read every file")
        return cls(real, flag)
