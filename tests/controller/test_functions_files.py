"""A Composition cannot make the controller read its own files through a built-in (docs/security.md).

Built-ins run in the controller's process; the transport loads them with the
controller's file access: no files without ``--function-filesystem-root``, and
only beneath it with one (``tests/functions/test_file_access.py`` has each
built-in's cases).
"""

from __future__ import annotations

import pathlib

import pytest
from google.protobuf import json_format

from crossfn import errors
from crossfn.controller.packages import _functions
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

from .test_functions import FakeCache, function

GO_TEMPLATING = "xpkg.crossplane.io/crossplane-contrib/function-go-templating:v0.12.2"
KCL = "xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.12.2"
TEMPLATE = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n"
    "    gotemplating.fn.crossplane.io/composition-resource-name: cm\n"
)


def _request(inp: dict[str, object]) -> fnv1.RunFunctionRequest:
    observed = {"composite": {"resource": {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "x"}}}}
    return json_format.ParseDict({"observed": observed, "input": inp}, fnv1.RunFunctionRequest())


def _file_system(dir_path: str) -> dict[str, object]:
    return {"apiVersion": "gotemplating.fn.crossplane.io/v1beta1", "kind": "GoTemplate", "source": "FileSystem",
            "fileSystem": {"dirPath": dir_path}}  # fmt: skip


def _fatal(rsp: fnv1.RunFunctionResponse) -> str:
    return "".join(r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL)


@pytest.fixture
def templates(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "cm.yaml").write_text(TEMPLATE)
    (tmp_path / "kubeconfig").write_text("apiVersion: v1\nkind: Config\n")
    return tmp_path


ROUTES = [
    pytest.param(None, "{tmp}/templates",
                 "open {tmp}/templates: this controller lets built-in functions read no files (allow a directory "
                 "with --function-filesystem-root)", "by default a Composition can make built-ins read nothing",
                 id="NoRoot"),
    pytest.param("{tmp}/templates", "{tmp}/templates", "", "the templates the operator mounted", id="Root"),
    pytest.param("{tmp}/templates", "{tmp}",
                 "open {tmp}: not in {tmp}/templates, the directory this controller lets built-in functions read "
                 "(--function-filesystem-root)", "a directory above the root holds the kubeconfig", id="Above"),
]  # fmt: skip


@pytest.mark.parametrize(("root", "dir_path", "want", "reason"), ROUTES)
async def test_go_templating_reads_only_the_allowed_directory(
    templates: pathlib.Path, root: str | None, dir_path: str, want: str, reason: str
) -> None:
    fill = str(templates)
    transport = _functions.FunctionTransport(
        FakeCache(function("gt", GO_TEMPLATING)), FakeCache(),
        filesystem_root=root.replace("{tmp}", fill) if root else None,
    )  # fmt: skip
    try:
        rsp = await transport.run_function("gt", _request(_file_system(dir_path.replace("{tmp}", fill))))
    finally:
        await transport.aclose()
    if not want:
        assert (_fatal(rsp), list(rsp.desired.resources)) == ("", ["cm"]), reason
        return
    shown = dir_path.replace("{tmp}", fill)
    assert _fatal(rsp) == (
        f"invalid function input: cannot read tmpl from the folder {{{shown}}}: {want.replace('{tmp}', fill)}"
    ), reason


async def _run_kcl(root: pathlib.Path, source: str) -> fnv1.RunFunctionResponse:
    """The built-in KCL function run by the controller's transport on ``source``, files read beneath ``root``."""
    transport = _functions.FunctionTransport(
        FakeCache(function("kcl", KCL)), FakeCache(), filesystem_root=str(root)
    )
    inp: dict[str, object] = {
        "apiVersion": "krm.kcl.dev/v1alpha1",
        "kind": "KCLInput",
        "spec": {"source": source},
    }
    try:
        return await transport.run_function("kcl", _request(inp))
    finally:
        await transport.aclose()


async def test_kcl_programs_cannot_read_the_service_account_token(templates: pathlib.Path) -> None:
    """A KCL program's file.read of a file outside the root is refused by the kernel in the controller's sandbox."""
    source = f'import file\nitems = [{{apiVersion: "v1", kind: "C", metadata.name: file.read("{templates}/kubeconfig")}}]'
    rsp = await _run_kcl(templates / "templates", source)
    assert "Permission denied (os error 13)" in _fatal(rsp)
    assert [resource.struct_to_dict(r.resource) for r in rsp.desired.resources.values()] == []


def test_the_root_must_be_a_directory(templates: pathlib.Path) -> None:
    with pytest.raises(errors.InputError) as exc:
        _functions.FunctionTransport(FakeCache(), FakeCache(), filesystem_root=str(templates / "kubeconfig"))
    assert str(exc.value) == f'--function-filesystem-root "{templates}/kubeconfig": not a directory'


MAIN_K = (
    'items = [{apiVersion: "v1", kind: "ConfigMap", '
    'metadata: {name: "cm", annotations: {"krm.kcl.dev/composition-resource-name": "cm"}}}]\n'
)

# (source, where `kcl mod pull` leaves its copy in the package cache, reason)
CACHED_SOURCES = [
    pytest.param("oci://ghcr.io/kcl-lang/net:0.0.1", "oci/ghcr.io/kcl-lang/net/0.0.1", "an OCI module", id="OCI"),
    pytest.param("github.com/kcl-lang/modules//net?ref=v0.1.0", "git/github.com/kcl-lang/modules/v0.1.0/net",
                 "a git module", id="Git"),
]  # fmt: skip


@pytest.mark.parametrize(("source", "where", "reason"), CACHED_SOURCES)
@pytest.mark.parametrize("inside", [True, False], ids=["CacheInsideRoot", "CacheOutsideRoot"])
async def test_kcl_cached_sources_are_read_only_beneath_the_root(  # noqa: PLR0917 -- pytest passes them by position
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    where: str,
    reason: str,
    inside: bool,
) -> None:
    """An OCI or git source runs from the KCL package cache; a cache outside the root is refused as any file is."""
    root = tmp_path / "root"
    root.mkdir()
    cache = root / "kcl" if inside else tmp_path / "kcl"
    module = cache / where
    module.mkdir(parents=True)
    (module / "kcl.mod").write_text('[package]\nname = "net"\nversion = "0.0.1"\n')
    (module / "main.k").write_text(MAIN_K)
    monkeypatch.setenv("KCL_PKG_PATH", str(cache))
    rsp = await _run_kcl(root, source)
    if inside:
        assert (_fatal(rsp), list(rsp.desired.resources)) == ("", ["cm"]), reason
        return
    assert _fatal(rsp) == (
        f'failed to run kcl function pipelines: cannot read KCL source "{module}": not in {root}, the directory this controller '
        "lets built-in functions read (--function-filesystem-root)"
    ), reason
