"""Masterminds/semver v3, behind Sprig's ``semver`` and ``semverCompare``.

``semver`` returns a ``*semver.Version`` whose methods templates call (``(semver "1.2.3").Major``,
``$v.Compare $w``); ``semverCompare`` checks a version against a constraint (``^1.2``, ``>= 1.0,
< 2``, ``1.2 - 1.4``, ``~1.x || 3.*``). Which versions parse, and how prereleases meet
constraints, changed between the library versions function-go-templating shipped with
(:mod:`crossfn.gocompat.sprig._profile`):

* 3.2.0 and 3.3.0 read versions loosely (``1.02.3`` is 1.2.3); 3.3.1 rejects leading zeros;
  3.4.0 reads loosely again and its error texts are lower-case;
* up to 3.3.1 a prerelease version meets only a constraint that itself has a prerelease; from
  3.4.0 one prerelease anywhere in an ``AND`` group opens the whole group to them (and ``!=``
  follows the same rule);
* 3.3.0 added ``LessThanEqual`` and ``GreaterThanEqual``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import gofunc, regexp, strconv, values

__all__ = ["Constraints", "Version", "new_constraint", "new_version"]

_LOOSE = (
    r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)
_STRICT = (
    r"v?(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?"
)
_CV = (
    r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"
_NUM = "0123456789"
_ALLOWED = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + _NUM


@functools.cache
def _re(pattern: str) -> regexp.Regexp:
    return regexp.compile(pattern)


def _errors(library: str) -> dict[str, str]:
    """The library's error texts: 3.4.0 lower-cased them."""
    if library >= "v3.4.0":
        return {
            "invalid": "invalid semantic version",
            "zero": "version segment starts with 0",
            "prerelease": "invalid prerelease string",
            "metadata": "invalid metadata string",
            "segment": "error parsing version segment: ",
            "parser": "constraint parser error",
        }
    return {
        "invalid": "Invalid Semantic Version",
        "zero": "Version segment starts with 0",
        "prerelease": "Invalid Prerelease string",
        "metadata": "Invalid Metadata string",
        "segment": "Error parsing version segment: ",
        "parser": "constraint Parser Error",
    }


