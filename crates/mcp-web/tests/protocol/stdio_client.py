"""Drives `mcp-web serve` over stdio with the official MCP Python SDK client.

Usage: stdio_client.py MCP_WEB_BINARY MODE   (MODE: legacy | auto | 2026-07-28)

Starts a loopback HTTP server (port 0) with a plain page, a slow page that trickles
its body for about a second, and an endless page that records when its client hung
up. Then, in the given protocol mode, checks: tools/list shows web_fetch with its
exact schema and annotations; web_fetch of the page returns its text with
--allow-loopback; without it the call is a tool error naming allow-loopback; progress
arrives for the slow page and once per page of a web_crawl and a web_grep (whose
line numbers are web_fetch's), exactly one per page searched for web_grep;
cancelling a fetch of the endless page stops it (the server sees the connection
closed); cancelling a web_crawl stops it: the page it was fetching is hung up on and
the page after it is never requested. Exits 0 when every check holds; prints what
failed and exits 1 otherwise; exits 2 when the SDK is missing.
"""

import sys

try:
    import importlib.metadata as metadata

    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
except ImportError as error:  # pragma: no cover - environment problem
    print(
        f"the official MCP Python SDK is not importable ({error}); "
        "install it with: python3 -m pip install -r ci/requirements.txt",
        file=sys.stderr,
    )
    sys.exit(2)

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EXPECTED_SDK = "2.3.0"
PAGE_TEXT = "Hello from the loopback page."


class Recorder:
    """What the test server saw."""

    def __init__(self):
        self.endless_started = threading.Event()
        self.endless_closed = threading.Event()
        self.hold_started = threading.Event()
        self.hold_closed = threading.Event()
        self.never_requested = threading.Event()


RECORD = Recorder()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _head(self, length=None):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        if length is None:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(length))
        self.end_headers()

    def _chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def do_GET(self):
        if self.path == "/page":
            body = (
                "<html><head><title>Protocol Test Page</title></head>"
                f"<body><p>{PAGE_TEXT}</p></body></html>"
            ).encode()
            self._head(len(body))
            self.wfile.write(body)
        elif self.path == "/site":
            body = (
                "<html><head><title>Site</title></head><body><main>"
                '<p><a href="/page">the page</a> <a href="/page#again">again</a></p>'
                "</main></body></html>"
            ).encode()
            self._head(len(body))
            self.wfile.write(body)
        elif self.path == "/slow":
            self._head()
            self._chunk(b"<html><head><title>Slow Page</title></head><body>")
            for i in range(5):
                time.sleep(0.2)
                self._chunk(f"<p>slow line {i}</p>".encode())
            self._chunk(b"</body></html>")
            self._chunk(b"")
        elif self.path == "/walk":
            body = (
                "<html><head><title>Walk</title></head><body><main>"
                '<p><a href="/walk/hold">held</a> <a href="/walk/never">never</a></p>'
                "</main></body></html>"
            ).encode()
            self._head(len(body))
            self.wfile.write(body)
        elif self.path == "/walk/hold":
            self._trickle(RECORD.hold_started, RECORD.hold_closed)
        elif self.path == "/walk/never":
            RECORD.never_requested.set()
            self.send_error(404)
        elif self.path == "/endless":
            self._head()
            RECORD.endless_started.set()
            try:
                self._chunk(b"<html><head><title>Endless</title></head><body>")
                for i in range(600):
                    time.sleep(0.05)
                    self._chunk(f"<p>line {i}</p>".encode())
            except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                RECORD.endless_closed.set()
                return
            # Ran for 30 s without the client hanging up.
        else:
            self.send_error(404)

    def _trickle(self, started, closed):
        """An endless body that sets `closed` when the client hangs up."""
        self._head()
        started.set()
        try:
            self._chunk(b"<html><head><title>Held</title></head><body>")
            for i in range(600):
                time.sleep(0.05)
                self._chunk(f"<p>line {i}</p>".encode())
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            closed.set()


FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def server_params(binary, *flags):
    return StdioServerParameters(command=binary, args=["serve", *flags])


