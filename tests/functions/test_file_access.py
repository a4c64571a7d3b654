"""What a Composition can make a built-in read: nothing outside the allowed directory, where one is confined.

The controller loads built-ins with a :class:`crossfn.functions.FileAccess`
(``--function-filesystem-root``): go-templating's FileSystem source, KCL's local
sources, settings, dependencies and a KCL program's ``file`` module may then
reach only beneath that directory (symbolic links resolved, as a ConfigMap
volume's are), and KCL programs and Python scripts run in sandbox processes the
kernel confines (Landlock). Render loads them without one, as before.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from crossfn import errors, functions
from crossfn.functions import _landlock, _sandbox
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, testing

NAME = "gotemplating.fn.crossplane.io/composition-resource-name"
TEMPLATE = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    {NAME}: cm\n"
SECRET = "the controller's token\n"


def test_the_kernel_can_confine() -> None:
    """These tests, and the controller's KCL and Python built-ins, need Landlock (Linux 5.13+)."""
    assert _landlock.abi() >= 1


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``root/templates`` laid out as a ConfigMap volume (links into ``..data``), a secret outside the root, and
    links from inside the root to it."""
    (tmp_path / "secret").write_text(SECRET)
    root = tmp_path / "root"
    data = root / "templates" / "..2026_01_01_00_00_00.1"
    data.mkdir(parents=True)
    (data / "cm.yaml").write_text(TEMPLATE)
    (root / "templates" / "..data").symlink_to(data.name)
    (root / "templates" / "cm.yaml").symlink_to("..data/cm.yaml")
    (root / "leak").mkdir()
    (root / "leak" / "token.yaml").symlink_to(tmp_path / "secret")
    (root / "out").symlink_to(tmp_path)
    (root / "program.k").write_text(
        'import file\nitems = [{apiVersion: "v1", kind: "C", metadata.name: "k"}]\n'
    )
    return tmp_path


def _access(tree: Path, root: bool) -> functions.FileAccess:
    return functions.FileAccess.beneath(tree / "root" if root else None)


def _refused(tree: Path, root: bool) -> str:
    if not root:
        return "this controller lets built-in functions read no files (allow a directory with --function-filesystem-root)"
    return (
        f"not in {tree / 'root'}, the directory this controller lets built-in functions read "
        "(--function-filesystem-root)"
    )


ACCESS = [
    pytest.param("templates/cm.yaml", True, "root/templates/..2026_01_01_00_00_00.1/cm.yaml",
                 "a ConfigMap volume's links lead within the root", id="ConfigMapLink"),
    pytest.param("templates", True, "root/templates", "a relative path is taken from the root", id="Relative"),
    pytest.param("{tree}/root", True, "root", "the root itself", id="Root"),
    pytest.param("leak/token.yaml", True, None, "a link out of the root is refused", id="LinkOut"),
    pytest.param("out/secret", True, None, "a linked directory out of the root is refused", id="LinkedDirOut"),
    pytest.param("templates/../../secret", True, None, "climbing out is refused", id="Climbs"),
    pytest.param("{tree}/secret", True, None, "an absolute path outside", id="Outside"),
    pytest.param("{tree}/rootless", True, None, "a sibling whose name starts as the root's", id="Prefix"),
    pytest.param("templates/cm.yaml", False, None, "no root: nothing", id="NoRoot"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "root", "want", "reason"), ACCESS)
def test_within(tree: Path, path: str, root: bool, want: str | None, reason: str) -> None:
    access = _access(tree, root)
    if want is None:
        with pytest.raises(functions.FileAccessError) as exc:
            access.within(path.format(tree=tree))
        assert str(exc.value) == _refused(tree, root), reason
        return
    assert access.within(path.format(tree=tree)) == str(tree / want), reason


def test_open_reads_only_within(tree: Path) -> None:
    """``open`` resolves, opens and checks the file it opened; a link out is refused before anything is read."""
    access = _access(tree, True)
    fd = access.open("templates/cm.yaml")
    with os.fdopen(fd) as f:
        assert f.read() == TEMPLATE
    with pytest.raises(functions.FileAccessError):
        access.open("leak/token.yaml")


@pytest.mark.parametrize(
    ("root", "want"),
    [
        pytest.param(
            "{tree}/secret", '--function-filesystem-root "{tree}/secret": not a directory', id="File"
        ),
        pytest.param(
            "{tree}/nope", '--function-filesystem-root "{tree}/nope": not a directory', id="Missing"
        ),
        pytest.param("/", '--function-filesystem-root "/": would let built-ins read every file', id="Slash"),
    ],
)
def test_beneath_wants_a_directory(tree: Path, root: str, want: str) -> None:
    with pytest.raises(errors.InputError) as exc:
        functions.FileAccess.beneath(root.format(tree=tree))
    assert str(exc.value) == want.format(tree=tree)


def _go_templating(access: functions.FileAccess | None, dir_path: str) -> fnv1.RunFunctionResponse:
    fn = functions.load("go-templating", files=access)
    inp = {"apiVersion": "gotemplating.fn.crossplane.io/v1beta1", "kind": "GoTemplate", "source": "FileSystem",
           "fileSystem": {"dirPath": dir_path}}  # fmt: skip
    return testing.run(
        fn, testing.build_request(input=inp, observed_composite={"apiVersion": "x/v1", "kind": "X"})
    )


def _fatal(rsp: fnv1.RunFunctionResponse) -> str:
    return "".join(r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL)


GO_TEMPLATING = [
    pytest.param("{tree}/root/templates", True, "", "a mounted ConfigMap under the root composes", id="ConfigMap"),
    pytest.param("templates", True, "", "a relative dirPath is from the root", id="Relative"),
    pytest.param("{tree}/root/leak", True, "open {tree}/root/leak/token.yaml: {refused}",
                 "a template linked out of the root", id="LinkedTemplate"),
    pytest.param("/var/run/secrets/kubernetes.io/serviceaccount", True,
                 "open /var/run/secrets/kubernetes.io/serviceaccount: {refused}", "the token's directory",
                 id="ServiceAccount"),
    pytest.param("{tree}/root/templates", False, "open {tree}/root/templates: {refused}",
                 "no root: no FileSystem source at all", id="NoRoot"),
]  # fmt: skip


@pytest.mark.parametrize(("dir_path", "root", "want", "reason"), GO_TEMPLATING)
def test_go_templating_reads_only_beneath_the_root(
    tree: Path, dir_path: str, root: bool, want: str, reason: str
) -> None:
    path = dir_path.format(tree=tree)
    rsp = _go_templating(_access(tree, root), path)
    if not want:
        assert (_fatal(rsp), list(rsp.desired.resources)) == ("", ["cm"]), reason
        return
    shown = path if os.path.isabs(path) else str(tree / "root" / path)
    assert _fatal(rsp) == (
        f"invalid function input: cannot read tmpl from the folder {{{shown}}}: "
        + want.format(tree=tree, refused=_refused(tree, root))
    ), reason


def test_go_templating_in_render_reads_what_the_user_can(tree: Path) -> None:
    """Without a FileAccess (render), a FileSystem source reads any directory, links out included, as before."""
    rsp = _go_templating(None, str(tree / "root" / "templates"))
    assert (_fatal(rsp), list(rsp.desired.resources)) == ("", ["cm"])


def _kcl(access: functions.FileAccess | None, source: str, **spec: Any) -> fnv1.RunFunctionResponse:
    fn = functions.load("kcl", files=access)
    inp = {"apiVersion": "krm.kcl.dev/v1alpha1", "kind": "KCLInput", "spec": {"source": source, **spec}}
    return testing.run(
        fn, testing.build_request(input=inp, observed_composite={"apiVersion": "x/v1", "kind": "X"})
    )


def _named(value: str) -> str:
    return f'import file\nitems = [{{apiVersion: "v1", kind: "C", metadata.name: {value}}}]'


KCL = [
    pytest.param(_named('file.read("{tree}/root/templates/cm.yaml")[:10]'), {}, True, "apiVersion",
                 "a program reads beneath the root", id="ReadWithin"),
    pytest.param(_named('file.read("{tree}/secret")'), {}, True,
                 "failed to run kcl function pipelines: EvaluationError: prog.k:2: failed to access the file "
                 "'{tree}/secret': Permission denied (os error 13) ({note})", "the kernel refuses a read outside",
                 id="ReadOutside"),
    pytest.param(_named('file.read("{tree}/root/leak/token.yaml")'), {}, True,
                 "failed to run kcl function pipelines: EvaluationError: prog.k:2: failed to access the file "
                 "'{tree}/root/leak/token.yaml': Permission denied (os error 13) ({note})",
                 "a link out of the root is refused by the kernel too", id="ReadThroughLink"),
    pytest.param('import file\nfile.write("{tree}/root/w", "x")\nitems = []', {}, True,
                 "failed to run kcl function pipelines: EvaluationError: prog.k:2: Failed to create file "
                 "'{tree}/root/w': Permission denied (os error 13) ({note})", "nothing is written, not even in the root",
                 id="Write"),
    pytest.param(_named('file.read_env("HOME") or "no-environment"'), {}, False, "no-environment",
                 "the controller's environment is not the program's", id="Environment"),
    pytest.param("{tree}/root/program.k", {}, True, "k", "a local source beneath the root runs", id="LocalSource"),
    pytest.param("{tree}/secret", {}, True,
                 'failed to run kcl function pipelines: cannot read KCL source "{tree}/secret": {refused}',
                 "a local source outside", id="SourceOutside"),
    pytest.param("items = []", {"config": {"settings": ["{tree}/secret"]}}, True,
                 'failed to run kcl function pipelines: cannot read KCL settings file "{tree}/secret": {refused}',
                 "a settings file outside", id="SettingsOutside"),
    pytest.param("items = []", {"dependencies": 'x = { path = "{tree}" }'}, True,
                 'failed to run kcl function pipelines: cannot read KCL dependency "x" from "{tree}": {refused}',
                 "a path dependency outside", id="DependencyOutside"),
]  # fmt: skip


@pytest.mark.parametrize(("source", "spec", "root", "want", "reason"), KCL)
def test_kcl_reads_only_beneath_the_root(  # noqa: PLR0917 -- pytest passes fixtures and parameters by position
    tree: Path, source: str, spec: dict[str, Any], root: bool, want: str, reason: str
) -> None:
    access = _access(tree, root)

    def fill(text: str) -> str:
        text = text.replace("{refused}", _refused(tree, root)).replace("{note}", access.sandbox_note())
        return text.replace("{tree}", str(tree))

    rsp = _kcl(access, fill(source), **json.loads(fill(json.dumps(spec))))
    fatal = _fatal(rsp)
    if "pipelines" in want:
        assert fatal == fill(want), reason
        return
    assert fatal == "", reason
    names = [resource.struct_to_dict(r.resource)["metadata"]["name"] for r in rsp.desired.resources.values()]
    assert names == [want], reason


def _python(access: functions.FileAccess | None, script: str) -> fnv1.RunFunctionResponse:
    fn = functions.load("python", files=access)
    inp = {"apiVersion": "python.fn.crossplane.io/v1beta1", "kind": "Script", "script": script}
    return testing.run(fn, testing.build_request(input=inp))


# A script that runs a process with no audit event (the stdlib's native _posixsubprocess).
RUNS_CAT = """
import _posixsubprocess, os
def compose(req, rsp):
    r, w = os.pipe()
    er, ew = os.pipe()
    _posixsubprocess.fork_exec([b"/bin/cat", b"{secret}"], [b"/bin/cat"], True, (w, ew), None, None, -1, -1, -1,
                               w, -1, -1, er, ew, False, False, False, None, None, None, -1, None, False)
    os.close(w)
    os.close(ew)
    rsp.desired.resources["x"].resource.update({{"out": os.read(r, 100).decode(), "err": os.read(er, 100).decode()}})
