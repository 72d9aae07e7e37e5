"""Load driver (not a test): CALLS concurrent tools/call over `mcp-web serve --http`.

Usage: load.py MCP_WEB_BINARY [CALLS]

Serves a small local site on 127.0.0.1 (port 0): a home page linking to 20 pages of
about 20 KB each. Starts `MCP_WEB_BINARY serve --http 127.0.0.1:PORT --allow-loopback
--crawl-delay 0`, then for each era (legacy: one initialize session shared by every
call; 2026-07-28: stateless, the per-request envelope) sends CALLS calls at once, half
web_fetch of a page and half web_grep of the site at depth 1, each over its own
connection. Reports per era: errors (HTTP status not 200, JSON-RPC error, or isError),
latency p50 and p99, the server's peak RSS (VmHWM) and its open fds before and after.
Prints a Markdown table.
"""

import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGES = 20
PARAGRAPH = "<p>Paragraph {i} of page {n}: the load driver reads this text, needle {n}.</p>\n"


def page(n):
    links = "".join(f'<a href="/p{k}">page {k}</a> ' for k in range(PAGES)) if n < 0 else ""
    body = "".join(PARAGRAPH.format(i=i, n=n) for i in range(200))
    return (
        f"<!doctype html><html><head><title>Page {n}</title></head><body><main>{links}\n"
        f"{body}</main></body></html>\n"
    ).encode()


SITE = {"/": page(-1), **{f"/p{k}": page(k) for k in range(PAGES)}}


class Site(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = SITE.get(self.path)
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "load", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def post(port, body, headers):
    """One POST over its own connection; returns (HTTP status, the JSON-RPC answer or None)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        conn.request(
            "POST",
            "/mcp",
            body=json.dumps(body),
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **headers,
            },
        )
        response = conn.getresponse()
        text = response.read().decode("utf-8", "replace")
        session = response.getheader("Mcp-Session-Id")
        answer = None
        if text.lstrip().startswith("{"):
            answer = json.loads(text)
        else:
            for line in text.splitlines():
                if line.startswith("data:") and line[5:].strip():
                    message = json.loads(line[5:])
                    if "method" not in message and message.get("id") == body.get("id"):
                        answer = message
        return response.status, answer, session
    finally:
        conn.close()


def run_era(era, port, site, calls):
    headers = {}
    if era == "legacy":
        status_code, answer, session = post(
            port,
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "load", "version": "1"}}},
            {},
        )
        assert status_code == 200 and session, (status_code, answer)
        headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
        post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    else:
        headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}

    results = [None] * calls
    barrier = threading.Barrier(calls)

    def one(i):
        if i % 2 == 0:
            tool, args = "web_fetch", {"url": f"{site}/p{i % PAGES}"}
        else:
            tool, args = "web_grep", {"url": f"{site}/", "pattern": f"needle {i % PAGES}.", "depth": 1}
        params = {"name": tool, "arguments": args}
        call_headers = dict(headers)
        if era != "legacy":
            params["_meta"] = ENVELOPE
            call_headers["Mcp-Name"] = tool
        body = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": params}
        barrier.wait()
        start = time.perf_counter()
        try:
            code, answer, _ = post(port, body, call_headers)
            ok = (
                code == 200
                and answer is not None
                and "result" in answer
                and not answer["result"].get("isError")
            )
            why = None if ok else f"{code} {json.dumps(answer)[:200]}"
        except Exception as error:  # noqa: BLE001 - a load driver counts every failure
            ok, why = False, repr(error)
        results[i] = (time.perf_counter() - start, ok, why)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    latencies = sorted(r[0] * 1000 for r in results)
    errors = [r[2] for r in results if not r[1]]
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return statistics.median(latencies), p99, errors


def main():
    binary = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{httpd.server_address[1]}"
    port = free_port()
    server = subprocess.Popen(
        [binary, "serve", "--http", f"127.0.0.1:{port}", "--allow-loopback", "--crawl-delay", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        rows = []
        for era in ["legacy", "2026-07-28"]:
            before = fds(server.pid)
            p50, p99, errors = run_era(era, port, site, calls)
            time.sleep(1)  # let closed connections be reaped before counting fds
            after = fds(server.pid)
            hwm = status(server.pid)["VmHWM"]
            rows.append((era, calls, len(errors), p50, p99, hwm, before, after))
            for why in errors[:5]:
                print(f"  {era} error: {why}", file=sys.stderr)
        print("| era | calls | errors | p50 | p99 | peak RSS (VmHWM) | fds before | fds after |")
        print("|---|---|---|---|---|---|---|---|")
        for era, n, errs, p50, p99, hwm, before, after in rows:
            print(f"| {era} | {n} | {errs} | {p50:.1f} ms | {p99:.1f} ms | {hwm} | {before} | {after} |")
    finally:
        server.terminate()
        server.wait()
        httpd.shutdown()


if __name__ == "__main__":
    main()