@dataclasses.dataclass(frozen=True, eq=False)
class Version(values.GoNamed):
    """A ``semver.Version`` (``pointer``: a ``*semver.Version``, what ``semver`` returns)."""

    major: int
    minor: int
    patch: int
    pre: str = ""
    metadata: str = ""
    original: str = ""
    pointer: bool = True
    library: str = "v3.3.0"

    @property
    def go_type(self) -> str:  # type: ignore[override] # a pointer and a value differ in name and kind
        """``*semver.Version``, or ``semver.Version`` for what ``IncPatch`` and its kind return."""
        return "*semver.Version" if self.pointer else "semver.Version"

    @property
    def go_kind(self) -> str:  # type: ignore[override] # as go_type
        """``ptr`` or ``struct``."""
        return "ptr" if self.pointer else "struct"

    @staticmethod
    def zero(*, pointer: bool) -> Version:
        """A zero ``Version``: what copying one through unexported fields gives."""
        return Version(0, 0, 0, pointer=pointer)

    def __eq__(self, other: object) -> bool:
        """``reflect.DeepEqual``: every field, through the pointer."""
        if not isinstance(other, Version):
            return NotImplemented
        mine = (self.major, self.minor, self.patch, self.pre, self.metadata, self.original, self.pointer)
        theirs = (
            other.major,
            other.minor,
            other.patch,
            other.pre,
            other.metadata,
            other.original,
            other.pointer,
        )
        return mine == theirs

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))

    def string(self) -> str:
        """``Version.String()``: without the ``v`` prefix the original may have had."""
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + self.pre
        if self.metadata:
            text += "+" + self.metadata
        return text

    def go_string(self) -> str:
        """``String()`` is what ``%v`` prints."""
        return self.string()

    def go_json(self) -> Any:
        """``MarshalJSON``: the version as a JSON string."""
        return self.string()

    def compare(self, o: Version) -> int:
        """``Compare``: -1, 0 or 1; metadata is ignored, a prerelease sorts before its release."""
        for a, b in ((self.major, o.major), (self.minor, o.minor), (self.patch, o.patch)):
            if a != b:
                return -1 if a < b else 1
        if not self.pre and not o.pre:
            return 0
        if not self.pre:
            return 1
        if not o.pre:
            return -1
        return _compare_prerelease(self.pre, o.pre)

    def _next(self, **changes: Any) -> Version:
        bumped = dataclasses.replace(self, pointer=False, **changes)
        prefix = "v" if self.original[:1] == "v" else ""
        return dataclasses.replace(bumped, original=prefix + bumped.string())

    def go_methods(self) -> Mapping[str, gofunc.Func]:
        """The value methods, and on a pointer the pointer methods too."""
        f, version = gofunc.Func, "*semver.Version"
        u = values.GoUint64
        methods = {
            "String": f(self.string, (), "string"),
            "Major": f(lambda: u(self.major), (), "uint64"),
            "Minor": f(lambda: u(self.minor), (), "uint64"),
            "Patch": f(lambda: u(self.patch), (), "uint64"),
            "Prerelease": f(lambda: self.pre, (), "string"),
            "Metadata": f(lambda: self.metadata, (), "string"),
            "IncPatch": f(self._inc_patch, (), "semver.Version"),
            "IncMinor": f(
                lambda: self._next(metadata="", pre="", patch=0, minor=self.minor + 1), (), "semver.Version"
            ),
            "IncMajor": f(
                lambda: self._next(metadata="", pre="", patch=0, minor=0, major=self.major + 1),
                (),
                "semver.Version",
            ),
            "SetPrerelease": f(self._set_prerelease, ("string",), "semver.Version", returns_error=True),
            "SetMetadata": f(self._set_metadata, ("string",), "semver.Version", returns_error=True),
        }
        if not self.pointer:
            return methods
        methods |= {
            "Original": f(lambda: self.original, (), "string"),
            "Compare": f(lambda o: values.GoInt(self.compare(_deref(o))), (version,), "int"),
            "LessThan": f(lambda o: self.compare(_deref(o)) < 0, (version,), "bool"),
            "GreaterThan": f(lambda o: self.compare(_deref(o)) > 0, (version,), "bool"),
            "Equal": f(self._equal, (version,), "bool"),
        }
        if self.library >= "v3.3.0":
            methods["LessThanEqual"] = f(lambda o: self.compare(_deref(o)) <= 0, (version,), "bool")
            methods["GreaterThanEqual"] = f(lambda o: self.compare(_deref(o)) >= 0, (version,), "bool")
        return methods

    def _equal(self, o: Version | None) -> bool:
        """``Equal``: 3.3.0 made a nil argument unequal; before, it panicked as Compare does."""
        if o is None and self.library >= "v3.3.0":
            return False
        return self.compare(_deref(o)) == 0

    def _inc_patch(self) -> Version:
        if self.pre:
            return self._next(metadata="", pre="")
        return self._next(metadata="", pre="", patch=self.patch + 1)

    def _set_prerelease(self, pre: str) -> Version:
        if pre:
            _validate_prerelease(pre, self.library)
        return self._next(pre=pre)

    def _set_metadata(self, metadata: str) -> Version:
        if metadata:
            _validate_metadata(metadata, self.library)
        return self._next(metadata=metadata)


def _deref(o: Version | None) -> Version:
    if o is None:
        raise gofunc.Panic("runtime error: invalid memory address or nil pointer dereference")
    return o


def _compare_prerelease(v: str, o: str) -> int:
    vparts, oparts = v.split("."), o.split(".")
    for i in range(max(len(vparts), len(oparts))):
        s = vparts[i] if i < len(vparts) else ""
        t = oparts[i] if i < len(oparts) else ""
        d = _compare_pre_part(s, t)
        if d:
            return d
    return 0


def _uint(s: str) -> int | None:
    try:
        return strconv.parse_uint(s, 10)
    except errors.GoError:
        return None


