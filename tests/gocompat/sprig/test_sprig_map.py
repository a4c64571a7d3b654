"""The function map as a whole: every Sprig function at each version, declared with Sprig's Go
signature; versions and sources as the public interface gives them."""

from __future__ import annotations

import pytest
from sprigcases import func_map

from crossfn.gocompat import gofunc, sprig

_GENERIC_MAP_V323 = [
    "abbrev",
    "abbrevboth",
    "add",
    "add1",
    "add1f",
    "addf",
    "adler32sum",
    "ago",
    "all",
    "any",
    "append",
    "atoi",
    "b32dec",
    "b32enc",
    "b64dec",
    "b64enc",
    "base",
    "bcrypt",
    "biggest",
    "buildCustomCert",
    "camelcase",
    "cat",
    "ceil",
    "chunk",
    "clean",
    "coalesce",
    "compact",
    "concat",
    "contains",
    "date",
    "dateInZone",
    "dateModify",
    "date_in_zone",
    "date_modify",
    "decryptAES",
    "deepCopy",
    "deepEqual",
    "default",
    "derivePassword",
    "dict",
    "dig",
    "dir",
    "div",
    "divf",
    "duration",
    "durationRound",
    "empty",
    "encryptAES",
    "env",
    "expandenv",
    "ext",
    "fail",
    "first",
    "float64",
    "floor",
    "fromJson",
    "genCA",
    "genCAWithKey",
    "genPrivateKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "get",
    "getHostByName",
    "has",
    "hasKey",
    "hasPrefix",
    "hasSuffix",
    "hello",
    "htmlDate",
    "htmlDateInZone",
    "htpasswd",
    "indent",
    "initial",
    "initials",
    "int",
    "int64",
    "isAbs",
    "join",
    "kebabcase",
    "keys",
    "kindIs",
    "kindOf",
    "last",
    "list",
    "lower",
    "max",
    "maxf",
    "merge",
    "mergeOverwrite",
    "min",
    "minf",
    "mod",
    "mul",
    "mulf",
    "mustAppend",
    "mustChunk",
    "mustCompact",
    "mustDateModify",
    "mustDeepCopy",
    "mustFirst",
    "mustFromJson",
    "mustHas",
    "mustInitial",
    "mustLast",
    "mustMerge",
    "mustMergeOverwrite",
    "mustPrepend",
    "mustPush",
    "mustRegexFind",
    "mustRegexFindAll",
    "mustRegexMatch",
    "mustRegexReplaceAll",
    "mustRegexReplaceAllLiteral",
    "mustRegexSplit",
    "mustRest",
    "mustReverse",
    "mustSlice",
    "mustToDate",
    "mustToJson",
    "mustToPrettyJson",
    "mustToRawJson",
    "mustUniq",
    "mustWithout",
    "must_date_modify",
    "nindent",
    "nospace",
    "now",
    "omit",
    "osBase",
    "osClean",
    "osDir",
    "osExt",
    "osIsAbs",
    "pick",
    "pluck",
    "plural",
    "prepend",
    "push",
    "quote",
    "randAlpha",
    "randAlphaNum",
    "randAscii",
    "randBytes",
    "randInt",
    "randNumeric",
    "regexFind",
    "regexFindAll",
    "regexMatch",
    "regexQuoteMeta",
    "regexReplaceAll",
    "regexReplaceAllLiteral",
    "regexSplit",
    "repeat",
    "replace",
    "rest",
    "reverse",
    "round",
    "semver",
    "semverCompare",
    "seq",
    "set",
    "sha1sum",
    "sha256sum",
    "shuffle",
    "slice",
    "snakecase",
    "sortAlpha",
    "split",
    "splitList",
    "splitn",
    "squote",
    "sub",
    "subf",
    "substr",
    "swapcase",
    "ternary",
    "title",
    "toDate",
    "toDecimal",
    "toJson",
    "toPrettyJson",
    "toRawJson",
    "toString",
    "toStrings",
    "trim",
    "trimAll",
    "trimPrefix",
    "trimSuffix",
    "trimall",
    "trunc",
    "tuple",
    "typeIs",
    "typeIsLike",
    "typeOf",
    "uniq",
    "unixEpoch",
    "unset",
    "until",
    "untilStep",
    "untitle",
    "upper",
    "urlJoin",
    "urlParse",
    "uuidv4",
    "values",
    "without",
    "wrap",
    "wrapWith",
]
"""The keys of Sprig v3.2.3's genericMap (functions.go), in Go's spelling."""


def test_every_function_at_each_version() -> None:
    """210 functions at v3.2.3; v3.3.0 adds sha512sum."""
    assert len(_GENERIC_MAP_V323) == 210
    assert set(sprig.txt_func_map("v3.2.3")) == set(_GENERIC_MAP_V323)
    assert set(sprig.txt_func_map("v3.3.0")) == {*_GENERIC_MAP_V323, "sha512sum"}


