"""``crossfn trace`` against a real API server: every output format, the argument's spellings, errors.

The traced objects are :mod:`.fixtures`' (written as Crossplane leaves them,
no controller). Values the API server makes up (uids, resourceVersions,
timestamps) are replaced by placeholders before comparing with the golden files.

Regenerate the golden files with ``CROSSFN_UPDATE_GOLDEN=1 pytest tests/trace_cmd``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crossfn import cli
from crossfn.controller import envtest as envtest_module

from . import fixtures

pytestmark = pytest.mark.cluster

_GOLDEN = Path(__file__).parent / "golden"
_UPDATE = os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1"
_NS = ["-n", fixtures.NAMESPACE]


@pytest.fixture(scope="module")
def cluster(envtest: envtest_module.Environment) -> Iterator[str]:
    """The kubeconfig of an API server holding the fixtures, also as ``$KUBECONFIG``."""
    asyncio.run(fixtures.install(envtest.kubeconfig))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KUBECONFIG", envtest.kubeconfig)
        yield envtest.kubeconfig


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


_MADE_UP = re.compile(
    r'(?P<key>"?(?:uid|resourceVersion|creationTimestamp|deletionTimestamp|time)"?: )"?(?P<value>[^",\n]+)"?'
)


def _stable(text: str) -> str:
    """``text`` with the values the API server makes up replaced by a placeholder."""
    return _MADE_UP.sub(lambda m: f'{m["key"]}"<{m["key"].strip(": ").strip(chr(34))}>"', text)


def _golden(name: str, text: str, reason: str) -> None:
    path = _GOLDEN / name
    if _UPDATE:
        path.write_text(text)
    want = path.read_text()
    assert text == want, f"{reason}; regenerate with CROSSFN_UPDATE_GOLDEN=1 pytest tests/trace_cmd"


@pytest.mark.parametrize(
    ("argv", "golden", "reason"),
    [
        pytest.param(["network", "prod", *_NS, "-s"], "claim-default.txt",
                     "a claim, its legacy XR, nested XRs, a deleted and a missing object, Secrets", id="ClaimDefault"),
        pytest.param(["network", "prod", *_NS, "-s", "-o", "wide"], "claim-wide.txt",
                     "wide: the composition resource names, messages uncut", id="ClaimWide"),
        pytest.param(["network", "prod", *_NS, "-s", "-o", "json"], "claim.json",
                     "json: whole objects, the missing one's Status error", id="ClaimJSON"),
        pytest.param(["network", "prod", *_NS, "-s", "-o", "yaml"], "claim.yaml",
                     "yaml: the same, keys sorted", id="ClaimYAML"),
        pytest.param(["network", "prod", *_NS, "-s", "-o", "dot"], "claim.dot",
                     "dot: a graph numbered breadth first", id="ClaimDot"),
        pytest.param(["network", "prod", *_NS], "claim-no-secrets.txt",
                     "Secrets only with --show-connection-secrets", id="ClaimNoSecrets"),
        pytest.param(["xapp", "web", *_NS], "xr-default.txt",
                     "a Crossplane v2 XR: spec.crossplane.resourceRefs, sorted, in the XR's namespace", id="XRDefault"),
        pytest.param(["xapp", "web", *_NS, "-o", "wide"], "xr-wide.txt", "wide", id="XRWide"),
        pytest.param(["xapp", "web", *_NS, "-o", "json"], "xr.json", "json", id="XRJSON"),
        pytest.param(["xapp", "web", *_NS, "-o", "yaml"], "xr.yaml", "yaml", id="XRYAML"),
        pytest.param(["xapp", "web", *_NS, "-o", "dot"], "xr.dot", "dot", id="XRDot"),
        pytest.param(["xapp", *_NS], "list-default.txt", "no NAME: every XApp of the namespace", id="List"),
        pytest.param(["xapp", *_NS, "-o", "json"], "list.json", "a listing in json: items", id="ListJSON"),
        pytest.param(["xapp", *_NS, "-o", "dot"], "list.dot", "a listing in dot: one graph", id="ListDot"),
    ],
)  # fmt: skip
def test_outputs(
    cluster: str, capsys: pytest.CaptureFixture[str], argv: list[str], golden: str, reason: str
) -> None:
    code, out, err = _run(["trace", *argv], capsys)
    assert (code, err) == (0, ""), reason
    _golden(golden, _stable(out), reason)


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        pytest.param(["trace", "xapp", "web"], "the singular", id="Singular"),
        pytest.param(["trace", "xapps", "web"], "the plural", id="Plural"),
        pytest.param(["trace", "XApp", "web"], "the kind", id="Kind"),
        pytest.param(["trace", "xapps.trace.crossfn.io/web"], "resource.group/name", id="GroupSlashName"),
        pytest.param(["trace", "xapps.v1.trace.crossfn.io", "web"], "resource.version.group", id="Version"),
        pytest.param(["trace", "XApp.v1.trace.crossfn.io", "web"], "Kind.version.group", id="KindVersion"),
        pytest.param(["beta", "trace", "xapp", "web"], "crossplane beta trace (v1.14-v2.2)", id="BetaTrace"),
        pytest.param(["resource", "trace", "xapp", "web"], "crossplane resource trace (crossplane/cli)",
                     id="ResourceTrace"),
    ],
)  # fmt: skip
def test_spellings(cluster: str, capsys: pytest.CaptureFixture[str], argv: list[str], reason: str) -> None:
    code, out, err = _run([*argv, *_NS], capsys)
    assert (code, err) == (0, ""), reason
    assert out == (_GOLDEN / "xr-default.txt").read_text(), reason


@pytest.mark.parametrize(
    ("argv", "first_row", "reason"),
    [
        pytest.param(["sn", "web-a"], "Subnet/web-a", "a short name", id="ShortName"),
        pytest.param(["sn.trace", "web-a"], "Subnet/web-a", "a short name with a prefix of its group", id="ShortGroupPrefix"),
        pytest.param(["gateway", "prod-gw"], "Gateway/prod-gw", "cluster scoped: -n is ignored", id="ClusterScoped"),
    ],
)  # fmt: skip
def test_short_names_and_scopes(
    cluster: str, capsys: pytest.CaptureFixture[str], argv: list[str], first_row: str, reason: str
) -> None:
    code, out, err = _run(["trace", *argv, *_NS], capsys)
    assert (code, err) == (0, ""), reason
    assert out.splitlines()[1].startswith(first_row + " "), reason


def test_namespace_defaults_to_the_contexts(
    cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without -n, a namespaced kind is looked up in the kubeconfig context's namespace, as kubectl does."""
    config = json.loads(Path(cluster).read_text())
    config["contexts"][0]["context"]["namespace"] = fixtures.NAMESPACE
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(json.dumps(config))
    code, out, err = _run(["trace", "--kubeconfig", str(kubeconfig), "xapp", "api"], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines()[1].startswith(f"XApp/api ({fixtures.NAMESPACE})")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.mark.parametrize(
    ("argv", "want", "reason"),
    [
        pytest.param(["nosuchkind", "x"],
                     'crossfn: error: cannot get mapping for resource: the server doesn\'t have a resource type "nosuchkind"',
                     "an unknown kind, in client-go's words", id="UnknownKind"),
        pytest.param(["nosuch.trace.crossfn.io", "x"],
                     'crossfn: error: cannot get mapping for resource: the server doesn\'t have a resource type "nosuch"',
                     "the resource part of a resource.group", id="UnknownKindWithGroup"),
        pytest.param(["xapp", "nope", *_NS],
                     "crossfn: error: cannot get requested resource: kind=XApp name=nope namespace=trace-demo "
                     "(verify context, namespace, and that the resource exists): "
                     'xapps.trace.crossfn.io "nope" not found',
                     "a missing object names kind, name and namespace", id="Missing"),
        pytest.param(["gateway", "nope", *_NS],
                     "crossfn: error: cannot get requested resource: kind=Gateway name=nope namespace= "
                     "(verify context, namespace, and that the resource exists): "
                     'gateways.trace.crossfn.io "nope" not found',
                     "a cluster-scoped kind has no namespace", id="MissingClusterScoped"),
        pytest.param(["xapp/web", "web", *_NS],
                     "crossfn: error: invalid resource and name: name provided twice, must be provided separately "
                     "'TYPE[.VERSION][.GROUP] [NAME]' or in the 'TYPE[.VERSION][.GROUP][/NAME]' format",
                     "kind/name and a NAME", id="NameTwice"),
        pytest.param(["a/b/c", *_NS],
                     "crossfn: error: invalid resource and name: invalid resource, must be provided in the "
                     "'TYPE[.VERSION][.GROUP][/NAME]' format",
                     "two slashes", id="TwoSlashes"),
        pytest.param(["xapp", "web", *_NS, "--as", "nobody"],
                     "crossfn: error: cannot get requested resource: kind=XApp name=web namespace=trace-demo "
                     "(verify context, namespace, and that the resource exists): "
                     'xapps.trace.crossfn.io "web" is forbidden: User "nobody" cannot get resource "xapps" '
                     'in API group "trace.crossfn.io" in the namespace "trace-demo"',
                     "--as impersonates: a user without rights may discover kinds but not read them",
                     id="Impersonated"),
    ],
)  # fmt: skip
def test_errors_are_one_line(
    cluster: str, capsys: pytest.CaptureFixture[str], argv: list[str], want: str, reason: str
) -> None:
    code, out, err = _run(["trace", *argv], capsys)
    assert (code, out) == (1, ""), reason
    assert err.count("\n") == 1 and err.startswith(want), f"{reason}: {err}"


def test_no_cluster_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing listens at the kubeconfig's server: one line naming it, no traceback."""
    server = f"https://127.0.0.1:{_closed_port()}"
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": server, "insecure-skip-tls-verify": True}}],
        "contexts": [{"name": "c", "context": {"cluster": "c"}}],
    }))  # fmt: skip
    code, out, err = _run(["trace", "--kubeconfig", str(kubeconfig), "xapp", "web"], capsys)
    assert (code, out) == (1, "")
    assert err.startswith(
        f"crossfn: error: cannot get mapping for resource: cannot reach the API server at {server}: "
    )
    assert err.count("\n") == 1


