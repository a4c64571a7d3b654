"""The one YAML loader render, validate and test share reads values as Kubernetes' Go tools do."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import errors
from crossfn.gocompat import yaml_loader


@pytest.mark.parametrize(
    ("reason", "text", "want"),
    [
        pytest.param(
            "Kubernetes keeps timestamps as strings.",
            "2024-01-01T00:00:00Z",
            "2024-01-01T00:00:00Z",
            id="Timestamp",
        ),
        pytest.param("A date is a string too.", "2024-01-01", "2024-01-01", id="Date"),
        pytest.param(
            "go-yaml reads an exponent without a dot as a number.", "1e3", 1000.0, id="ExponentNoDot"
        ),
        pytest.param("Negative exponents as well.", "5e-324", 5e-324, id="TinyExponent"),
        pytest.param("PyYAML's own floats still work.", "1.5e3", 1500.0, id="ExponentWithDot"),
        pytest.param("Plain integers stay integers.", "42", 42, id="Integer"),
        pytest.param("A quoted number is a string.", '"1e3"', "1e3", id="QuotedNumber"),
        pytest.param("A word with an e is a string.", "e3", "e3", id="NotANumber"),
    ],
)
def test_loader_reads_values_as_go_does(reason: str, text: str, want: Any) -> None:
    got = yaml.load(f"v: {text}", Loader=yaml_loader.Loader)["v"]  # a SafeLoader
    assert (type(got), got) == (type(want), want), reason


def _laughs(levels: int, fanout: int) -> str:
    """A "billion laughs" document: each level is ``fanout`` aliases of the one before."""
    lines = [f"a0: &a0 [{', '.join(['lol'] * fanout)}]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * fanout)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("reason", "text", "want_error"),
    [
        pytest.param("go-yaml v3 decodes three levels of ten aliases (1,000 expansions).", _laughs(3, 10), None,
                     id="ModestAliasing"),
        pytest.param("go-yaml v3 refuses four levels of ten: aliases do over 99% of 10,000 decodes.", _laughs(4, 10),
                     "yaml: document contains excessive aliasing", id="ExcessiveAliasing"),
        pytest.param("A 450-byte billion laughs is refused at once, never expanded.", _laughs(9, 9),
                     "yaml: document contains excessive aliasing", id="BillionLaughs"),
        pytest.param("An anchor that holds an alias to itself would be a cyclic object.", "a: &x {b: *x}\n",
                     "yaml: anchor 'x' value contains itself", id="RecursiveAnchor"),
        pytest.param("10,000 nested flow sequences are what go-yaml and the API server accept.",
                     "[" * 10_000 + "]" * 10_000, None, id="FlowDepthAtLimit"),
        pytest.param("One more is go-yaml's error, not a crash of libyaml's recursive composer.",
                     "[" * 10_001 + "]" * 10_001, "yaml: exceeded max depth of 10000", id="FlowTooDeep"),
        pytest.param("A million brackets end in the same line, in well under a second.", "[" * 1_000_000,
                     "yaml: exceeded max depth of 10000", id="MillionBrackets"),
        pytest.param("Block nesting counts too.", "- " * 10_001 + "x\n", "yaml: exceeded max depth of 10000",
                     id="BlockTooDeep"),
        pytest.param("A syntax error is one line: where, then what.", "a: [\n",
                     "line 2 column 1: did not find expected node content", id="SyntaxError"),
    ],
)  # fmt: skip
def test_load_all_keeps_go_yaml_bounds(reason: str, text: str, want_error: str | None) -> None:
    if want_error is None:
        assert yaml_loader.load_all(text), reason
        return
    with pytest.raises(errors.InputError) as info:
        yaml_loader.load_all(text)
    assert str(info.value) == want_error, reason


@pytest.mark.parametrize(
    ("decodes", "want"),
    [
        pytest.param(1_000, 0.99, id="Small"),
        pytest.param(400_000, 0.99, id="RangeLow"),
        pytest.param(2_200_000, 0.545, id="Middle"),
        pytest.param(4_000_000, 0.10, id="RangeHigh"),
        pytest.param(40_000_000, 0.10, id="Huge"),
    ],
)
def test_allowed_alias_ratio_scales_as_go_yaml(decodes: int, want: float) -> None:
    assert yaml_loader.allowed_alias_ratio(decodes) == pytest.approx(want)


def _fifo(tmp_path: Path) -> str:
    path = tmp_path / "fifo.yaml"
    os.mkfifo(path)
    return str(path)


def _big(tmp_path: Path) -> str:
    path = tmp_path / "big.yaml"
    with open(path, "wb") as f:
        f.truncate(yaml_loader.MAX_FILE_BYTES + 1)
    return str(path)


def _latin1(tmp_path: Path) -> str:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"a: \xe9\n")
    return str(path)


@pytest.mark.parametrize(
    ("reason", "make", "want"),
    [
        pytest.param("A FIFO would block forever with no writer.", _fifo, "cannot read {path}: not a regular file",
                     id="FIFO"),
        pytest.param("/dev/zero never ends; it is refused before a byte is read.", lambda _: "/dev/zero",
                     "cannot read {path}: not a regular file", id="DevZero"),
        pytest.param("A directory is not a file.", str, "read {path}: is a directory", id="Directory"),
        pytest.param("A missing file says so, as Go's os.Open does.", lambda p: str(p / "nope.yaml"),
                     "open {path}: no such file or directory", id="Missing"),
        pytest.param("A runaway file fails at once rather than filling memory.", _big,
                     "cannot read {path}: larger than the 32 MiB an input may have", id="TooLarge"),
        pytest.param("Text must be UTF-8.", _latin1, "cannot read {path}: not UTF-8 text", id="NotUTF8"),
    ],
)  # fmt: skip
def test_read_file_refuses_what_is_not_a_sane_file(
    tmp_path: Path, reason: str, make: Callable[[Path], str], want: str
) -> None:
    path = make(tmp_path)
    with pytest.raises(errors.InputError) as info:
        yaml_loader.read_file(path)
    assert str(info.value) == want.format(path=path), reason


def test_read_stream_is_bounded_too() -> None:
    stream = io.BytesIO(b"a" * (yaml_loader.MAX_FILE_BYTES + 1))
    with pytest.raises(errors.InputError, match="larger than the 32 MiB"):
        yaml_loader.read_stream(stream)


@pytest.mark.parametrize(
    ("reason", "text", "want"),
    [
        pytest.param("Booleans as Go's strconv.FormatBool writes them.", "{true: 1, false: 2}",
                     {"true": 1, "false": 2}, id="Bool"),
        pytest.param("Integers as their digits, distinct from booleans (Python holds 1 == True).", "{1: a, true: b}",
                     {"1": "a", "true": "b"}, id="IntAndBool"),
        pytest.param("Floats as FormatFloat(f, 'g', -1, 32).", "{1.5: a, 1e20: b, 123456789.5: c, 0.1: d}",
                     {"1.5": "a", "1e+20": "b", "1.2345679e+08": "c", "0.1": "d"}, id="Float32"),
        pytest.param("Infinities and NaN in go-yaml's spelling.", "{.inf: a, -.inf: b, .nan: c}",
                     {".inf": "a", "-.inf": "b", ".nan": "c"}, id="Special"),
        pytest.param("go-yaml v2 booleans as keys: y and on are both true, the later wins.", "{y: a, N: b, on: c}",
                     {"true": "c", "false": "b"}, id="YesNoKeys"),
        pytest.param("Keys resolve like values: 08 is 8.0, 0o17 is 15, +.5 is 0.5.", "{08: a, 0o17: b, +.5: c}",
                     {"8": "a", "15": "b", "0.5": "c"}, id="NumberKeys"),
        pytest.param("A clock is a string key.", "{22:00: a}", {"22:00": "a"}, id="ClockKey"),
        pytest.param("Merge keys still merge.", "a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\n",
                     {"a": {"b": 1}, "c": {"b": 1, "d": 2}}, id="Merge"),
    ],
)  # fmt: skip
def test_keys_are_strings_as_sigs_yaml_makes_them(reason: str, text: str, want: dict[str, Any]) -> None:
    assert yaml_loader.load_all(text) == [want], reason


_FEATURES = [
    pytest.param("a: 1\nb: [x, 'y', \"z\"]\n", id="Basics"),
    pytest.param("ints: [0x1F, 017, 0b101, 1_000, 1:30, -12, +7]\n", id="Ints"),
    pytest.param("floats: [1.5, .inf, -.Inf, .nan, 1e3, 1_000.5, 6.8523015e+5, 1:30.5]\n", id="Floats"),
    pytest.param(
        "bools: [yes, No, on, OFF, true, False, y, n]\nnulls: [~, null, , Null]\n", id="BoolsAndNulls"
    ),
    pytest.param("quoted: ['1', \"true\", 'null', '']\n", id="Quoted"),
    pytest.param("a: &x {k: 1}\nb: *x\nc: &s scalar\nd: *s\n", id="Aliases"),
    pytest.param("base: &b {a: 1, b: 2}\nm:\n  <<: *b\n  b: 3\n", id="MergeOverride"),
    pytest.param("x: &x {a: 1}\ny: &y {a: 2, b: 2}\nm:\n  <<: [*x, *y]\n  c: 3\n", id="MergeList"),
    pytest.param("m:\n  <<: {a: 1}\n  <<: {a: 2, b: 1}\n", id="MergeTwice"),
    pytest.param("{true: 1, 1: 2, 1.5: 3, y: 4, 08: 5}\n", id="Keys"),
    pytest.param("{null: 4}\n", id="NullKey"),
    pytest.param("a: !custom x\nb: !!set {k}\nc: !!float 3\nd: !!int 1.5\n", id="OtherTags"),
    pytest.param("a: <<\nb: [<<]\n", id="MergeKeyText"),
    pytest.param("? a\n? b\n: c\n", id="ComplexKeySyntax"),
    pytest.param("---\na: 1\n---\n---\n- b\n...\n", id="Streams"),
    pytest.param("", id="Empty"),
    pytest.param("t: 2024-01-01T00:00:00Z\n", id="Timestamp"),
    pytest.param("s: !!str 1\nb: !!binary aGVsbG8=\ni: !!int '3'\n", id="ExplicitTags"),
    pytest.param("a: &x [1, {b: *y}]\n", id="UndefinedAlias"),
    pytest.param("a: [1, 2\n", id="SyntaxError"),
    pytest.param("a: =\n", id="ValueTag"),
    pytest.param("? [a]\n: 1\n", id="UnhashableKey"),
    pytest.param("m:\n  <<: 5\n", id="BadMerge"),
]


def _outcome(load: Callable[[str], Any], text: str) -> Any:
    try:
        return load(text)
    except errors.InputError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("text", _FEATURES)
def test_event_loader_builds_what_pyyaml_constructs(text: str) -> None:
    """The fast event-driven path and PyYAML's node path agree on every YAML feature manifests use."""
    assert repr(_outcome(yaml_loader.load_all, text)) == repr(_outcome(yaml_loader._load_nodes, text))


