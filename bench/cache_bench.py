"""The HTTP cache over `mcp-web serve` (stdio, one raw JSON-RPC client), cache on and off.

Usage: cache_bench.py MCP_WEB [PAGES]

Serves, on 127.0.0.1 (port 0), from memory, counting every request:
- the generated site of bench/crawl.sh (PAGES pages, default 1,000: a tree of five links
  per page, each page also linking home), every page with `Last-Modified` a week ago and
  nothing else about caching (as a static file server sends), answering `304` to a
  matching `If-Modified-Since`;
- /bench/page.html, a ~100 KB page fresh for an hour (`Cache-Control: max-age=3600`).

For each of `cache-bytes` 64 MiB (the default) and 0, in a new server:
1. the agent's sequence: web_crawl of the site (depth 5, max-pages PAGES), web_grep of
   the same site at the same depth for the text of the last page, web_fetch of the page
   that matched: requests made per call, 304s among them, and wall time per call;
2. web_fetch of /bench/page.html CALLS times in one session: p50 and p90 latency.
Prints Markdown tables.
"""

import json
import statistics
import subprocess
import sys
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CALLS = 50
WEEK_AGO = formatdate(time.time() - 7 * 24 * 3600, usegmt=True)

PARAGRAPH = (
    "<p>The quick brown fox jumps over the lazy dog while the benchmark measures how long "
    "an MCP server takes to fetch, extract and answer with a page of plain text. {i}</p>\n"
)
PAGE = (
    "<!doctype html><html><head><title>Benchmark Page</title></head><body><main>\n"
    + "".join(PARAGRAPH.format(i=i) for i in range(600))
    + "</main></body></html>\n"
).encode()


def site(pages):
    """The pages of bench/crawl.sh's site, by path."""
    para = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 12 + "</p>"
    out = {}
    for n in range(pages):
        links = "".join(
            f'<li><a href="/p/{c}.html">Page {c}</a></li>'
            for c in range(5 * n + 1, 5 * n + 6)
            if c < pages
        )
        html = (
            f"<!doctype html><html><head><title>Page {n}</title></head><body>"
            f'<nav><a href="/">Home</a></nav><main><h1>Page {n}</h1>{para}{para}'
            f"<ul>{links}</ul></main></body></html>"
        )
        out["/" if n == 0 else f"/p/{n}.html"] = html.encode()
    return out


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = 0
        self.not_modified = 0

    def take(self):
        with self.lock:
            taken = (self.requests, self.not_modified)
            self.requests = self.not_modified = 0
            return taken


def serve(pages):
    counter = Counter()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Head and body leave in one write (flushed after each request): written apart on a
        # kept-alive connection, the body waits for the head's delayed ACK (Nagle), 40 ms.
        wbufsize = 1 << 16

        def log_message(self, *args):
            pass

        def do_GET(self):
            with counter.lock:
                counter.requests += 1
            if self.path == "/bench/page.html":
                self.answer(PAGE, [("Cache-Control", "max-age=3600")])
                return
            body = pages.get(self.path)
            if body is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if self.headers.get("If-Modified-Since") == WEEK_AGO:
                with counter.lock:
                    counter.not_modified += 1
                self.send_response(304)
                self.send_header("Last-Modified", WEEK_AGO)
                self.end_headers()
                return
            self.answer(body, [("Last-Modified", WEEK_AGO)])

        def answer(self, body, headers):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, counter


class Session:
    """One `mcp-web serve` over stdio."""

    def __init__(self, command):
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "cache-bench", "version": "0"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                return message

    def call(self, tool, arguments):
        started = time.perf_counter()
        answer = self.request("tools/call", {"name": tool, "arguments": arguments})
        took = time.perf_counter() - started
        result = answer.get("result", {})
        if result.get("isError"):
            raise RuntimeError(f"{tool}: {result}")
        text = "".join(c.get("text", "") for c in result.get("content", []))
        return text, took

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def main():
    mcp_web = sys.argv[1]
    pages = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    server, counter = serve(site(pages))
    base = f"http://127.0.0.1:{server.server_address[1]}"
    rows, latency = [], []
    for label, cache_bytes in [("cache on (64 MiB)", 64 << 20), ("cache off (0)", 0)]:
        session = Session(
            [mcp_web, "serve", "--allow-loopback", "--crawl-delay", "0",
             "--cache-bytes", str(cache_bytes)]
        )
        counter.take()
        # The tools walk at most 200 pages a call.
        walk = {"url": base + "/", "depth": 5, "max-pages": min(pages, 200)}
        last = f"Page {walk['max-pages'] - 1}"
        index, crawl_s = session.call("web_crawl", walk)
        crawl_n = counter.take()
        lines, grep_s = session.call("web_grep", dict(walk, pattern=last))
        grep_n = counter.take()
        # url:line:text, the URL being http://127.0.0.1:PORT/…
        matched = ":".join(lines.split("\n")[0].split(":")[:3])
        _, fetch_s = session.call("web_fetch", {"url": matched})
        fetch_n = counter.take()
        total = sum(n for n, _ in (crawl_n, grep_n, fetch_n))
        cached_lines = index.count("(cached)")
        rows.append(
            f"| {label} | {crawl_n[0]} ({crawl_n[1]} 304) / {crawl_s:.2f} s "
            f"| {grep_n[0]} ({grep_n[1]} 304) / {grep_s:.2f} s "
            f"| {fetch_n[0]} ({fetch_n[1]} 304) / {fetch_s * 1000:.1f} ms "
            f"| {total} / {crawl_s + grep_s + fetch_s:.2f} s | {cached_lines} |"
        )
        times = []
        for _ in range(CALLS):
            _, took = session.call("web_fetch", {"url": base + "/bench/page.html"})
            times.append(took * 1000)
        times.sort()
        requests, _ = counter.take()
        latency.append(
            f"| {label} | {statistics.median(times):.2f} | {times[int(0.9 * len(times)) - 1]:.2f} "
            f"| {requests} |"
        )
        session.close()
    print(f"crawl -> grep -> fetch on the {pages}-page site (depth 5, crawl-delay 0); "
          "requests (of which 304) / wall time:\n")
    print("| server | web_crawl | web_grep (same depth) | web_fetch (the match) | total | index lines (cached) |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nweb_fetch of one ~100 KB page (max-age=3600), {CALLS} calls in one session:\n")
    print("| server | p50 ms | p90 ms | requests made |")
    print("|---|---|---|---|")
    print("\n".join(latency))
    server.shutdown()


if __name__ == "__main__":
    main()
