"""A small shop served on 127.0.0.1: a home page, a sale section behind a newsletter pop-up,
product pages with prices, and a page that never finishes loading."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PAGES = {
    "/": """<html><head><title>Smol Shop</title></head><body>
<h1>Smol Shop</h1><nav><a href="/new.html">New arrivals</a> | <a href="/sale.html">Sale</a></nav>
<p>Welcome! Everything for your kitchen.</p>
<label>Search <input id="search" placeholder="Search the shop"></label></body></html>""",
    "/new.html": """<html><head><title>New arrivals</title></head><body><h1>New arrivals</h1>
<ul><li><a href="/teapot.html">Green Teapot</a></li></ul></body></html>""",
    "/sale.html": """<html><head><title>Sale</title>
<style>#popup{position:fixed;inset:0;background:rgba(0,0,0,.6);display:flex;align-items:center;justify-content:center}
#popup div{background:#fff;padding:40px;font-size:24px}</style></head><body>
<h1>Sale</h1><ul>
<li><a href="/blue-mug.html">Blue Mug</a></li>
<li><a href="/red-kettle.html">Red Kettle</a></li></ul>
<div id="popup"><div>Subscribe to our newsletter! (press Escape to close)</div></div>
<script>document.addEventListener('keydown', e => { if (e.key === 'Escape') document.getElementById('popup').remove(); });</script>
</body></html>""",
    "/blue-mug.html": """<html><head><title>Blue Mug</title></head><body><h1>Blue Mug</h1>
<p>A sturdy mug, 350 ml.</p><p class="price">Price: $12.99 (was $18.00)</p></body></html>""",
    "/red-kettle.html": """<html><head><title>Red Kettle</title></head><body><h1>Red Kettle</h1>
<p class="price">Price: $39.50</p></body></html>""",
    "/teapot.html": """<html><head><title>Green Teapot</title></head><body><h1>Green Teapot</h1>
<p class="price">Price: $24.00</p></body></html>""",
}


@dataclass
class Shop:
    url: str = ""
    release: threading.Event = field(default_factory=threading.Event)  # lets /slow answer at last
    server: ThreadingHTTPServer | None = field(default=None, repr=False)

    def close(self) -> None:
        self.release.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def start_shop() -> Shop:
    shop = Shop()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if self.path == "/slow":
                shop.release.wait(60)  # never loads within the test's page-load timeout
            body = PAGES.get(self.path, "<html><body>Not found</body></html>").encode()
            self.send_response(200 if self.path in PAGES or self.path == "/slow" else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

    shop.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    shop.server.daemon_threads = True
    shop.url = f"http://127.0.0.1:{shop.server.server_address[1]}"
    threading.Thread(target=shop.server.serve_forever, args=(0.05,), daemon=True).start()
    return shop
