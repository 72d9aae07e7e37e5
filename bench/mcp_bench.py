"""Side-by-side MCP server benchmark over stdio, one raw JSON-RPC client for both.

Usage: mcp_bench.py NAME=COMMAND... (each COMMAND a shell-quoted command line whose
server offers a fetch tool; the tool and its arguments are chosen per NAME below).

Serves one ~100 KB HTML page on 127.0.0.1 (port 0) and, for each server:
- cold start: spawn -> initialize -> tools/list answered, median of COLD_RUNS runs;
- fetch latency: CALLS sequential tools/call of the page in one session, p50 and p90;
- idle RSS: the server's resident set (VmRSS) once tools/list is answered, a second later;
- peak RSS: the server's high-water mark (VmHWM) after one call fetching a 2 MiB HTML
  page, in a fresh session; and the same for 2 MiB of NUL bytes served as HTML.
Prints Markdown tables and the ratios of every server to the first one.
"""

import json
import shlex
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COLD_RUNS = 10
CALLS = 50

PARAGRAPH = (
    "<p>The quick brown fox jumps over the lazy dog while the benchmark measures how long "
    "an MCP server takes to fetch, extract and answer with a page of plain text. {i}</p>\n"
)
PAGE = (
    "<!doctype html><html><head><title>Benchmark Page</title>"
    "<script>var ignored = 1;</script></head><body><nav>menu</nav><main>\n"
    + "".join(PARAGRAPH.format(i=i) for i in range(600))
    + "</main></body></html>\n"
).encode()


BIG_PAGE = (
    "<!doctype html><html><head><title>Big Page</title></head><body><main>\n"
    + "".join(PARAGRAPH.format(i=i) for i in range(12_000))
)[: 2 * 1024 * 1024 - len("</main></body></html>\n")].encode() + b"</main></body></html>\n"
NUL_PAGE = b"\0" * (2 * 1024 * 1024)
PAGES = {"/page.html": PAGE, "/big.html": BIG_PAGE, "/nul.html": NUL_PAGE}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = PAGES.get(self.path)
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Session:
    """A server process spoken to with newline-delimited JSON-RPC."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"server closed its output during {method}")
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def initialize(self):
        self.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def tool_call(name, url):
    """The fetch tool of each server, asked for the same amount of text."""
    if name.startswith("mcp-server-fetch"):
        return "fetch", {"url": url, "max_length": 40000}
    return "web_fetch", {"url": url}


def status_kib(pid, field):
    """A `kB` field of /proc/PID/status, in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} for {pid}")


def peak_after_call(name, argv, url):
    """The server's VmHWM after one call of its fetch tool on `url`, in a fresh session."""
    session = Session(argv)
    session.initialize()
    tool, arguments = tool_call(name, url)
    session.request("tools/call", {"name": tool, "arguments": arguments})
    peak = status_kib(session.proc.pid, "VmHWM")
    session.close()
    return peak


def measure(name, argv, url):
    cold = []
    for _ in range(COLD_RUNS):
        start = time.perf_counter()
        session = Session(argv)
        session.initialize()
        tools = session.request("tools/list")["tools"]
        cold.append(time.perf_counter() - start)
        session.close()
    tool, arguments = tool_call(name, url)
    assert any(t["name"] == tool for t in tools), f"{name} offers no {tool}"
    session = Session(argv)
    session.initialize()
    first = session.request("tools/call", {"name": tool, "arguments": arguments})
    text = first["content"][0]["text"]
    assert not first.get("isError"), f"{name}: {text[:300]}"
    assert "quick brown fox" in text, f"{name} did not return the page: {text[:300]}"
    latencies = []
    for _ in range(CALLS):
        start = time.perf_counter()
        session.request("tools/call", {"name": tool, "arguments": arguments})
        latencies.append(time.perf_counter() - start)
    session.close()
    latencies.sort()
    session = Session(argv)
    session.initialize()
    session.request("tools/list")
    time.sleep(1)
    idle = status_kib(session.proc.pid, "VmRSS")
    session.close()
    base = url.rsplit("/", 1)[0]
    return {
        "idle_kib": idle,
        "peak_big_kib": peak_after_call(name, argv, base + "/big.html"),
        "peak_nul_kib": peak_after_call(name, argv, base + "/nul.html"),
        "cold_ms": statistics.median(cold) * 1000,
        "p50_ms": statistics.median(latencies) * 1000,
        "p90_ms": latencies[int(len(latencies) * 0.9) - 1] * 1000,
        "chars": len(text),
    }


def main():
    servers = [arg.split("=", 1) for arg in sys.argv[1:]]
    if len(servers) < 2 or any(len(s) != 2 for s in servers):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    http.daemon_threads = True
    threading.Thread(target=http.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{http.server_address[1]}/page.html"
    results = [(name, measure(name, shlex.split(command), url)) for name, command in servers]
    http.shutdown()
    print(f"Page: {len(PAGE)} bytes of HTML on 127.0.0.1; cold start = median of {COLD_RUNS}; "
          f"fetch = {CALLS} sequential calls in one session.\n")
    print("| server | cold start (spawn → tools/list) | fetch p50 | fetch p90 | answer chars |")
    print("|---|---|---|---|---|")
    for name, r in results:
        print(f"| {name} | {r['cold_ms']:.1f} ms | {r['p50_ms']:.2f} ms | {r['p90_ms']:.2f} ms | {r['chars']} |")
    print()
    print("| server | idle RSS | peak RSS, 2 MiB HTML page | peak RSS, 2 MiB of NUL bytes |")
    print("|---|---|---|---|")
    for name, r in results:
        print(f"| {name} | {r['idle_kib'] / 1024:.1f} MiB | {r['peak_big_kib'] / 1024:.1f} MiB "
              f"| {r['peak_nul_kib'] / 1024:.1f} MiB |")
    base_name, base = results[0]
    print()
    for name, r in results[1:]:
        print(f"{base_name} / {name}: cold start {base['cold_ms'] / r['cold_ms']:.3f} "
              f"(1/{r['cold_ms'] / base['cold_ms']:.1f}), fetch p50 {base['p50_ms'] / r['p50_ms']:.3f} "
              f"(1/{r['p50_ms'] / base['p50_ms']:.1f}), idle RSS {base['idle_kib'] / r['idle_kib']:.3f}, "
              f"peak RSS on the 2 MiB page {base['peak_big_kib'] / r['peak_big_kib']:.3f}")


if __name__ == "__main__":
    main()
