"""The controller's view of the Kubernetes API: one Protocol, dict objects, translated errors.

Every reconciler talks to the API server through :class:`Api` and reads through
informer caches (``_informer``); neither knows which client library sits
underneath (``_kube`` implements this Protocol on it). Objects are plain JSON
dicts exactly as the API server returns them, ``managedFields`` included (the
engine sends observed objects to functions unchanged, upstream core-2.21 of Crossplane's
behaviour). Kinds are named by ``apiVersion`` and ``kind``; the implementation
maps them to REST resources through discovery, and re-discovers when a kind it
has not seen appears (a CRD the XRD controller just created).

Errors from the library are translated at the boundary into :class:`ApiError`
and its subclasses, the ones a reconciler branches on: ``NotFound`` (gets return
``None`` instead), ``Conflict`` (requeue silently), ``Invalid`` (HTTP 422: a
composed resource the API server rejects is reported, not fatal), ``Gone`` (410:
an informer relists). The message is the API server's ``Status.message``.
"""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal, Protocol

from crossfn import errors

__all__ = [
    "FIELD_MANAGER",
    "Api",
    "ApiError",
    "Conflict",
    "Forbidden",
    "Gone",
    "Invalid",
    "NoKindMatch",
    "NotFound",
    "WatchEvent",
]

Object = dict[str, Any]

FIELD_MANAGER = "crossfn"
"""The field manager of crossfn's own writes: the default of every create, update, patch and apply."""


class ApiError(errors.CrossfnError):
    """The API server refused a request, or could not be reached (``status`` 0)."""

    def __init__(
        self, message: str, *, status: int = 0, reason: str = "", body: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.body = body
        """The API server's ``Status`` object, when it sent one (``crossfn trace -o json`` prints it)."""


class NotFound(ApiError):  # noqa: N818 -- named as Kubernetes' apierrors reasons (IsNotFound, IsConflict...)
    """HTTP 404: the object (or its kind) does not exist."""


class Conflict(ApiError):  # noqa: N818 -- named as Kubernetes' apierrors reasons (IsNotFound, IsConflict...)
    """HTTP 409: a stale resourceVersion, or an object that already exists."""


class Invalid(ApiError):  # noqa: N818 -- named as Kubernetes' apierrors reasons (IsNotFound, IsConflict...)
    """HTTP 422: the object does not validate against its schema."""


class Gone(ApiError):  # noqa: N818 -- named as Kubernetes' apierrors reasons (IsNotFound, IsConflict...)
    """HTTP 410: a watch's resourceVersion is too old; list again."""


class Forbidden(ApiError):  # noqa: N818 -- named as Kubernetes' apierrors reasons (IsNotFound, IsConflict...)
    """HTTP 403: RBAC does not allow the request."""


class NoKindMatch(ApiError):  # noqa: N818 -- named as Kubernetes' apierrors reasons (IsNotFound, IsConflict...)
    """Discovery knows no resource for the apiVersion and kind."""


class Fenced(ApiError):  # noqa: N818 -- as the errors above
    """A write refused before it was sent: this replica can no longer be sure it holds the Lease."""


class WriteFence(Protocol):
    """Whether this replica may still write (leader election's fencing, ``manager._leader``).

    The client calls :meth:`check` immediately before a write's bytes go out; when some of
    them could only leave the process later (a full socket buffer), :meth:`sent` after
    they did, which stops the process when the moment passed in between: such a write
    could no longer be fenced.
    """

    def check(self) -> None:
        """Raise :class:`Fenced` when this replica may not write now."""
        ...

    def sent(self) -> None:
        """A write whose last bytes left just now: stop the process when that was too late."""
        ...


@dataclasses.dataclass(frozen=True)
class WatchEvent:
    """One event of a watch: ``ADDED``, ``MODIFIED``, ``DELETED`` or ``BOOKMARK``."""

    type: Literal["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]
    object: Object


class Api(Protocol):
    """Async access to the API server on unstructured objects.

    ``namespace`` is ``""`` for cluster-scoped kinds (and ignored for them);
    ``None`` in :meth:`list` and :meth:`watch` means every namespace.
    """

    async def get(self, api_version: str, kind: str, name: str, namespace: str = "") -> Object | None:
        """The object, or ``None`` when it (or its kind) does not exist."""
        ...

    async def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        labels: Mapping[str, str] | None = None,
    ) -> tuple[list[Object], str]:
        """The objects and the list's ``resourceVersion`` (to start a watch from)."""
        ...

    async def read(self, api_version: str, kind: str, name: str, namespace: str = "") -> Object:
        """The object; :class:`NotFound` (with the API server's message, ``<plural>.<group> "<name>" not
        found``) when it is not there, :class:`NoKindMatch` when its kind is not served. What a caller
        reports as its own error uses this; one that only asks "is it there?" uses :meth:`get`."""
        ...

    def watch(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        resource_version: str,
        timeout_seconds: int = 300,
    ) -> AsyncIterator[WatchEvent]:
        """Events after ``resource_version``, with bookmarks; raises :class:`Gone` when it is too old.

        The iterator ends when the server closes the watch (its timeout); the
        caller starts a new one from the last resourceVersion it saw.
        """
        ...

    async def apply(
        self, obj: Mapping[str, Any], *, field_manager: str, force: bool = True, status: bool = False
    ) -> Object:
        """Server-side apply ``obj`` (or its status subresource) as ``field_manager``."""
        ...

    async def create(self, obj: Mapping[str, Any]) -> Object:
        """Create ``obj``; :class:`Conflict` when it exists."""
        ...

    async def update(self, obj: Mapping[str, Any], *, status: bool = False) -> Object:
        """Replace ``obj`` (PUT); :class:`Conflict` when its resourceVersion is stale."""
        ...

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
    ) -> Object:
        """A JSON merge patch (or JSON patch) on the object or its status subresource."""
        ...

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
        """Delete the object; ``uid`` is a precondition. :class:`NotFound` when it is gone."""
        ...

    async def is_namespaced(self, api_version: str, kind: str) -> bool:
        """Whether the kind is namespaced; :class:`NoKindMatch` when discovery does not know it."""
        ...

    async def openapi_paths(self) -> builtins.list[str]:
        """The group-version paths of ``/openapi/v3`` (for example ``apis/example.org/v1``)."""
        ...

    async def openapi_document(self, path: str) -> bytes:
        """The OpenAPI v3 document at ``/openapi/v3/<path>``."""
        ...