@pytest.mark.parametrize(
    ("reason", "text", "want"),
    [
        pytest.param("Whole floats are ints, as after JSON.", "a: 1.0\nb: 1.5\nc: 1e3\n", {"a": 1, "b": 1.5, "c": 1000},
                     id="WholeFloats"),
        pytest.param("Binary is the decoded text go-yaml makes of it.", "b: !!binary aGVsbG8=\n", {"b": "hello"},
                     id="Binary"),
        pytest.param("Invalid UTF-8 becomes one U+FFFD per byte, as encoding/json writes it.", "b: !!binary 4oI=\n",
                     {"b": "\ufffd\ufffd"}, id="BinaryNotUTF8"),
        pytest.param("An integer past int64 is a float64 after JSON.", "a: 12345678901234567890\n",
                     {"a": 1.2345678901234567e19}, id="Uint64"),
        pytest.param("Huge whole floats stay floats.", "a: 1e300\n", {"a": 1e300}, id="Huge"),
    ],
)  # fmt: skip
def test_as_json_reads_as_kubernetes_does(reason: str, text: str, want: dict[str, Any]) -> None:
    got = yaml_loader.load_all(text, as_json=True)[0]
    assert (got, [type(v) for v in got.values()]) == (want, [type(v) for v in want.values()]), reason


@pytest.mark.parametrize(
    ("reason", "text", "want"),
    [
        pytest.param("sigs.k8s.io/yaml refuses a null key.", "{null: a}",
                     "error converting YAML to JSON: unsupported map key of type <nil>", id="NullKey"),
        pytest.param("And a key past int64, which go-yaml reads as a uint64.", "{12345678901234567890: a}",
                     "error converting YAML to JSON: unsupported map key of type uint64", id="Uint64Key"),
        pytest.param("An explicit tag must agree with the value, as go-yaml checks it.", "a: !!int 1.5",
                     "line 1 column 4: yaml: cannot decode !!float `1.5` as a !!int", id="TagMismatch"),
    ],
)  # fmt: skip
def test_what_go_refuses_is_refused(reason: str, text: str, want: str) -> None:
    with pytest.raises(errors.InputError) as info:
        yaml_loader.load_all(text)
    assert str(info.value) == want, reason


def test_as_json_aliases_are_copies() -> None:
    doc = yaml_loader.load_all("a: &x {k: [1]}\nb: *x\n", as_json=True)[0]
    doc["b"]["k"].append(2)
    assert doc["a"] == {"k": [1]}, "changing one alias's copy leaves the anchor alone"