"""


@pytest.mark.parametrize("access", [None, functions.FileAccess()], ids=["render", "controller"])
def test_python_scripts_escaping_the_audit_hook_meet_the_kernel(tree: Path, access: Any) -> None:
    """A process started through _posixsubprocess (no audit event) cannot read the secret: the kernel refuses to
    execute /bin/cat in the sandbox, in render (where it can) as in the controller (where it must)."""
    rsp = _python(access, RUNS_CAT.format(secret=tree / "secret"))
    out = resource.struct_to_dict(rsp.desired.resources["x"].resource)
    assert out["out"] == "" and out["err"].startswith("OSError:"), out


@pytest.mark.parametrize(
    ("script", "want"),
    [
        pytest.param("import readline\ndef compose(req, rsp): pass\n", "(import 'readline')", id="Readline"),
        pytest.param("import sqlite3\ndef compose(req, rsp):\n    sqlite3.connect('{tree}/db')\n",
                     "(sqlite3.connect '{tree}/db')", id="SQLiteFile"),
    ],
)  # fmt: skip
def test_python_native_file_access_is_refused(tree: Path, script: str, want: str) -> None:
    """readline's history files and SQLite database files are read and written by native code, with no open
    event: the audit hook refuses the module and the connection."""
    rsp = _python(None, script.format(tree=tree))
    assert _fatal(rsp) == (
        "Unexpected <class 'PermissionError'>: crossfn runs function-python scripts without file access "
        + want.format(tree=tree)
    )
    assert not (tree / "db").exists()


WORKER = """
import json, os, socket, sys
for line in sys.stdin:
    job = json.loads(line)
    out = {}
    try:
        with open(job["read"]) as f:
            out["read"] = f.read()
    except OSError as exc:
        out["read"] = type(exc).__name__
    try:
        open(job["write"], "w").close()
        out["write"] = "written"
    except OSError as exc:
        out["write"] = type(exc).__name__
    try:
        socket.create_connection(("127.0.0.1", job["port"]), timeout=2).close()
        out["connect"] = "connected"
    except OSError as exc:
        out["connect"] = type(exc).__name__
    out["environment"] = sorted(os.environ)
    print(json.dumps(out), flush=True)
