"""A small in-memory ``Api`` for unit tests of reconciler logic (cluster tests use the real server).

It keeps objects by (apiVersion, kind, namespace, name), assigns uids,
resourceVersions and generations, honours finalizers on delete, and emulates
server-side apply as a deep merge (good enough to check what was applied, not
how field ownership resolves). Every call is logged in ``calls`` so a test can
check the order of writes; ``fail`` makes a verb on a kind (or one object)
raise a given API error.
"""

from __future__ import annotations

import builtins
import copy
import itertools
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal

from crossfn import errors
from crossfn.controller.kube import _api

Key = tuple[str, str, str, str]


def _merge(into: dict[str, Any], patch: Mapping[str, Any]) -> None:
    """RFC 7386 merge: maps merge, ``None`` deletes, anything else replaces."""
    for k, v in patch.items():
        if v is None:
            into.pop(k, None)
        elif isinstance(v, Mapping) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = copy.deepcopy(v)


def _manage(obj: dict[str, Any], manager: str) -> None:
    """Record ``manager`` in ``metadata.managedFields``, as server-side apply does (without the field sets)."""
    fields = obj.setdefault("metadata", {}).setdefault("managedFields", [])
    if not any(f.get("manager") == manager for f in fields):
        fields.append({"manager": manager, "operation": "Apply"})


def _json_patch(obj: dict[str, Any], ops: list[Any]) -> None:
    """RFC 6902 ``test``, ``replace``, ``add`` and ``remove`` on object and list paths (enough for the reconcilers)."""
    for op in ops:
        *parents, last = op["path"].lstrip("/").split("/")
        target: Any = obj
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        index: Any = int(last) if isinstance(target, list) else last
        if op["op"] == "test":
            if target[index] != op["value"]:
                raise _api.Invalid(f"the test operation at {op['path']} failed", status=422)
        elif op["op"] in ("replace", "add"):
            target[index] = copy.deepcopy(op["value"])
        elif op["op"] == "remove":
            del target[index]


