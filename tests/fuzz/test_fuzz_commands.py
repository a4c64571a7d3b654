"""A standing fuzz suite: every command fed malformed, deep, huge and mistyped inputs keeps the CLI's contract.

The contract (issue 15): a failure is exactly one ``crossfn: error:`` line on
stderr, exit status 1 (2 for a usage error, and for ``crossfn test``'s bad
input), nothing on stdout, never a traceback; and every run ends in bounded time
and memory. Commands run in-process through ``crossfn.cli.main`` for speed.

Budget: the ``fuzz-ci`` profile (chosen when ``CI=true``) runs few examples, so
the suite adds well under a minute to CI; ``fuzz-dev`` runs more. Select one by
hand with ``CROSSFN_FUZZ_PROFILE=fuzz-dev``.
"""

from __future__ import annotations

import contextlib
import copy
import io
import os
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crossfn import cli

# What cli.main() sets on its first call; hypothesis wants the limit unchanged while a test runs.
sys.setrecursionlimit(max(sys.getrecursionlimit(), cli.RECURSION_LIMIT))

settings.register_profile(
    "fuzz-ci", max_examples=12, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)  # fmt: skip
settings.register_profile(
    "fuzz-dev", max_examples=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)  # fmt: skip
_PROFILE = settings.get_profile(
    os.environ.get("CROSSFN_FUZZ_PROFILE") or ("fuzz-ci" if os.environ.get("CI") == "true" else "fuzz-dev")
)

_ROOT = Path(__file__).parents[2]
_X = _ROOT / "examples" / "xbucket"
_XR = yaml.safe_load((_X / "xr.yaml").read_text())
_COMPOSITION = yaml.safe_load((_X / "composition.yaml").read_text())
_FUNCTIONS = list(yaml.safe_load_all((_X / "functions.yaml").read_text()))
_TEST = yaml.safe_load((_X / "test.yaml").read_text())
_LEGACY = (_ROOT / "tests" / "functions" / "pt" / "legacy-composition.yaml").read_text()

_SECONDS = 20.0
"""CPU seconds one command may take: inputs are bounded, so even the deepest ends in a few. CPU time,
not wall time, so a loaded machine does not fail the bound."""
_MEMORY_MIB = 1500
"""Peak resident memory the whole test process may reach (a billion laughs alone would take gigabytes)."""


# --- inputs --------------------------------------------------------------------------------------

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20),
    st.sampled_from(["", "1e-999999999", "9" * 400, "\x00", "\u2028", "${x}", "*x", "&a", "- ", ": "]),
)  # fmt: skip
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=8), st.integers()), inner, max_size=4),
    ),
    max_leaves=20,
)


def _nested(depth: int, flow: bool) -> str:
    """Objects (flow style) or lists (compact block style) nested ``depth`` deep, in linear size."""
    if flow:
        return "{a: " * depth + "1" + "}" * depth
    return "a:\n" + "- " * depth + "1\n"


def _laughs(levels: int) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _mutated(doc: Any, path: list[Any], value: Any) -> Any:
    """``doc`` with the field at ``path`` (as far as it exists) replaced by ``value``."""
    out = copy.deepcopy(doc)
    target = out
    for step in path[:-1]:
        nxt = target[step] if isinstance(target, dict) and step in target else None
        if nxt is None and isinstance(target, list) and isinstance(step, int) and step < len(target):
            nxt = target[step]
        if not isinstance(nxt, dict | list):
            break
        target = nxt
    if isinstance(target, dict):
        target[path[-1] if path else "spec"] = value
    elif target:
        target[0] = value
    return out


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> Iterator[list[Any]]:
    yield list(prefix)
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*prefix, i))


def _mistyped(doc: Any) -> st.SearchStrategy[str]:
    """``doc`` with one of its fields given a value of another type, as YAML."""
    paths = [p for p in _paths(doc) if p]
    return st.builds(
        lambda path, value: yaml.safe_dump(_mutated(doc, path, value)), st.sampled_from(paths), _values
    )


def _hostile_text() -> st.SearchStrategy[str | bytes]:
    """Documents that are not what they should be: garbage, deep, aliased, huge, not UTF-8."""
    return st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200),
        st.builds(yaml.safe_dump, _values),
        st.builds(_nested, st.sampled_from([50, 500, 3_000, 10_001, 50_000]), st.booleans()),
        st.builds(_laughs, st.integers(min_value=2, max_value=9)),
        st.sampled_from([
            "a: &x {b: *x}\n", "a: *nope\n", "- !!binary '***'\n", "? [a]\n: 1\n", "a: !!python/object:os.system x\n",
            "---\n" * 1000, "a: 'x" * 3, "\ufeff\x00\x01", "[" * 100_000, "- " * 20_000 + "x",
            "a: " + "x" * 3_000_000 + "\n",
        ]),
    )  # fmt: skip


