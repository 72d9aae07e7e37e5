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

Each era runs twice: the calls alone, then the same calls released together with hostile
ones (HOSTILE of them, 12 by default, a third each): a `web_fetch` of a PDF whose one page
names the same content stream 150,000 times (gigabytes once decoded), a `web_grep` of a
2 MB page of letters with the pattern `[a-z]{1,2000}[0-9]` (a lazy DFA's worst case), and a
`web_crawl` at depth 2 of pages that each link to 70,000 others. The hostile calls are
expected to fail or be cut; what is measured is the other calls' latency beside them
(their p99 with the hostile calls against without, as a ratio). The hostile pages come
from a site of their own, in a process of its own at nice 10: in use they are another
host's, so serving them must not slow the site the good calls read (one Python process
serving both made the good calls wait on its lock) nor take this machine's cores from
the server measured.
"""

import http.client
import json
import multiprocessing
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


def pdf_bomb(references=150_000):
    """A PDF whose one page names one Flate stream `references` times in its /Contents."""
    import zlib

    content = zlib.compress(b"BT /F1 12 Tf 72 712 Td (" + b"A" * 4000 + b") Tj ET\n" * 4)
    refs = b" ".join(b"4 0 R" for _ in range(references))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [" + refs
        + b"] /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(content)).encode() + b" /Filter /FlateDecode >>\nstream\n"
        + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


FAN = 70_000
FAN_PAGE = (
    "<!doctype html><html><head><title>Fan</title></head><body><main><p>Many links.</p>"
    + "".join(f'<a href="/fan/{k}">{k}</a>' for k in range(FAN))
    + "</main></body></html>"
).encode()
# A page of links just under the elements the default max-bytes lets a page build (16,384):
# it goes through content selection (bench/memory.py's `dense`).
DENSE = 16_300
DENSE_PAGE = (
    "<!doctype html><html><head><title>Dense</title></head><body><main><p>Many links.</p>"
    + "".join(f'<a href="/fan/{k}">{k}</a>' for k in range(DENSE))
    + "</main></body></html>"
).encode()
LETTERS = ("abcdefghij" * 10 + "\n").encode() * 20_000  # 2 MB, no digit anywhere

SITE = {
    "/": page(-1),
    **{f"/p{k}": page(k) for k in range(PAGES)},
    "/bomb.pdf": pdf_bomb(),
    "/letters.txt": LETTERS,
    "/dense": DENSE_PAGE,
}
TYPES = {"/bomb.pdf": "application/pdf", "/letters.txt": "text/plain; charset=utf-8"}


class Site(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = SITE.get(self.path)
        if self.path == "/fan" or self.path.startswith("/fan/"):
            body = FAN_PAGE
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", TYPES.get(self.path, "text/html; charset=utf-8"))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading at its byte cap, as it should


class SiteServer(ThreadingHTTPServer):
    """The site's server, with a listen queue deep enough for the calls released at once:
    the default of 5 drops SYNs under 200 fetches at once, and each dropped SYN costs its
    fetch a retransmission (1 s, then 3 s, 7 s…), which is the driver's noise, not the
    server's latency."""

    request_queue_size = 1024


def serve_hostile(port_out):
    """Serves the site from a process of its own at a lower priority (the hostile host)."""
    os.nice(10)
    httpd = SiteServer(("127.0.0.1", 0), Site)
    httpd.daemon_threads = True
    port_out.put(httpd.server_address[1])
    httpd.serve_forever()


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


def hostile_call(i, site):
    """The i-th hostile call: a PDF bomb, a pathological pattern or a fan-out crawl."""
    kind = i % 3
    if kind == 0:
        return "web_fetch", {"url": f"{site}/bomb.pdf"}
    if kind == 1:
        return "web_grep", {"url": f"{site}/letters.txt", "pattern": "[a-z]{1,2000}[0-9]", "regex": True}
    return "web_crawl", {"url": f"{site}/fan", "depth": 2, "max-pages": 20}


def run_era(era, port, site, calls, hostile=0, hostile_site=None):
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

    results = [None] * (calls + hostile)
    barrier = threading.Barrier(calls + hostile)

    def one(i):
        if i >= calls:
            tool, args = hostile_call(i - calls, hostile_site or site)
        elif i % 2 == 0:
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

    threads = [threading.Thread(target=one, args=(i,)) for i in range(calls + hostile)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    good = results[:calls]
    latencies = sorted(r[0] * 1000 for r in good)
    errors = [r[2] for r in good if not r[1]]
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    hostile_slowest = max((r[0] * 1000 for r in results[calls:]), default=0.0)
    return statistics.median(latencies), p99, errors, hostile_slowest


def start_server(binary):
    """Starts `binary serve --http` on a free loopback port; returns it and the port once it listens."""
    port = free_port()
    server = subprocess.Popen(
        [binary, "serve", "--http", f"127.0.0.1:{port}", "--allow-loopback", "--crawl-delay", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    return server, port


def main():
    binary = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    hostile = int(os.environ.get("HOSTILE", "12"))
    httpd = SiteServer(("127.0.0.1", 0), Site)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{httpd.server_address[1]}"
    hostile_port = multiprocessing.Queue()
    hostile_host = multiprocessing.Process(target=serve_hostile, args=(hostile_port,), daemon=True)
    hostile_host.start()
    hostile_site = f"http://127.0.0.1:{hostile_port.get()}"
    server, port = start_server(binary)
    try:
        rows = []
        ratios = []
        for era in ["legacy", "2026-07-28"]:
            alone = None
            for extra in ([0, hostile] if hostile else [0]):
                before = fds(server.pid)
                p50, p99, errors, slowest = run_era(era, port, site, calls, extra, hostile_site)
                time.sleep(1)  # let closed connections be reaped before counting fds
                after = fds(server.pid)
                hwm = status(server.pid)["VmHWM"]
                mix = "alone" if extra == 0 else f"+ {extra} hostile (slowest {slowest:.0f} ms)"
                rows.append((era, mix, calls, len(errors), p50, p99, hwm, before, after))
                if extra == 0:
                    alone = p99
                else:
                    ratios.append((era, p99 / alone))
                for why in errors[:5]:
                    print(f"  {era} error: {why}", file=sys.stderr)
        print("| era | calls | beside | errors | p50 | p99 | peak RSS (VmHWM) | fds before | fds after |")
        print("|---|---|---|---|---|---|---|---|---|")
        for era, mix, n, errs, p50, p99, hwm, before, after in rows:
            print(f"| {era} | {n} | {mix} | {errs} | {p50:.1f} ms | {p99:.1f} ms | {hwm} | {before} | {after} |")
        for era, ratio in ratios:
            print(f"{era}: the calls' p99 beside the hostile ones / alone = {ratio:.2f} (target <= 2)")
    finally:
        server.terminate()
        server.wait()
        httpd.shutdown()
        hostile_host.terminate()


if __name__ == "__main__":
    main()
