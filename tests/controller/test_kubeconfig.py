"""Reading kubeconfigs: every problem is one InputError line naming the file and the field; good
files (and the in-cluster service account) give the server, TLS and authentication."""

from __future__ import annotations

import base64
import copy
import json
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lightkube.config import client_adapter

from crossfn import errors
from crossfn.controller import envtest
from crossfn.controller.kube import _kubeconfig


def _pki() -> tuple[str, str, str]:
    """A CA, and a certificate and key it signed (envtest's, generated in microseconds)."""
    with tempfile.TemporaryDirectory() as directory:
        pki = envtest._Pki(Path(directory))
        return pki.ca_pem.decode(), pki.cert_file.read_text(), pki.key_file.read_text()


CA_PEM, CERT_PEM, KEY_PEM = _pki()

GOOD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Config",
    "clusters": [{"name": "c", "cluster": {"server": "https://k8s.test:6443"}}],
    "users": [{"name": "u", "user": {"token": "t"}}],
    "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
    "current-context": "x",
}


def b64(data: str | bytes) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def edit(change: Callable[[dict[str, Any]], object]) -> str:
    """The good kubeconfig with one change, as the file's text."""
    config = copy.deepcopy(GOOD)
    change(config)
    return json.dumps(config)


def cluster(**fields: Any) -> Callable[[dict[str, Any]], object]:
    return lambda c: c["clusters"][0]["cluster"].update(fields)


def user(**fields: Any) -> Callable[[dict[str, Any]], object]:
    return lambda c: c["users"][0].__setitem__("user", fields)


def test_kubeconfig_is_read_as_client_go_reads_it(tmp_path: Path) -> None:
    """client-go reads a kubeconfig through sigs.k8s.io/yaml: go-yaml v2's ``y`` is a boolean, not a string."""
    path = tmp_path / "config"
    path.write_text("apiVersion: v1\nkind: Config\npreferences: {colors: y}\n")
    assert _kubeconfig._read(path)["preferences"] == {"colors": True}


@pytest.mark.parametrize(
    ("text", "want", "reason"),
    [
        pytest.param(None, "no such file", "the file is not there", id="Missing"),
        pytest.param(
            "not: [a kubeconfig",
            "not valid YAML: line 2 column 1: did not find expected ',' or ']'",
            "the one YAML loader's report: position, then problem, on one line",
            id="NotYaml",
        ),
        pytest.param(
            "hello",
            "not a kubeconfig: the document is a string, not a mapping",
            "a scalar document, not an AttributeError",
            id="NotAMapping",
        ),
        pytest.param("", "the file is empty", "an empty file says so", id="Empty"),
        pytest.param(
            edit(lambda c: c.pop("current-context")),
            "current-context: not set, and no context was given",
            "nothing names the context",
            id="NoCurrentContext",
        ),
        pytest.param(
            edit(lambda c: c.__setitem__("current-context", "y")),
            'contexts: no context named "y"',
            "current-context names a context that is not there",
            id="MissingContext",
        ),
        pytest.param(
            edit(lambda c: c.__setitem__("contexts", "x")),
            "contexts: not a list but a string",
            "a section of the wrong shape",
            id="ContextsNotAList",
        ),
        pytest.param(
            edit(lambda c: c["contexts"].insert(0, "x")),
            "contexts[0]: not a mapping with a name",
            "an entry without a name",
            id="EntryWithoutName",
        ),
        pytest.param(
            edit(lambda c: c["contexts"][0]["context"].pop("cluster")),
            "contexts[x].context.cluster: not set",
            "a context without its cluster",
            id="ContextWithoutCluster",
        ),
        pytest.param(
            edit(lambda c: c["contexts"][0]["context"].__setitem__("cluster", "d")),
            'clusters: no cluster named "d"',
            "the context's cluster is not there",
            id="MissingCluster",
        ),
        pytest.param(
            edit(lambda c: c["clusters"][0]["cluster"].pop("server")),
            "clusters[c].cluster.server: not set",
            "no server (lightkube would quietly use localhost:8080)",
            id="NoServer",
        ),
        pytest.param(
            edit(cluster(server=6443)),
            "clusters[c].cluster.server: expected `str`, got `int`",
            "a field of the wrong type names the field",
            id="WrongType",
        ),
        pytest.param(
            edit(lambda c: c["contexts"][0]["context"].__setitem__("user", "v")),
            'users: no user named "v"',
            "the context's user is not there",
            id="MissingUser",
        ),
        pytest.param(
            edit(cluster(**{"certificate-authority-data": "!!not base64!!"})),
            "clusters[c].cluster.certificate-authority-data: not base64: Only base64 data is allowed",
            "CA data that is not base64",
            id="CADataNotBase64",
        ),
        pytest.param(
            edit(cluster(**{"certificate-authority-data": b64("hello")})),
            "clusters[c].cluster.certificate-authority-data: not a PEM certificate: ",
            "CA data that is not a certificate",
            id="CADataNotACertificate",
        ),
        pytest.param(
            edit(cluster(**{"certificate-authority": "ca.crt"})),
            "clusters[c].cluster.certificate-authority: cannot load {dir}/ca.crt: No such file or directory",
            "a CA file, relative to the kubeconfig's directory, that is not there",
            id="MissingCAFile",
        ),
        pytest.param(
            edit(user(tokenFile="token")),
            "users[u].user.tokenFile: cannot read {dir}/token: No such file or directory",
            "a token file is checked at start-up, not at the first request",
            id="UnreadableTokenFile",
        ),
        pytest.param(
            edit(user(**{"client-certificate-data": b64("cert")})),
            "users[u].user.client-key: not set (client-certificate needs it)",
            "a client certificate without its key",
            id="ClientCertificateWithoutKey",
        ),
        pytest.param(
            edit(user(**{"client-certificate-data": b64("cert"), "client-key-data": b64("key")})),
            "users[u].user: cannot load the client certificate and key: ",
            "client certificate data that is not a certificate",
            id="BadClientCertificate",
        ),
        pytest.param(
            edit(user(**{"auth-provider": {"name": "gcp"}})),
            "users[u].user.auth-provider: not supported, use an exec credential plugin",
            "the removed auth-provider mechanism",
            id="AuthProvider",
        ),
        pytest.param(
            edit(user(exec={"apiVersion": "client.authentication.k8s.io/v9", "command": "get-token"})),
            'users[u].user.exec.apiVersion: "client.authentication.k8s.io/v9" is not supported, only '
            "client.authentication.k8s.io/v1beta1, client.authentication.k8s.io/v1alpha1",
            "an exec plugin version the runner does not speak",
            id="ExecVersion",
        ),
        pytest.param(
            edit(user(exec={"apiVersion": "client.authentication.k8s.io/v1beta1"})),
            "users[u].user.exec.command: not set",
            "a missing required field of a nested struct names its path",
            id="ExecWithoutCommand",
        ),
        pytest.param(
            edit(user(username="admin")),
            "users[u].user.password: not set (username needs it)",
            "half of basic auth",
            id="UsernameWithoutPassword",
        ),
    ],
)
def test_kubeconfig_problems_are_one_line(tmp_path: Path, text: str | None, want: str, reason: str) -> None:
    """``want``: what follows ``cannot load kubeconfig <file>: `` (a prefix where the rest is OpenSSL's)."""
    path = tmp_path / "kubeconfig"
    if text is not None:
        path.write_text(text)
    with pytest.raises(errors.InputError) as caught:
        _kubeconfig.load(str(path))
    message = str(caught.value)
    assert "\n" not in message, f"one line: {message!r}"
    prefix = f"cannot load kubeconfig {path}: "
    assert message.startswith(prefix), message
    expected = want.format(dir=tmp_path)
    got = message.removeprefix(prefix)
    assert got == expected if not expected.endswith(": ") else got.startswith(expected), (reason, got)