def _xr_text() -> st.SearchStrategy[str | bytes]:
    return st.one_of(_hostile_text(), _mistyped(_XR))


def _composition_text() -> st.SearchStrategy[str | bytes]:
    return st.one_of(_hostile_text(), _mistyped(_COMPOSITION))


def _functions_text() -> st.SearchStrategy[str | bytes]:
    return st.one_of(_hostile_text(), _mistyped(_FUNCTIONS))


# --- the contract ----------------------------------------------------------------------------------


@contextlib.contextmanager
def _files(**texts: str | bytes) -> Iterator[dict[str, str]]:
    with tempfile.TemporaryDirectory(prefix="crossfn-fuzz-") as tmp:
        paths = {}
        for name, text in texts.items():
            path = Path(tmp) / f"{name}.yaml"
            if isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_text(text, encoding="utf-8", errors="surrogatepass")
            paths[name] = str(path)
        paths["dir"] = tmp
        yield paths


def _run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """Run the CLI in-process; any exception escaping it is a failure of the contract."""
    out, err = io.StringIO(), io.StringIO()
    start = time.process_time()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as exc:  # argparse's usage errors
                code = exc.code if isinstance(exc.code, int) else 2
    finally:
        sys.stdin = old_stdin
    seconds = time.process_time() - start
    assert seconds < _SECONDS, f"{argv[0]} took {seconds:.1f} CPU seconds"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert peak < _MEMORY_MIB, f"{argv[0]} grew the process to {peak:.0f} MiB"
    return code, out.getvalue(), err.getvalue()


def _check(code: int, out: str, err: str, *, report_on_failure: bool = False, bad_input: int = 1) -> None:
    """The contract: success, or one error line and the right status, no traceback, stdout empty.

    ``report_on_failure``: exit 1 with a report on stdout is a finding, not an error (``validate``'s
    invalid resources, ``test``'s failed tests), with at most one error line after it.
    """
    assert "Traceback" not in err, err[-2000:]
    if code == 0:
        return
    if code == 2 and err.startswith("usage:"):
        return  # argparse's usage error: its usage line, then one error line
    # Split at newlines only: any other break or control a message carries from a user's text is escaped.
    lines = err.rstrip("\n").split("\n") if err else []
    assert not lines or lines[0].startswith("crossfn: "), err[-2000:]
    errors = [line for line in lines if line.startswith("crossfn: error:")]
    if report_on_failure and code == 1 and out:
        assert len(errors) <= 1, err[-2000:]
        return
    assert code == bad_input, f"exit status {code}: {err[-2000:]}"
    assert len(errors) == 1, err[-2000:]
    assert out == "", "a failure writes nothing on stdout"


# --- the commands --------------------------------------------------------------------------------


@settings(_PROFILE)
@given(xr=_xr_text(), which=st.sampled_from(["xr", "composition", "functions"]), comp=_composition_text(),
       fns=_functions_text())  # fmt: skip
def test_render(xr: str | bytes, which: str, comp: str | bytes, fns: str | bytes) -> None:
    texts: dict[str, str | bytes] = {
        "xr": (_X / "xr.yaml").read_text(),
        "composition": (_X / "composition.yaml").read_text(),
        "functions": (_X / "functions.yaml").read_text(),
    }
    texts[which] = {"xr": xr, "composition": comp, "functions": fns}[which]
    with _files(**texts) as f:
        code, out, err = _run(["render", f["xr"], f["composition"], f["functions"], "--no-exec"])
    _check(code, out, err)


_XR_RECONCILED = {
    **_XR,
    "metadata": {
        "name": "example-render", "namespace": "ns", "uid": "u", "generation": 3,
        "labels": {"a": "b"}, "annotations": {"crossplane.io/paused": "false"},
    },
    "spec": {**_XR["spec"], "crossplane": {"resourceRefs": [{"apiVersion": "v1", "kind": "K", "name": "n"}]}},
    "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "R", "observedGeneration": 3,
                               "lastTransitionTime": "2024-01-01T00:00:00Z"}]},
}  # fmt: skip
"""The fields the default (engine) mode reads and writes: metadata, resource refs, status conditions."""

_OBSERVED = {
    "apiVersion": "s3.aws.upbound.io/v1beta1", "kind": "Bucket",
    "metadata": {
        "name": "b", "namespace": "ns", "generation": 1,
        "annotations": {"crossplane.io/composition-resource-name": "storage-bucket"},
        "ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u", "controller": True}],
    },
}  # fmt: skip


@settings(_PROFILE)
@given(xr=_mistyped(_XR_RECONCILED), observed=_mistyped(_OBSERVED), flags=st.sampled_from(
    [[], ["-x", "-r", "-c", "--output", "json"], ["--classic", "-x"]]))  # fmt: skip