def _compare_pre_part(s: str, o: str) -> int:
    if s == o:
        return 0
    if not s:
        return -1
    if not o:
        return 1
    oi, si = _uint(o), _uint(s)
    if oi is None and si is None:
        return 1 if values.to_bytes(s) > values.to_bytes(o) else -1
    if oi is None:
        return -1
    if si is None:
        return 1
    return 1 if si > oi else -1


def _contains_only(s: str, allowed: str) -> bool:
    return all(c in allowed for c in s)


def _validate_prerelease(pre: str, library: str) -> None:
    texts = _errors(library)
    for part in pre.split("."):
        if part == "" and library >= "v3.3.1":
            # 3.3.1 reports an empty identifier with the metadata error; 3.4.0 with its own.
            raise errors.GoError(texts["prerelease"] if library >= "v3.4.0" else texts["metadata"])
        if _contains_only(part, _NUM):
            if len(part) > 1 and part[0] == "0":
                raise errors.GoError(texts["zero"])
        elif not _contains_only(part, _ALLOWED):
            raise errors.GoError(texts["prerelease"])


def _validate_metadata(metadata: str, library: str) -> None:
    for part in metadata.split("."):
        if (part == "" and library >= "v3.3.1") or not _contains_only(part, _ALLOWED):
            raise errors.GoError(_errors(library)["metadata"])


def _segment(text: str, texts: dict[str, str]) -> int:
    try:
        return strconv.parse_uint(text, 10)
    except errors.GoError as exc:
        raise errors.GoError(texts["segment"] + str(exc)) from None


def new_version(v: str, library: str) -> Version:
    """``semver.NewVersion`` as ``library`` (a Masterminds/semver tag) parses; GoError with its text."""
    texts = _errors(library)
    if library == "v3.3.1":
        m = _re("^" + _STRICT + "$").find_string_submatch(v)
        if m is None:
            raise errors.GoError(texts["invalid"])
        major, minor, patch, pre, metadata = m[1], m[2], m[3], m[4], m[5]
    else:
        m = _re("^" + _LOOSE + "$").find_string_submatch(v)
        if m is None:
            raise errors.GoError(texts["invalid"])
        major, minor, patch, pre, metadata = m[1], m[2][1:], m[3][1:], m[5], m[8]
    version = Version(
        _segment(major, texts),
        _segment(minor, texts) if minor else 0,
        _segment(patch, texts) if patch else 0,
        pre,
        metadata,
        v,
        library=library,
    )
    if pre:
        _validate_prerelease(pre, library)
    if metadata:
        _validate_metadata(metadata, library)
    return version


@dataclasses.dataclass(frozen=True)
class _Constraint:
    con: Version
    orig: str
    op: str
    minor_dirty: bool
    patch_dirty: bool
    dirty: bool


@dataclasses.dataclass(frozen=True)
class Constraints:
    """A parsed constraint: OR groups of AND-ed constraints, and the library that reads them."""

    groups: list[list[_Constraint]]
    library: str

    def check(self, v: Version) -> bool:
        """``Constraints.Check``: whether any group's constraints all hold for ``v``."""
        for group in self.groups:
            include_pre = any(c.con.pre for c in group)
            if all(_check(c, v, include_pre, self.library) for c in group):
                return True
        return False


def _is_x(s: str) -> bool:
    return s in ("x", "*", "X")


def _parse_constraint(c: str, library: str) -> _Constraint:
    texts = _errors(library)
    if not c:
        return _Constraint(Version(0, 0, 0, original="0.0.0", library=library), c, "", False, False, True)
    m = _re(r"^\s*(" + _OPS + r")\s*(" + _CV + r")\s*$").find_string_submatch(c)
    if m is None:
        raise errors.GoError(f"improper constraint: {c}")
    minor_dirty = patch_dirty = dirty = False
    ver = m[2]
    if _is_x(m[3]) or m[3] == "":
        ver, dirty = "0.0.0" + m[6], True
    elif _is_x(m[4][1:] if m[4].startswith(".") else m[4]) or m[4] == "":
        minor_dirty = dirty = True
        ver = f"{m[3]}.0.0{m[6]}"
    elif _is_x(m[5][1:] if m[5].startswith(".") else m[5]) or m[5] == "":
        dirty = patch_dirty = True
        ver = f"{m[3]}{m[4]}.0{m[6]}"
    try:
        con = new_version(ver, library)
    except errors.GoError:
        raise errors.GoError(texts["parser"]) from None
    return _Constraint(con, m[2], m[1], minor_dirty, patch_dirty, dirty)


