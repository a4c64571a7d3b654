"""The Kubernetes client: client-go's part, on dict objects.

* ``_api``: the :class:`~crossfn.controller.kube._api.Api` Protocol every
  reconciler talks through, and the error tree an API failure is translated
  into (``NotFound``, ``Conflict``, ``Invalid``, ``Gone``, ...);
* ``_kube``: ``KubeApi``, that Protocol over plain REST calls (discovery per
  group-version, server-side apply, watches with bookmarks);
* ``_http``: the lean HTTP/1.1 client under it;
* ``_json``: private copies of JSON objects and their canonical encoding (msgspec);
* ``_kubeconfig``: reading a kubeconfig or the in-cluster service account,
  every problem one line naming the file and the field.

The bottom layer of the controller: it imports nothing else of it, and it is
the only part that knows httpx2, lightkube or msgspec (``pyproject.toml``'s
import contracts). Its modules are imported directly by every layer above.
"""