class FakeApi:
    """The ``Api`` protocol over a dict, for tests."""

    def __init__(self, scopes: Mapping[tuple[str, str], bool] | None = None) -> None:
        self.objects: dict[Key, dict[str, Any]] = {}
        self.scopes: dict[tuple[str, str], bool] = dict(scopes or {})
        self.scopes.setdefault(("v1", "Event"), True)
        self.scopes.setdefault(("v1", "Secret"), True)
        self.scopes.setdefault(("v1", "ConfigMap"), True)
        self.calls: list[tuple[str, str, str]] = []
        self.openapi: dict[str, bytes] = {}
        self.openapi_reads = 0
        self._faults: dict[tuple[str, str, str], _api.ApiError] = {}
        self._rv = itertools.count(1)

    # Test helpers -----------------------------------------------------------------------------

    def fail(self, verb: str, kind: str, error: _api.ApiError, name: str = "") -> None:
        """Make ``verb`` on ``kind`` (only object ``name`` when given) raise ``error``."""
        self._faults[(verb, kind, name)] = error

    def heal(self) -> None:
        self._faults.clear()

    def put(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """Store ``obj`` as if created, without logging a call."""
        return self._store_new(obj)

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [o for (_, k, _, _), o in sorted(self.objects.items()) if k == kind]

    def writes(self) -> list[tuple[str, str, str]]:
        return [c for c in self.calls if c[0] not in ("get", "list")]

    # Internals ---------------------------------------------------------------------------------

    def _key(self, api_version: str, kind: str, name: str, namespace: str) -> Key:
        namespaced = self.scopes.get((api_version, kind), True)
        return (api_version, kind, namespace if namespaced else "", name)

    def _obj_key(self, obj: Mapping[str, Any]) -> Key:
        meta = obj.get("metadata") or {}
        return self._key(
            str(obj["apiVersion"]), str(obj["kind"]), str(meta["name"]), str(meta.get("namespace") or "")
        )

    def _check(self, verb: str, kind: str, name: str) -> None:
        self.calls.append((verb, kind, name))
        for key in ((verb, kind, name), (verb, kind, "")):
            if key in self._faults:
                raise self._faults[key]

    def _store_new(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        new = copy.deepcopy(dict(obj))
        meta = new.setdefault("metadata", {})
        meta.setdefault("uid", str(uuid.uuid4()))
        meta["resourceVersion"] = str(next(self._rv))
        meta["generation"] = 1
        meta.setdefault("creationTimestamp", "2026-01-01T00:00:00Z")
        key = self._obj_key(new)
        if not key[2]:
            meta.pop("namespace", None)
        self.objects[key] = new
        return copy.deepcopy(new)

    def _bump(self, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
        meta = new["metadata"]
        meta["resourceVersion"] = str(next(self._rv))
        if {k: v for k, v in old.items() if k not in ("metadata", "status")} != {
            k: v for k, v in new.items() if k not in ("metadata", "status")
        }:
            meta["generation"] = int(old["metadata"].get("generation") or 1) + 1
        if meta.get("deletionTimestamp") and not meta.get("finalizers"):
            del self.objects[self._obj_key(new)]
            return copy.deepcopy(new)
        self.objects[self._obj_key(new)] = new
        return copy.deepcopy(new)

    # The Api protocol --------------------------------------------------------------------------

    async def get(self, api_version: str, kind: str, name: str, namespace: str = "") -> dict[str, Any] | None:
        self._check("get", kind, name)
        found = self.objects.get(self._key(api_version, kind, name, namespace))
        return copy.deepcopy(found) if found is not None else None

    async def read(self, api_version: str, kind: str, name: str, namespace: str = "") -> dict[str, Any]:
        """:meth:`get`, or the API server's NotFound (its message names ``<kind>s``, not the real plural)."""
        found = await self.get(api_version, kind, name, namespace)
        if found is None:
            group = api_version.rpartition("/")[0]
            resource = f"{kind.lower()}s.{group}" if group else f"{kind.lower()}s"
            raise _api.NotFound(f"{resource} {errors.quote(name)} not found", status=404)
        return found

    async def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        labels: Mapping[str, str] | None = None,
    ) -> tuple[list[dict[str, Any]], str]:
        self._check("list", kind, "")
        out = []
        for (av, k, ns, _), o in sorted(self.objects.items()):
            if (av, k) != (api_version, kind) or (namespace is not None and ns != namespace):
                continue
            have = o["metadata"].get("labels") or {}
            if labels and any(have.get(lk) != lv for lk, lv in labels.items()):
                continue
            out.append(copy.deepcopy(o))
        return out, str(next(self._rv))

    async def watch(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        resource_version: str,
        timeout_seconds: int = 300,
    ) -> AsyncIterator[_api.WatchEvent]:
        return
        yield  # an async generator that ends at once

    async def apply(
        self, obj: Mapping[str, Any], *, field_manager: str, force: bool = True, status: bool = False
    ) -> dict[str, Any]:
        name = str((obj.get("metadata") or {}).get("name") or "")
        self._check("apply-status" if status else "apply", str(obj.get("kind")), name)
        key = self._obj_key(obj)
        old = self.objects.get(key)
        if old is None:
            if status:
                raise _api.NotFound(f'{obj.get("kind")} "{name}" not found', status=404)
            new_obj = {k: v for k, v in obj.items() if k != "status"}
            _manage(new_obj, field_manager)
            return self._store_new(new_obj)
        new = copy.deepcopy(old)
        if status:
            _merge(new.setdefault("status", {}), obj.get("status") or {})
        else:
            _merge(new, {k: v for k, v in obj.items() if k != "status"})
            _manage(new, field_manager)
        return self._bump(old, new)

    async def create(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        name = str((obj.get("metadata") or {}).get("name") or "")
        self._check("create", str(obj.get("kind")), name)
        if self._obj_key(obj) in self.objects:
            raise _api.Conflict(f'{obj.get("kind")} "{name}" already exists', status=409)
        return self._store_new(obj)

    async def update(self, obj: Mapping[str, Any], *, status: bool = False) -> dict[str, Any]:
        meta = obj.get("metadata") or {}
        self._check("update-status" if status else "update", str(obj.get("kind")), str(meta.get("name")))
        key = self._obj_key(obj)
        old = self.objects.get(key)
        if old is None:
            raise _api.NotFound(f'{obj.get("kind")} "{meta.get("name")}" not found', status=404)
        if meta.get("resourceVersion") and meta["resourceVersion"] != old["metadata"]["resourceVersion"]:
            raise _api.Conflict(
                "the object has been modified; please apply your changes to the latest version", status=409
            )
        new = copy.deepcopy(old)
        if status:
            new["status"] = copy.deepcopy(obj.get("status"))
        else:
            new = {k: copy.deepcopy(v) for k, v in obj.items() if k != "status"}
            if "status" in old:
                new["status"] = copy.deepcopy(old["status"])
            for keep in ("uid", "creationTimestamp", "deletionTimestamp", "generation"):
                if keep in old["metadata"]:
                    new["metadata"][keep] = old["metadata"][keep]
        return self._bump(old, new)

    async def patch(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str,
        patch: Mapping[str, Any] | builtins.list[Any],
        *,
        patch_type: Literal["merge", "json"] = "merge",
        status: bool = False,
    ) -> dict[str, Any]:
        self._check("patch-status" if status else "patch", kind, name)
        key = self._key(api_version, kind, name, namespace)
        old = self.objects.get(key)
        if old is None:
            raise _api.NotFound(f'{kind} "{name}" not found', status=404)
        new = copy.deepcopy(old)
        if isinstance(patch, Mapping):
            _merge(new, patch)
        else:
            _json_patch(new, patch)
        return self._bump(old, new)

    async def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str = "",
        *,
        propagation: Literal["Foreground", "Background", "Orphan"] | None = None,
        uid: str | None = None,
    ) -> None:
        self._check("delete", kind, name)
        key = self._key(api_version, kind, name, namespace)
        old = self.objects.get(key)
        if old is None:
            raise _api.NotFound(f'{kind} "{name}" not found', status=404)
        if uid is not None and old["metadata"].get("uid") != uid:
            raise _api.Conflict("Precondition failed: UID in precondition does not match", status=409)
        if old["metadata"].get("finalizers"):
            old["metadata"].setdefault("deletionTimestamp", "2026-01-01T00:00:00Z")
            return
        del self.objects[key]

    async def is_namespaced(self, api_version: str, kind: str) -> bool:
        if (api_version, kind) not in self.scopes:
            raise _api.NoKindMatch(f'no matches for kind "{kind}" in version "{api_version}"')
        return self.scopes[(api_version, kind)]

    async def openapi_paths(self) -> builtins.list[str]:
        self.openapi_reads += 1
        return sorted(self.openapi)

    async def openapi_document(self, path: str) -> bytes:
        self.openapi_reads += 1
        if path not in self.openapi:
            raise _api.NotFound(f"openapi path {path} not found", status=404)
        return self.openapi[path]