def test_packages_are_refused(
    cluster: str, crossplane_crds: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A Function is a package: crossfn has no package lock to trace its dependencies in, and says so."""
    code, out, err = _run(["trace", "function", "function-patch-and-transform"], capsys)
    assert (code, out) == (1, "")
    assert err == (
        "crossfn: error: cannot trace Function: crossfn traces claims, composite and managed resources, "
        "not packages\n"
    )


async def _set(kubeconfig: str, obj: dict[str, object] | None, *, delete: str = "") -> None:
    from crossfn.controller.kube import _kube

    api = _kube.KubeApi.from_kubeconfig(kubeconfig)
    try:
        if delete:
            await api.delete(fixtures.API, "XApp", delete, fixtures.NAMESPACE)
        elif obj is not None:
            await api.apply(dict(obj), field_manager="trace-test")
            await api.apply(obj, field_manager="trace-test", status=True)
    finally:
        await api.close()


def test_watch_prints_changes_until_deletion(
    cluster: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--watch prints the tree, again when a condition changes, and ends when the object is deleted."""
    from crossfn.cli import trace as trace_cli

    monkeypatch.setattr(trace_cli, "WATCH_INTERVAL", 0.1)
    watched = fixtures.OBJECTS[-1] | {"metadata": {"name": "watched", "namespace": fixtures.NAMESPACE}}
    asyncio.run(_set(cluster, watched))
    result: list[int] = []
    thread = threading.Thread(
        target=lambda: result.append(cli.main(["trace", "xapp", "watched", *_NS, "-w"]))
    )
    thread.start()
    seen = ""
    try:
        seen = _wait_for_output(capsys, seen, "Available")
        failing = watched | {
            "status": {"conditions": [fixtures.condition("Synced", "False", "ReconcileError", "boom")]}
        }
        asyncio.run(_set(cluster, failing))
        seen = _wait_for_output(capsys, seen, "ReconcileError: boom")
    finally:
        asyncio.run(_set(cluster, None, delete="watched"))
        thread.join(timeout=30)
    assert not thread.is_alive() and result == [0], "the watch ends with the object"
    assert seen.count("NAME ") == 2, f"printed once per change: {seen}"


def _wait_for_output(capsys: pytest.CaptureFixture[str], seen: str, want: str) -> str:
    deadline = time.monotonic() + 30
    while want not in seen:
        assert time.monotonic() < deadline, f"never printed {want!r}: {seen}"
        time.sleep(0.05)
        seen += capsys.readouterr().out
    return seen