def test_unknown_version() -> None:
    with pytest.raises(ValueError, match=r"unknown Sprig version 'v3\.1\.0': known are v3\.2\.3, v3\.3\.0"):
        sprig.txt_func_map("v3.1.0")


SIGNATURES = [
    pytest.param("upper", ("string",), "string", False, False, id="Upper"),
    pytest.param("default", ("interface {}", "interface {}"), "interface {}", True, False, id="Default"),
    pytest.param("splitList", ("string", "string"), "[]string", False, False, id="SplitList"),
    pytest.param("until", ("int",), "[]int", False, False, id="Until"),
    pytest.param("split", ("string", "string"), "map[string]string", False, False, id="Split"),
    pytest.param("dict", ("interface {}",), "map[string]interface {}", True, False, id="Dict"),
    pytest.param(
        "merge",
        ("map[string]interface {}", "map[string]interface {}"),
        "interface {}",
        True,
        False,
        id="Merge",
    ),
    pytest.param(
        "mustMerge",
        ("map[string]interface {}", "map[string]interface {}"),
        "interface {}",
        True,
        True,
        id="MustMerge",
    ),
    pytest.param("round", ("interface {}", "int", "float64"), "float64", True, False, id="Round"),
    pytest.param("now", (), "time.Time", False, False, id="Now"),
    pytest.param("dateModify", ("string", "time.Time"), "time.Time", False, False, id="DateModify"),
    pytest.param("semver", ("string",), "*semver.Version", False, True, id="Semver"),
    pytest.param(
        "derivePassword",
        ("uint32", "string", "string", "string", "string"),
        "string",
        False,
        False,
        id="DerivePassword",
    ),
    pytest.param(
        "genSignedCert",
        ("string", "[]interface {}", "[]interface {}", "int", "sprig.certificate"),
        "sprig.certificate",
        False,
        True,
        id="GenSignedCert",
    ),
    pytest.param("fail", ("string",), "string", False, True, id="Fail"),
    pytest.param("seq", ("int",), "string", True, False, id="Seq"),
    pytest.param("pluck", ("string", "map[string]interface {}"), "[]interface {}", True, False, id="Pluck"),
    pytest.param("without", ("interface {}", "interface {}"), "[]interface {}", True, False, id="Without"),
    pytest.param("chunk", ("int", "interface {}"), "[][]interface {}", False, False, id="Chunk"),
]


@pytest.mark.parametrize(("name", "params", "returns", "variadic", "returns_error"), SIGNATURES)
def test_signatures(
    name: str, params: tuple[str, ...], returns: str, variadic: bool, returns_error: bool
) -> None:
    """Each Func declares Sprig's Go signature, which the template engine checks arguments against."""
    func = sprig.txt_func_map()[name]
    assert (func.params, func.returns, func.variadic, func.returns_error) == (
        params,
        returns,
        variadic,
        returns_error,
    )


def test_every_signature_is_well_formed() -> None:
    """Parameter types are Go type names; a variadic function has a parameter to repeat."""
    known = {
        "string", "int", "int64", "uint32", "float64", "bool", "interface {}", "[]interface {}",
        "map[string]interface {}", "time.Time", "sprig.certificate",
    }  # fmt: skip
    for name, func in sprig.txt_func_map().items():
        assert isinstance(func, gofunc.Func), name
        assert set(func.params) <= known, name
        assert func.params or not func.variadic, name
        assert func.returns, name


def test_maps_are_independent() -> None:
    """Each call gives a new dict: function-go-templating deletes env and expandenv from its copy."""
    first = sprig.txt_func_map()
    del first["env"]
    assert "env" in sprig.txt_func_map()


def test_recursion_becomes_a_go_stack_overflow() -> None:
    """Every function reports Python's recursion limit as Go's fatal stack overflow, never a traceback."""
    nested: list[object] = []
    for _ in range(100_000):
        nested = [nested]
    with pytest.raises(gofunc.Panic) as raised:
        func_map()["deepCopy"](nested)
    assert str(raised.value) == "runtime: goroutine stack exceeds 1000000000-byte limit"


def test_public_surface() -> None:
    """crossfn.gocompat.sprig exports exactly its interface, each part documented."""
    assert set(sprig.__all__) == {
        "SEMVER_VERSIONS",
        "VERSIONS",
        "Certificate",
        "Sources",
        "Version",
        "txt_func_map",
    }
    for name in sprig.__all__:
        assert getattr(sprig, name) is not None
    for name in ("Certificate", "Sources", "Version", "txt_func_map"):
        assert getattr(sprig, name).__doc__, name
    assert sprig.VERSIONS == ("v3.2.3", "v3.3.0")
    assert sprig.SEMVER_VERSIONS == ("v3.2.0", "v3.3.0", "v3.3.1", "v3.4.0")