@pytest.mark.parametrize(
    ("change", "want_auth", "reason"),
    [
        pytest.param(lambda c: None, client_adapter.BearerAuth, "a token", id="Token"),
        pytest.param(
            user(tokenFile="token"),
            client_adapter.BearerTokenFileAuth,
            "a token file next to the kubeconfig, re-read on rotation",
            id="TokenFile",
        ),
        pytest.param(
            user(exec={"apiVersion": "client.authentication.k8s.io/v1beta1", "command": "get-token"}),
            client_adapter.ExecAuth,
            "an exec credential plugin (run at the first request)",
            id="Exec",
        ),
        pytest.param(
            lambda c: c["contexts"][0]["context"].pop("user"),
            type(None),
            "no user: an unauthenticated endpoint such as kubectl proxy",
            id="NoUser",
        ),
        pytest.param(
            cluster(**{"certificate-authority-data": b64(CA_PEM)}),
            client_adapter.BearerAuth,
            "inline CA data is a valid PEM certificate",
            id="CAData",
        ),
        pytest.param(
            user(**{"client-certificate-data": b64(CERT_PEM), "client-key-data": b64(KEY_PEM)}),
            type(None),
            "a client certificate authenticates in TLS, not in a header",
            id="ClientCertificate",
        ),
    ],
)
def test_good_kubeconfigs(
    tmp_path: Path, change: Callable[[dict[str, Any]], object], want_auth: type, reason: str
) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text(edit(change))
    (tmp_path / "token").write_text("t\n")
    connection = _kubeconfig.load(str(path))
    assert connection.server == "https://k8s.test:6443", reason
    assert type(connection.auth) is want_auth, reason
    assert connection.source == str(path)


@pytest.mark.parametrize(
    ("mounted", "want", "reason"),
    [
        pytest.param(
            ({"token": "t", "ca.crt": CA_PEM}, "443"), None, "a service account's token and CA", id="Good"
        ),
        pytest.param(
            ({"ca.crt": CA_PEM}, "443"),
            "cannot load {dir}/token: No such file or directory",
            "no token mounted",
            id="NoToken",
        ),
        pytest.param(
            ({"token": "t", "ca.crt": "not a certificate"}, "443"),
            "cannot load {dir}/ca.crt: ",
            "a CA that is not a certificate",
            id="BadCA",
        ),
        pytest.param(
            ({"token": "t", "ca.crt": CA_PEM}, ""),
            "KUBERNETES_SERVICE_PORT is not set",
            "no port",
            id="NoPort",
        ),
    ],
)
def test_in_cluster(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mounted: tuple[dict[str, str], str],
    want: str | None,
    reason: str,
) -> None:
    """No path and no $KUBECONFIG inside a pod: the service account's files and the service's port."""
    files, port = mounted
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", port)
    monkeypatch.setattr(_kubeconfig, "SERVICE_ACCOUNT", tmp_path)
    if want is None:
        connection = _kubeconfig.load()
        assert connection.server == "https://10.0.0.1:443", reason
        assert type(connection.auth) is client_adapter.BearerTokenFileAuth, reason
        return
    prefix = f"cannot load the in-cluster configuration from {tmp_path}: {want.format(dir=tmp_path)}"
    with pytest.raises(errors.InputError, match=f"^{re.escape(prefix)}") as caught:
        _kubeconfig.load()
    assert "\n" not in str(caught.value), reason
