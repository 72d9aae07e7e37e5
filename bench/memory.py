"""Memory per hostile call (not a test): the server's peak RSS growth, one kind at a time.

Usage: memory.py MCP_WEB_BINARY [KIND ...] [--at-once N ...]

KIND is `crawl`, `grep`, `pdf`, `fetch` or `dense` (default: all five): the hostile calls of
`load.py` (a `web_crawl` at depth 2 (max-pages 20) of 2 MB pages that each link to 70,000
others, a `web_grep` of `[a-z]{1,2000}[0-9]` over 2 MB of letters, a `web_fetch` of a 1 MB
PDF naming one stream 150,000 times), a `web_fetch` of one of the crawl's pages (`fetch`,
cut at the elements `max-bytes` lets a page build), and `dense`, a `web_fetch` of a page of
16,300 links, just under that count, which goes through content selection. For each kind and each N (default 1 and 4), a fresh
`MCP_WEB_BINARY serve --http` is started, its resident memory read once idle (VmRSS), then
N calls of that kind are sent at once, and its peak (VmHWM) read after they answer. Prints
the growth (peak − idle) in MiB, per call and in units of `max-bytes` (2 MiB by default).
The hostile site runs in a process of its own at nice 10, as in `load.py`. The PDF reader
is a child process of the server's, whose memory is not counted here (its own limits
apply to it).
"""

import multiprocessing
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load  # noqa: E402 - the hostile site and calls are load.py's

MAX_BYTES = 2 * 1024 * 1024
KINDS = {"pdf": 0, "grep": 1, "crawl": 2, "fetch": "/fan", "dense": "/dense"}


def kib(pid, field):
    return int(load.status(pid)[field].split()[0])


def measure(binary, kind, at_once, hostile_site):
    server, port = load.start_server(binary)
    try:
        time.sleep(0.2)
        idle = kib(server.pid, "VmRSS")
        headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
        answers = [None] * at_once
        started = time.perf_counter()

        def one(i):
            if isinstance(KINDS[kind], str):
                tool, args = "web_fetch", {"url": f"{hostile_site}{KINDS[kind]}"}
            else:
                tool, args = load.hostile_call(KINDS[kind], hostile_site)
            body = {
                "jsonrpc": "2.0",
                "id": i + 1,
                "method": "tools/call",
                "params": {"name": tool, "arguments": args, "_meta": load.ENVELOPE},
            }
            code, answer, _ = load.post(port, body, {**headers, "Mcp-Name": tool})
            result = (answer or {}).get("result") or {}
            text = "".join(c.get("text", "") for c in result.get("content", []))
            answers[i] = (code, result.get("isError"), text.splitlines()[0][:90] if text else "")

        threads = [threading.Thread(target=one, args=(i,)) for i in range(at_once)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - started
        peak = kib(server.pid, "VmHWM")
        return idle, peak, seconds, answers
    finally:
        server.terminate()
        server.wait()


def main():
    args = sys.argv[1:]
    binary = args.pop(0)
    counts = []
    kinds = []
    while args:
        arg = args.pop(0)
        if arg == "--at-once":
            counts.append(int(args.pop(0)))
        else:
            kinds.append(arg)
    kinds = kinds or list(KINDS)
    counts = counts or [1, 4]
    hostile_port = multiprocessing.Queue()
    host = multiprocessing.Process(target=load.serve_hostile, args=(hostile_port,), daemon=True)
    host.start()
    site = f"http://127.0.0.1:{hostile_port.get()}"
    print("| kind | calls at once | idle RSS | peak RSS | growth | per call | per call / max-bytes | seconds | load average | first answer line |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    try:
        for kind in kinds:
            for n in counts:
                idle, peak, seconds, answers = measure(binary, kind, n, site)
                growth = (peak - idle) / 1024
                load_avg = " ".join(f"{x:.1f}" for x in os.getloadavg())
                print(
                    f"| {kind} | {n} | {idle / 1024:.1f} MiB | {peak / 1024:.1f} MiB | {growth:.1f} MiB "
                    f"| {growth / n:.1f} MiB | {growth * 1024 * 1024 / n / MAX_BYTES:.1f} | {seconds:.1f} "
                    f"| {load_avg} | {answers[0][2]!r} |",
                    flush=True,
                )
    finally:
        host.terminate()


if __name__ == "__main__":
    main()