async def scenario(binary, mode, base):
    async with Client(server_params(binary, "--allow-loopback"), mode=mode) as client:
        if mode == "legacy":
            check(client.protocol_version == "2025-11-25", f"legacy negotiated {client.protocol_version}")
        else:
            check(client.protocol_version == "2026-07-28", f"{mode} negotiated {client.protocol_version}")

        tools = (await client.list_tools()).tools
        by_name = {tool.name: tool for tool in tools}
        check("web_fetch" in by_name, f"tools/list lacks web_fetch: {sorted(by_name)}")
        fetch = by_name.get("web_fetch")
        if fetch is not None:
            schema = fetch.input_schema
            check(schema.get("type") == "object", f"schema type: {schema}")
            check(list(schema.get("properties", {})) == ["url"], f"web_fetch has exactly one parameter: {schema}")
            check(schema.get("required") == ["url"], f"url is required: {schema}")
            annotations = fetch.annotations
            check(annotations is not None, "web_fetch has annotations")
            if annotations is not None:
                check(annotations.read_only_hint is True, "readOnlyHint")
                check(annotations.idempotent_hint is True, "idempotentHint")
                check(annotations.open_world_hint is True, "openWorldHint")
            description = fetch.description or ""
            check("web_grep" in description, "the description says when to prefer web_grep")
            check("untrusted" in description, "the description says page content is untrusted")

        page = await client.call_tool("web_fetch", {"url": f"{base}/page"})
        text = page.content[0].text if page.content else ""
        check(page.is_error is not True, f"fetching the page failed: {text}")
        check(text.startswith("# Protocol Test Page"), f"the answer opens with the title: {text!r}")
        check(PAGE_TEXT in text, f"the answer holds the page text: {text!r}")

        notes = []

        async def on_progress(progress, total, message):
            notes.append((progress, total, message))

        slow = await client.call_tool("web_fetch", {"url": f"{base}/slow"}, progress_callback=on_progress)
        slow_text = slow.content[0].text if slow.content else ""
        check("slow line 4" in slow_text, f"the slow page arrived whole: {slow_text!r}")
        check(len(notes) >= 2, f"progress notifications arrived: {notes}")
        check(all(b[0] >= a[0] for a, b in zip(notes, notes[1:])), f"progress increases: {notes}")

        crawl_notes = []

        async def on_crawl_progress(progress, total, message):
            crawl_notes.append((progress, total, message))

        index = await client.call_tool(
            "web_crawl", {"url": f"{base}/site", "max-pages": 5}, progress_callback=on_crawl_progress
        )
        index_text = index.content[0].text if index.content else ""
        check(index.is_error is not True, f"crawling the site failed: {index_text}")
        check(
            index_text.startswith(f"Crawled 2 pages from {base}/site (depth 1, same origin only).\n\n"),
            f"the crawl's header: {index_text!r}",
        )
        check(f"{base}/page  200  " in index_text, f"the index lists the linked page: {index_text!r}")
        check(
            sorted(n[0] for n in crawl_notes) == [0, 1, 2] and all(n[1] == 5 for n in crawl_notes),
            f"one progress notification per page, of max-pages: {crawl_notes}",
        )

        grep_notes = []

        async def on_grep_progress(progress, total, message):
            grep_notes.append((progress, total, message))

        found = await client.call_tool(
            "web_grep",
            {"url": f"{base}/site", "pattern": "loopback page", "depth": 1},
            progress_callback=on_grep_progress,
        )
        found_text = found.content[0].text if found.content else ""
        check(found.is_error is not True, f"grepping the site failed: {found_text}")
        fetched = await client.call_tool("web_fetch", {"url": f"{base}/page"})
        page_lines = (fetched.content[0].text if fetched.content else "").split("\n")
        matched = [line for line in found_text.split("\n") if line.startswith(f"{base}/page:")]
        check(len(matched) == 1, f"one line of the page matched: {found_text!r}")
        if matched:
            number, text = matched[0][len(f"{base}/page:"):].split(":", 1)
            check(
                page_lines[int(number) - 1] == text,
                f"the match's line number is web_fetch's: {matched[0]!r} vs {page_lines!r}",
            )
        check(
            [(n[0], n[1]) for n in grep_notes] == [(1, 20), (2, 20)]
            and [n[2] for n in grep_notes]
            == [f"searched {base}/site: 0 matching lines", f"searched {base}/page: 1 matching line"],
            f"one progress notification per page searched: {grep_notes}",
        )

        async with anyio.create_task_group() as group:

            async def crawl_the_walk():
                await client.call_tool("web_crawl", {"url": f"{base}/walk"})
                check(False, "the held crawl returned before it was cancelled")

            group.start_soon(crawl_the_walk)
            started = await anyio.to_thread.run_sync(RECORD.hold_started.wait, 10.0)
            check(started, "the crawl requested the held page")
            group.cancel_scope.cancel()
        hung_up = await anyio.to_thread.run_sync(RECORD.hold_closed.wait, 10.0)
        check(hung_up, "cancelling the crawl hung up on the page it was fetching")
        check(not RECORD.never_requested.is_set(), "no page is requested after the crawl was cancelled")

        with anyio.move_on_after(1.0):
            await client.call_tool("web_fetch", {"url": f"{base}/endless"})
            check(False, "the endless fetch returned before it was cancelled")
        check(RECORD.endless_started.is_set(), "the endless page was requested")
        closed = await anyio.to_thread.run_sync(RECORD.endless_closed.wait, 10.0)
        check(closed, "cancelling the call closed the connection to the endless page")

        after = await client.call_tool("web_fetch", {"url": f"{base}/page"})
        check(after.is_error is not True, "the server keeps serving after a cancellation")

    async with Client(server_params(binary), mode=mode) as client:
        refused = await client.call_tool("web_fetch", {"url": f"{base}/page"})
        text = refused.content[0].text if refused.content else ""
        check(refused.is_error is True, f"without allow-loopback the call is a tool error: {text!r}")
        check("allow-loopback" in text, f"the refusal names allow-loopback: {text!r}")
        data = refused.structured_content or {}
        check(data.get("kind") == "blocked", f"structuredContent.kind: {data}")
        check(data.get("config_key") == "allow-loopback", f"structuredContent.config_key: {data}")
        check(data.get("address") == "127.0.0.1", f"structuredContent.address: {data}")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    binary, mode = sys.argv[1], sys.argv[2]
    version = metadata.version("mcp")
    if version != EXPECTED_SDK:
        print(f"mcp=={EXPECTED_SDK} is required, found {version}: pip install -r ci/requirements.txt", file=sys.stderr)
        sys.exit(2)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        anyio.run(scenario, binary, mode, base)
    finally:
        server.shutdown()
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed in mode {mode}", file=sys.stderr)
        sys.exit(1)
    print(f"all checks passed in mode {mode}")


if __name__ == "__main__":
    main()