"""


@pytest.mark.parametrize(
    ("readable", "required", "want"),
    [
        pytest.param(None, True, {"read": SECRET, "write": "written", "connect": "connected"},
                     id="Unconfined"),
        pytest.param(("{tree}/root",), True, {"read": "PermissionError", "write": "PermissionError",
                                              "connect": "PermissionError", "environment": []}, id="Confined"),
    ],
)  # fmt: skip
def test_a_confined_worker_reads_writes_and_connects_nowhere(
    tree: Path, readable: tuple[str, ...] | None, required: bool, want: dict[str, Any]
) -> None:
    (tree / "bin").mkdir()
    worker = tree / "bin" / "worker.py"  # its own directory is readable
    worker.write_text(WORKER)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        pool = _sandbox.Pool(
            worker, size=1, memory_limit=0, readable=[r.format(tree=tree) for r in readable or ()] if readable else None,
            required=required,
        )  # fmt: skip
        try:
            job = {
                "read": str(tree / "secret"),
                "write": str(tree / "root" / "new"),
                "port": listener.getsockname()[1],
            }
            got = pool.run(job, hard_timeout=30)
        finally:
            pool.close()
    assert {k: got[k] for k in want} == want


@pytest.mark.parametrize("required", [True, False], ids=["required", "best-effort"])
def test_a_worker_that_cannot_be_confined(tree: Path, required: bool) -> None:
    """Where the kernel cannot confine a worker (here: asked to let it read all of /), a pool that requires it
    fails every job saying why; a best-effort one (function-python in render) runs the worker as it is."""
    (tree / "bin").mkdir()
    worker = tree / "bin" / "worker.py"
    worker.write_text(WORKER)
    pool = _sandbox.Pool(worker, size=1, memory_limit=0, readable=["/"], required=required)
    job = {"read": str(tree / "secret"), "write": str(tree / "new"), "port": 1}
    try:
        if required:
            for _ in range(2):  # and again: a new worker, refused again
                with pytest.raises(_sandbox.SandboxError) as exc:
                    pool.run(job, hard_timeout=30)
                assert (
                    str(exc.value)
                    == "cannot confine the sandbox process: refusing to let the sandbox read all of / (through /)"
                )
        else:
            assert pool.run(job, hard_timeout=30)["read"] == SECRET
    finally:
        pool.close()


def test_only_builtins_that_read_files_change() -> None:
    """Under a FileAccess, go-templating, kcl and python come as confined copies; the others as they are."""
    access = functions.FileAccess()
    changed = {
        name for name in functions.BUILTINS if functions.load(name, files=access) is not functions.load(name)
    }
    assert changed == {"go-templating", "kcl", "python"}
    assert sys.modules["crossfn.functions.kcl"]  # loaded above
