"""A stand-in Hugging Face Hub on 127.0.0.1 for the real `huggingface_hub` client.

It answers the few routes that `create_repo`, `create_commit`/`upload_folder`, `hf_hub_download`,
`snapshot_download` and the collection calls use, the way the Hub answers them (same paths, JSON
fields, headers), and keeps repositories in memory. Requests are recorded so that tests can check what
the client sent (token, commit message). Anything else answers 404 with the route, so a client upgrade
that needs a new route fails loudly.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit


@dataclass
class Repo:
    repo_type: str
    repo_id: str
    private: bool = False
    sdk: str | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    commits: list[dict[str, Any]] = field(default_factory=list)

    @property
    def sha(self) -> str:
        return self.commits[-1]["oid"] if self.commits else "0" * 40


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]


class StandInHub:
    """Start with `hub = StandInHub().start()`; point the client at `hub.endpoint`; `hub.stop()`."""

    def __init__(self) -> None:
        self.repos: dict[tuple[str, str], Repo] = {}
        self.collections: dict[str, dict[str, Any]] = {}
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def endpoint(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> StandInHub:
        hub = self

        class Handler(_Handler):
            standin = hub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # --- seeding, for tests that start from an existing Hub state -------------------------------

    def add_files(self, repo_id: str, files: dict[str, str | bytes], repo_type: str = "space") -> Repo:
        repo = self.repos.setdefault((repo_type, repo_id), Repo(repo_type, repo_id, sdk="gradio"))
        repo.files.update({k: v.encode() if isinstance(v, str) else v for k, v in files.items()})
        repo.commits.append({"oid": _oid(repo.files), "message": "seed"})
        return repo

    def add_collection(self, slug: str, title: str, items: list[tuple[str, str]]) -> None:
        """`items`: (item type, repo id) pairs, such as ("space", "alice/echo")."""
        self.collections[slug] = _collection(slug, title, [])
        for kind, item_id in items:
            _add_item(self.collections[slug], kind, item_id)


def _oid(files: dict[str, bytes]) -> str:
    digest = hashlib.sha1(usedforsecurity=False)
    for path in sorted(files):
        digest.update(path.encode() + b"\0" + files[path])
    digest.update(str(time.monotonic_ns()).encode())
    return digest.hexdigest()


def _collection(slug: str, title: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "slug": slug,
        "title": title,
        "owner": {"name": slug.split("/")[0], "type": "user"},
        "items": items,
        "lastUpdated": "2025-01-01T00:00:00.000Z",
        "position": 0,
        "private": False,
        "theme": "blue",
        "upvotes": 0,
        "description": None,
    }


def _add_item(collection: dict[str, Any], kind: str, item_id: str) -> None:
    items = collection["items"]
    items.append(
        {"_id": f"{len(items):024x}", "id": item_id, "type": kind, "position": len(items), "repoType": kind}
    )


_REPO = r"(?P<kind>model|dataset|space)s/(?P<repo>[^/]+/[^/]+)"


class _Handler(BaseHTTPRequestHandler):
    standin: StandInHub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    # --- plumbing ------------------------------------------------------------------------------

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self._send(
            status, json.dumps(payload).encode(), {"Content-Type": "application/json", **(headers or {})}
        )

    def _not_found(self, what: str) -> None:
        # the Hub's way of saying so: huggingface_hub turns it into RepositoryNotFoundError
        self._json(404, {"error": what}, {"X-Error-Code": "RepoNotFound", "X-Error-Message": what})

    def _route(self) -> None:
        path = unquote(urlsplit(self.path).path)
        with self.standin._lock:
            self.standin.requests.append(Request(self.command, self.path, dict(self.headers.items())))
        for method, pattern, handler in _ROUTES:
            match = re.fullmatch(pattern, path)
            if method == self.command and match:
                handler(self, **match.groupdict())
                return
        self._json(404, {"error": f"stand-in hub has no route {self.command} {path}"})

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = _route

    def _repo(self, kind: str, repo: str) -> Repo | None:
        return self.standin.repos.get((kind, repo))

    # --- repositories ---------------------------------------------------------------------------

    def create_repo(self) -> None:
        payload = json.loads(self._body() or b"{}")
        kind = payload.get("type") or "model"
        repo_id = f"{payload.get('organization') or 'user'}/{payload['name']}"
        key = (kind, repo_id)
        if key in self.standin.repos:
            self._json(409, {"error": "You already created this repo", "url": _url(self, kind, repo_id)})
            return
        self.standin.repos[key] = Repo(
            kind, repo_id, private=payload.get("visibility") == "private", sdk=payload.get("sdk")
        )
        self._json(200, {"url": _url(self, kind, repo_id), "name": repo_id})

    def repo_info(self, kind: str, repo: str, revision: str = "main") -> None:
        found = self._repo(kind, repo)
        if found is None:
            self._not_found(f"Repository {repo} not found")
            return
        self._json(
            200,
            {
                "id": repo,
                "_id": hashlib.md5(repo.encode(), usedforsecurity=False).hexdigest()[:24],
                "sha": found.sha,
                "private": found.private,
                "sdk": found.sdk,
                "siblings": [{"rfilename": name} for name in sorted(found.files)],
                "lastModified": "2025-01-01T00:00:00.000Z",
            },
        )

    def tree(self, kind: str, repo: str, revision: str) -> None:
        """`list_repo_tree(recursive=True)`, which `snapshot_download` uses: files and their folders."""
        found = self._repo(kind, repo)
        if found is None:
            self._not_found(f"Repository {repo} not found")
            return
        folders = sorted(
            {"/".join(p.split("/")[:i]) for p in found.files for i in range(1, p.count("/") + 1)}
        )
        entries: list[dict[str, Any]] = [{"type": "directory", "path": f, "oid": "0" * 40} for f in folders]
        for path, content in sorted(found.files.items()):
            oid = hashlib.sha1(content, usedforsecurity=False).hexdigest()
            entries.append({"type": "file", "path": path, "oid": oid, "size": len(content)})
        self._json(200, entries)

    def preupload(self, kind: str, repo: str, revision: str) -> None:
        if self._repo(kind, repo) is None:
            self._not_found(f"Repository {repo} not found")
            return
        files = json.loads(self._body())["files"]
        self._json(
            200,
            {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]},
        )

    def commit(self, kind: str, repo: str, revision: str) -> None:
        found = self._repo(kind, repo)
        if found is None:
            self._not_found(f"Repository {repo} not found")
            return
        message = ""
        for line in self._body().splitlines():
            item = json.loads(line)
            value = item["value"]
            if item["key"] == "header":
                message = value.get("summary", "")
            elif item["key"] == "file":
                content = value["content"]
                found.files[value["path"]] = (
                    base64.b64decode(content) if value.get("encoding") == "base64" else content.encode()
                )
            elif item["key"] == "deletedFile":
                found.files.pop(value["path"], None)
        oid = _oid(found.files)
        found.commits.append({"oid": oid, "message": message})
        self._json(
            200,
            {
                "commitUrl": f"{_url(self, kind, repo)}/commit/{oid}",
                "commitOid": oid,
                "pullRequestUrl": None,
            },
        )

    def resolve(self, kind: str, repo: str, revision: str, filename: str) -> None:
        found = self._repo(kind, repo)
        if found is None:
            self._not_found(f"Repository {repo} not found")
            return
        if filename not in found.files:
            self._json(404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"})
            return
        content = found.files[filename]
        etag = hashlib.sha1(content, usedforsecurity=False).hexdigest()
        self._send(
            200,
            content,
            {"ETag": f'"{etag}"', "X-Repo-Commit": found.sha, "Content-Type": "application/octet-stream"},
        )

    def resolve_model(self, repo: str, revision: str, filename: str) -> None:
        self.resolve("model", repo, revision, filename)

    def validate_yaml(self) -> None:
        """The Hub checks a README's front matter on upload; a Space card must name its SDK."""
        payload = json.loads(self._body())
        if payload.get("repoType") == "space" and "sdk:" not in payload.get("content", ""):
            self._json(400, {"errors": [{"message": '"sdk" is required for a Space'}], "warnings": []})
            return
        self._json(200, {"errors": [], "warnings": []})

    # --- collections ----------------------------------------------------------------------------

    def get_collection(self, slug: str) -> None:
        if slug not in self.standin.collections:
            self._json(404, {"error": "Collection not found"})
            return
        self._json(200, self.standin.collections[slug])

    def create_collection(self) -> None:
        payload = json.loads(self._body())
        slug = f"{payload.get('namespace') or 'user'}/{payload['title'].lower().replace(' ', '-')}-{len(self.standin.collections):024x}"
        self.standin.collections[slug] = _collection(slug, payload["title"], [])
        self._json(200, self.standin.collections[slug])

    def add_collection_item(self, slug: str) -> None:
        if slug not in self.standin.collections:
            self._json(404, {"error": "Collection not found"})
            return
        payload = json.loads(self._body())
        _add_item(self.standin.collections[slug], payload["item"]["type"], payload["item"]["id"])
        self._json(200, self.standin.collections[slug])