def test_render_engine_mode_fields(xr: str, observed: str, flags: list[str]) -> None:
    """Mistyped metadata, refs, conditions and owner references, as the reconcile reads them."""
    with _files(xr=xr, observed=observed) as f:
        argv = [f["xr"], str(_X / "composition.yaml"), str(_X / "functions.yaml"), "-o", f["observed"]]
        code, out, err = _run(["render", *argv, "--no-exec", *flags])
    _check(code, out, err)


@settings(_PROFILE)
@given(value=_hostile_text())
def test_render_context_values(value: str | bytes) -> None:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    argv = [str(_X / "xr.yaml"), str(_X / "composition.yaml"), str(_X / "functions.yaml")]
    code, out, err = _run(["render", *argv, "--context-values", f"k={text.replace(chr(0), '')}"])
    _check(code, out, err)


@settings(_PROFILE)
@given(
    extensions=st.one_of(_hostile_text(), _mistyped(_COMPOSITION)), resources=_xr_text(), stdin=st.booleans()
)
def test_validate(extensions: str | bytes, resources: str | bytes, stdin: bool) -> None:
    with _files(extensions=extensions, resources=resources) as f:
        if stdin:
            text = resources.decode("utf-8", "replace") if isinstance(resources, bytes) else resources
            code, out, err = _run(["validate", f["extensions"], "-"], stdin=text)
        else:
            code, out, err = _run(["validate", f["extensions"], f["resources"]])
    _check(code, out, err, report_on_failure=True)


@settings(_PROFILE)
@given(test=st.one_of(_hostile_text(), _mistyped(_TEST)))
def test_test(test: str | bytes) -> None:
    with _files(test=test) as f:
        # Relative paths in the mutated example resolve against the example's directory.
        path = Path(f["test"])
        if not isinstance(test, bytes):
            path = Path(f["dir"]) / "t.yaml"
            text = test.replace("path: ", f"path: {_X}/")
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
        code, out, err = _run(["test", str(path), "--no-exec", "--junit", f"{f['dir']}/junit.xml"])
    _check(code, out, err, report_on_failure=True, bad_input=2)


@settings(_PROFILE)
@given(composition=st.one_of(_hostile_text(), st.builds(lambda v: _LEGACY + v, st.text(max_size=50))))
def test_convert(composition: str | bytes) -> None:
    with _files(composition=composition) as f:
        code, out, err = _run(["convert", "pipeline-composition", f["composition"]])
    _check(code, out, err)


@settings(_PROFILE)
@given(argv=st.lists(st.one_of(st.text(max_size=12), st.sampled_from(["-o", "--timeout", "-x", "--", "-"])),
                     max_size=5),
       command=st.sampled_from(["render", "validate", "test", "convert", "init", "function", "nope"]))  # fmt: skip
def test_any_flags(argv: list[str], command: str) -> None:
    """Random arguments: a usage error (2) or the command's own one-line error, never a traceback."""
    if command == "init":
        argv = ["function", *argv, "--directory", tempfile.mkdtemp(prefix="crossfn-fuzz-init-")]
    if command == "function":
        argv = ["serve", "--help"] if not argv else ["serve", *argv, "--help"]  # never start a server
    code, out, err = _run([command, *[a.replace("\x00", "") for a in argv]])
    _check(
        code,
        out,
        err,
        report_on_failure=command in ("validate", "test"),
        bad_input=2 if command == "test" else 1,
    )


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        pytest.param(
            "render", ["{f}", str(_X / "composition.yaml"), str(_X / "functions.yaml")], id="render"
        ),
        pytest.param("validate", [str(_X / "composition.yaml"), "{f}"], id="validate"),
        pytest.param("test", ["{f}"], id="test"),
        pytest.param("convert", ["pipeline-composition", "{f}"], id="convert"),
    ],
)
@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_special_files(tmp_path: Path, command: str, argv: list[str], special: str) -> None:
    """A FIFO or a device is refused at once with one line, never read (a FIFO would block forever)."""
    path = special
    if special == "fifo":
        path = str(tmp_path / "fifo.yaml")
        os.mkfifo(path)
    code, out, err = _run([command, *[a.format(f=path) for a in argv]])
    assert "not a regular file" in err, err
    _check(code, out, err, bad_input=2 if command == "test" else 1)
    assert code != 0


def test_deep_json_through_every_reader(tmp_path: Path) -> None:
    """JSON is YAML: a deep JSON document is refused with go-yaml's line like any other."""
    path = tmp_path / "deep.json.yaml"
    path.write_text("[" * 20_000 + "]" * 20_000)
    code, out, err = _run(["validate", str(_X / "composition.yaml"), str(path)])
    _check(code, out, err)
    assert "exceeded max depth of 10000" in err
