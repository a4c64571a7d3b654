"""The input, ``GoTemplate``, and where its template text comes from.

The input is decoded as each release's function-sdk-go decodes it
(:mod:`crossfn.gocompat.jsonstruct`): to v0.4.1 (function-sdk-go v0.1.0)
with go-json-experiment, names matched exactly and unknown fields skipped
(``V2``), rejecting unknown fields from v0.5.0. The template text comes from ``inline.template`` (or, from
v0.12.0, ``inline.templates`` joined by ``---`` lines), from every file under
``fileSystem.dirPath`` in name order (each followed by a ``---`` line), or,
from v0.11.0, from a key of the pipeline's environment.

A directory is read from the file system of the process the function runs
in, as upstream reads its container's: the machine ``crossfn render`` runs
on, or the ``crossfn function serve`` process. In the controller's pod a
:class:`~crossfn.functions._files.FileAccess` allows only files beneath the
directory the operator named (links resolved), as upstream's pod sees only the
ConfigMap mounted into it.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.functions import _files
from crossfn.functions.go_templating._release import Release
from crossfn.gocompat import jsonstruct as js
from crossfn.gocompat import values
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["Input", "InputPanic", "decode", "template_text"]

ENVIRONMENT_KEY = "apiextensions.crossplane.io/environment"
DEFAULT_SOURCE_ENV = "FUNCTION_GO_TEMPLATING_DEFAULT_SOURCE"
_MAX_TEMPLATE_BYTES = 32 * 1024 * 1024
"""The most template text read from a directory (far beyond a gRPC message's 4 MiB of output)."""


class InputPanic(Exception):  # noqa: N818 -- upstream crashes here; the caller reports it as a Fatal result
    """Input that made the release crash (a nil pointer dereference) rather than report an error."""


@dataclasses.dataclass(frozen=True)
class Input:
    source: str
    inline: Mapping[str, Any] | None
    file_system: Mapping[str, Any] | None
    environment: Mapping[str, Any] | None
    delims: Mapping[str, Any] | None
    options: list[str] | None


def _schema(r: Release) -> js.Struct:
    prefix = r.source_type_prefix
    inline: dict[str, js.Type] = {"template": js.STRING}
    if r.has_v0_12_input:
        inline["templates"] = js.Slice(js.STRING)
    fields: dict[str, js.Type] = {
        "apiVersion": js.STRING,
        "kind": js.STRING,
        "metadata": js.ANY,
        "source": js.Scalar("string", f"v1beta1.{prefix}"),
        "inline": js.Struct(f"v1beta1.{prefix}Inline", inline),
        "fileSystem": js.Struct(f"v1beta1.{prefix}FileSystem", {"dirPath": js.STRING}),
    }
    if r.has_delims:
        fields["delims"] = js.Struct("v1beta1.Delims", {"left": js.STRING, "right": js.STRING})
    if r.has_environment_source:
        fields["environment"] = js.Struct("v1beta1.TemplateSourceEnvironment", {"key": js.STRING})
    if r.has_v0_12_input:
        fields["options"] = js.Slice(js.STRING)
    return js.Struct(r.input_type, fields)


def decode(req: fnv1.RunFunctionRequest, r: Release) -> Input:
    """The step's input; :class:`~crossfn.errors.FunctionInputError` with upstream's whole message."""
    raw = resource.struct_to_dict(req.input, integers=False) if req.HasField("input") else {}
    try:
        v = js.decode(raw, _schema(r), decoder=js.STRICT if r.rejects_unknown_fields else js.V2)
    except errors.GoError as exc:
        req_type = "*v1.RunFunctionRequest" if r.protocol_v1 else "*v1beta1.RunFunctionRequest"
        into = f"*{r.input_type}"
        if r.wraps_input_error_with_types:
            middle = f"cannot get function input {into} from {req_type}"
        else:
            middle = "cannot get Function input %T from %T, into, req"
        raise errors.FunctionInputError(
            f"cannot get Function input from {req_type}: {middle}: "
            f"cannot unmarshal JSON from *structpb.Struct into {into}: {exc}"
        ) from exc
    options = v.get("options")
    return Input(
        source=str(v.get("source", "")),
        inline=v.get("inline"),
        file_system=v.get("fileSystem"),
        environment=v.get("environment"),
        delims=v.get("delims"),
        options=[o or "" for o in options] if options is not None else None,  # null: Go's ""
    )


def with_default_source(inp: Input, default_source: str) -> Input:
    """v0.12.0: no ``source`` and a default directory: read that directory."""
    if inp.source or not default_source:
        return inp
    return dataclasses.replace(inp, source="FileSystem", file_system={"dirPath": default_source})


def template_text(
    inp: Input, r: Release, context: Mapping[str, Any], files: _files.FileAccess | None = None
) -> str:
    """The template text the input names; :class:`~crossfn.errors.GoError` with upstream's text, or
    :class:`InputPanic` where the release crashed. ``files`` bounds what a FileSystem source reads."""
    if inp.source == "Inline":
        return _inline(inp, r)
    if inp.source == "FileSystem":
        return _file_system(inp, r, files)
    if inp.source == "Environment" and r.has_environment_source:
        return _environment(inp, context)
    if inp.source == "":
        raise errors.GoError("source is required")
    raise errors.GoError(f"invalid source: {inp.source}")


def _inline(inp: Input, r: Release) -> str:
    inline = inp.inline
    if not r.checks_source_fields:
        if inline is None:
            raise InputPanic("source Inline without inline")
        return str(inline.get("template", ""))
    template = str((inline or {}).get("template", ""))
    templates = [str(t or "") for t in (inline or {}).get("templates", []) or []]
    if r.has_v0_12_input:
        if inline is None or (not template and not templates):
            raise errors.GoError("inline.template or inline.templates should be provided")
        return template or "\n---\n".join(templates)
    if inline is None or not template:
        raise errors.GoError("inline.template should be provided")
    return template


def _file_system(inp: Input, r: Release, files: _files.FileAccess | None) -> str:
    fs = inp.file_system
    if fs is None and not r.checks_source_fields:
        raise InputPanic("source FileSystem without fileSystem")
    dir_path = str((fs or {}).get("dirPath", ""))
    if r.checks_source_fields and not dir_path:
        raise errors.GoError("fileSystem.dirPath should be provided")
    if files is not None and files.root is not None and dir_path and not os.path.isabs(dir_path):
        dir_path = os.path.join(files.root, dir_path)  # confined: relative to the allowed directory
    try:
        return read_templates(dir_path, r.walk, files)
    except errors.GoError as exc:
        raise errors.GoError(f"cannot read tmpl from the folder {{{dir_path}}}: {exc}") from exc


def _environment(inp: Input, context: Mapping[str, Any]) -> str:
    key = str((inp.environment or {}).get("key", ""))
    if not key:
        raise errors.GoError("environment.key should be provided")
    env = context.get(ENVIRONMENT_KEY)
    if not isinstance(env, dict):
        raise errors.GoError(
            f"cannot read tmpl from the environment: {ENVIRONMENT_KEY} key does not exist in context"
        )
    if key not in env:
        raise errors.GoError(f"cannot read tmpl from the environment: key: {key} does not exist")
    text = env[key]
    if not isinstance(text, str):
        raise errors.GoError(f"cannot read tmpl from the environment: key: {key} value is not a string")
    return text


# --- reading a directory as Go's walkers do -----------------------------------------------


def _os_error(op: str, path: str, exc: OSError) -> errors.GoError:
    """An ``*fs.PathError``: ``open /x: no such file or directory`` (Go's lower-case errno text)."""
    text = exc.strerror or str(exc)
    return errors.GoError(f"{op} {path}: {text[:1].lower()}{text[1:]}")


def _join(directory: str, name: str) -> str:
    """``filepath.Join``/``path.Join`` of a directory and an entry name, cleaned."""
    return os.path.normpath(os.path.join(directory, name)) if directory else name


class _Reader:
    """Collects the files' text, each followed by a ``---`` line, within :data:`_MAX_TEMPLATE_BYTES`;
    only files ``files`` allows, when it is given."""

    def __init__(self, files: _files.FileAccess | None) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.files = files

    def check(self, path: str) -> None:
        """Refuse a directory ``files`` does not allow (``open <path>: <why>``)."""
        if self.files is not None:
            try:
                self.files.within(path)
            except _files.FileAccessError as exc:
                raise errors.GoError(f"open {path}: {exc}") from exc

    @staticmethod
    def _check_kind(st: os.stat_result, op_path: str) -> None:
        if stat.S_ISDIR(st.st_mode):
            raise errors.GoError(f"read {op_path}: is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise errors.GoError(f"read {op_path}: not a regular file")

    def _open(self, path: str) -> int:
        if self.files is None:
            return os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            return self.files.open(path)
        except _files.FileAccessError as exc:
            raise errors.GoError(f"open {path}: {exc}") from exc

    def read(self, path: str, op_path: str) -> None:
        # A file's kind is checked before it is opened (opening a device can do things); then on the open
        # descriptor, in case it changed between.
        self.check(path)
        try:
            self._check_kind(os.stat(path), op_path)
            with os.fdopen(self._open(path), "rb") as f:
                st = os.fstat(f.fileno())
                self._check_kind(st, op_path)
                self.size += st.st_size
                if self.size > _MAX_TEMPLATE_BYTES:
                    raise errors.GoError(f"read {op_path}: templates larger than {_MAX_TEMPLATE_BYTES} bytes")
                data = f.read(_MAX_TEMPLATE_BYTES + 1)
        except OSError as exc:
            raise _os_error("open", op_path, exc) from exc
        self.parts.append(values.from_bytes(data) + "\n---\n")


def read_templates(directory: str, walk: str, files: _files.FileAccess | None = None) -> str:
    """Every file under ``directory`` in name order, each followed by a ``---`` line (``readTemplates``).

    ``walk`` is :attr:`Release.walk`. Files and directories whose names start with a dot are
    skipped (``walkdir`` and ``fs`` do not enter hidden directories; ``walk`` does, and skips only
    the files). Symbolic links are not followed into directories, as Go's walkers do not. With
    ``files``, a directory or file it does not allow is ``open <path>: <why>``.
    """
    reader = _Reader(files)
    reader.check(directory)
    root_op = "open" if walk == "fs" else "lstat"
    try:
        st = os.stat(directory) if walk == "fs" else os.lstat(directory)
    except OSError as exc:
        raise _os_error(root_op, directory, exc) from exc
    _visit(directory, os.path.basename(os.path.normpath(directory)) or directory, st, walk, reader)
    return "".join(reader.parts)


def _visit(path: str, name: str, st: os.stat_result, walk: str, reader: _Reader) -> None:
    is_dir = stat.S_ISDIR(st.st_mode)
    hidden = name.startswith(".")
    if is_dir and hidden and walk != "walk":
        return  # SkipDir
    if not is_dir:
        if not hidden:
            reader.read(path, path)
        return
    reader.check(path)
    try:
        names = sorted(os.listdir(path), key=lambda n: n.encode("utf-8", "surrogateescape"))
    except OSError as exc:
        raise _os_error("open", path, exc) from exc
    for child in names:
        child_path = _join(path, child)
        try:
            child_st = os.lstat(child_path)
        except OSError as exc:
            raise _os_error("lstat", child_path, exc) from exc
        _visit(child_path, child, child_st, walk, reader)