def _url(handler: _Handler, kind: str, repo_id: str) -> str:
    host, port = handler.server.server_address[:2]
    prefix = "" if kind == "model" else f"{kind}s/"
    return f"http://{host}:{port}/{prefix}{repo_id}"


_ROUTES: list[tuple[str, str, Any]] = [
    ("POST", r"/api/repos/create", _Handler.create_repo),
    ("GET", rf"/api/{_REPO}", _Handler.repo_info),
    ("GET", rf"/api/{_REPO}/revision/(?P<revision>[^/]+)", _Handler.repo_info),
    ("GET", rf"/api/{_REPO}/tree/(?P<revision>[^/]+)", _Handler.tree),
    ("POST", rf"/api/{_REPO}/preupload/(?P<revision>[^/]+)", _Handler.preupload),
    ("POST", rf"/api/{_REPO}/commit/(?P<revision>[^/]+)", _Handler.commit),
    ("HEAD", rf"/{_REPO}/resolve/(?P<revision>[^/]+)/(?P<filename>.+)", _Handler.resolve),
    ("GET", rf"/{_REPO}/resolve/(?P<revision>[^/]+)/(?P<filename>.+)", _Handler.resolve),
    ("HEAD", r"/(?P<repo>[^/]+/[^/]+)/resolve/(?P<revision>[^/]+)/(?P<filename>.+)", _Handler.resolve_model),
    ("GET", r"/(?P<repo>[^/]+/[^/]+)/resolve/(?P<revision>[^/]+)/(?P<filename>.+)", _Handler.resolve_model),
    ("POST", r"/api/validate-yaml", _Handler.validate_yaml),
    ("GET", r"/api/collections/(?P<slug>[^/]+/[^/]+)", _Handler.get_collection),
    ("POST", r"/api/collections", _Handler.create_collection),
    ("POST", r"/api/collections/(?P<slug>[^/]+/[^/]+)/items", _Handler.add_collection_item),
]