def _rewrite_range(text: str, library: str) -> str:
    found = _re(r"\s*(" + _CV + r")\s+-\s+(" + _CV + r")\s*").find_all_string_submatch(text, -1)
    if not found:
        return text
    tail = " " if library >= "v3.3.0" else ""
    for m in found:
        text = text.replace(m[0], f">= {m[1]}, <= {m[11]}{tail}", 1)
    return text


def new_constraint(c: str, library: str) -> Constraints:
    """``semver.NewConstraint`` as ``library`` parses; GoError with its text."""
    text = _rewrite_range(c, library)
    valid = _re(
        r"^(\s*(" + _OPS + r")\s*(" + _CV + r")\s*)((?:\s+|,\s*)(" + _OPS + r")\s*(" + _CV + r")\s*)*$"
    )
    groups = []
    for part in text.split("||"):
        if not valid.match_string(part):
            raise errors.GoError(f"improper constraint: {part}")
        pieces = _re("(" + _OPS + r")\s*(" + _CV + ")").find_all_string(part, -1) or [part]
        groups.append([_parse_constraint(p, library) for p in pieces])
    return Constraints(groups, library)


def _check(c: _Constraint, v: Version, include_pre: bool, library: str) -> bool:
    if library >= "v3.4.0":
        if v.pre and not include_pre:
            return False
    elif v.pre and not c.con.pre and (c.op != "!=" or c.dirty):
        return False
    op = c.op
    if op == "!=":
        return _not_equal(c, v)
    if op == ">":
        return _greater(c, v)
    if op == "<":
        return v.compare(c.con) < 0
    if op in (">=", "=>"):
        return v.compare(c.con) >= 0
    if op in ("<=", "=<"):
        if not c.dirty:
            return v.compare(c.con) <= 0
        if v.major > c.con.major:
            return False
        return not (v.major == c.con.major and v.minor > c.con.minor and not c.minor_dirty)
    if op in ("~", "~>"):
        return _tilde(c, v)
    if op == "^":
        return _caret(c, v)
    if c.dirty:  # "" and "=": an x in the version means ~
        return _tilde(c, v)
    return v.compare(c.con) == 0


def _not_equal(c: _Constraint, v: Version) -> bool:
    if c.dirty:
        if c.con.major != v.major:
            return True
        if c.con.minor != v.minor and not c.minor_dirty:
            return True
        if c.minor_dirty:
            return False
        if c.con.patch != v.patch and not c.patch_dirty:
            return True
        if c.patch_dirty:
            if v.pre or c.con.pre:
                return _compare_prerelease(v.pre, c.con.pre) != 0
            return False
    return v.compare(c.con) != 0


def _greater(c: _Constraint, v: Version) -> bool:
    if not c.dirty:
        return v.compare(c.con) == 1
    if v.major != c.con.major:
        return v.major > c.con.major
    if c.minor_dirty:
        return False
    if c.patch_dirty:
        return v.minor > c.con.minor
    return v.compare(c.con) == 1


def _tilde(c: _Constraint, v: Version) -> bool:
    if v.compare(c.con) < 0:
        return False
    con = c.con
    if con.major == 0 and con.minor == 0 and con.patch == 0 and not c.minor_dirty and not c.patch_dirty:
        return True
    if v.major != con.major:
        return False
    return not (v.minor != con.minor and not c.minor_dirty)


def _caret(c: _Constraint, v: Version) -> bool:
    con = c.con
    if v.compare(con) < 0:
        return False
    if con.major > 0 or c.minor_dirty:
        return v.major == con.major
    if v.major > 0:
        return False
    if con.minor > 0 or c.patch_dirty:
        return v.minor == con.minor
    if v.minor > 0:
        return False
    return con.patch == v.patch
