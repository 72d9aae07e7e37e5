"""Drives `mcp-web serve --ask-permission` over stdio with the official MCP Python SDK
client, asking for a loopback page the default policy refuses.

Usage: permission_client.py MCP_WEB_BINARY MODE   (MODE: legacy | auto | 2026-07-28)

Starts a loopback HTTP server (port 0) that counts the requests for each path. Then,
in the given protocol mode, checks: a client whose elicitation callback answers
`allow once` is asked once (a message naming the tool, the host, the address, the
class, its RFC and the key that permits it for good; a form with one required field
`decision`, choices `allow once` and `deny`) and gets the page; the next call is asked
again (the grant did not carry over) and, declined, gets the original refusal while
the server records no request; a callback that answers `deny` gets the same refusal;
a client without the elicitation capability gets the refusal text of a server without
ask-permission, never a form; before 2026-07-28, an elicitation the client answers with
an error is the same refusal. In the 2026-07-28 era the client drives the retry
itself: a tampered or replayed requestState is refused with a JSON-RPC error and the
page is not fetched. Exits 0 when every check holds; 1 otherwise; 2 when the SDK is
missing.
"""

import sys

try:
    import importlib.metadata as metadata

    import anyio
    from mcp import Client, types
    from mcp.client.stdio import StdioServerParameters
except ImportError as error:  # pragma: no cover - environment problem
    print(
        f"the official MCP Python SDK is not importable ({error}); "
        "install it with: python3 -m pip install -r ci/requirements.txt",
        file=sys.stderr,
    )
    sys.exit(2)

import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EXPECTED_SDK = "2.3.0"
PAGE_TEXT = "The intranet wiki's front page."
HITS = Counter()
HITS_LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        with HITS_LOCK:
            HITS[self.path] += 1
        body = f"<html><head><title>Wiki</title></head><body><p>{PAGE_TEXT}</p></body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def hits(path):
    with HITS_LOCK:
        return HITS[path]


FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def server_params(binary, *flags):
    return StdioServerParameters(command=binary, args=["serve", *flags])


def text_of(result):
    return result.content[0].text if result.content else ""


class Answers:
    """An elicitation callback that answers with the next of `decisions` and keeps what it was asked."""

    def __init__(self, *decisions):
        self.decisions = list(decisions)
        self.asked = []

    async def __call__(self, context, params):
        self.asked.append(params)
        decision = self.decisions.pop(0) if self.decisions else "decline"
        if decision in ("decline", "cancel"):
            return types.ElicitResult(action=decision)
        return types.ElicitResult(action="accept", content={"decision": decision})


async def refusal_without_ask_permission(binary, mode, url):
    async with Client(server_params(binary), mode=mode) as client:
        refused = await client.call_tool("web_fetch", {"url": url})
        check(refused.is_error is True, f"the default policy refuses {url}")
        return text_of(refused)


async def scenario(binary, mode, base):
    port = base.rsplit(":", 1)[1]
    original = await refusal_without_ask_permission(binary, mode, f"{base}/page")
    check("allow-loopback" in original, f"the refusal names allow-loopback: {original!r}")

    answers = Answers("allow once", "decline", "deny")
    async with Client(server_params(binary, "--ask-permission"), mode=mode, elicitation_callback=answers) as client:
        fetched = await client.call_tool("web_fetch", {"url": f"{base}/page"})
        check(fetched.is_error is not True, f"allowed once, the page is fetched: {text_of(fetched)!r}")
        check(PAGE_TEXT in text_of(fetched), f"the page's text: {text_of(fetched)!r}")
        check(hits("/page") == 1, f"the page was requested once: {dict(HITS)}")
        check(len(answers.asked) == 1, f"asked once: {answers.asked}")
        if answers.asked:
            asked = answers.asked[0]
            message = asked.message
            for part in ("web_fetch", "127.0.0.1", f"port {port}", "loopback address", "RFC", '"allow-loopback": true'):
                check(part in message, f"the message names {part!r}: {message!r}")
            schema = asked.requested_schema
            check(schema.get("required") == ["decision"], f"one required field, decision: {schema}")
            props = schema.get("properties", {})
            check(list(props) == ["decision"], f"the form has one field: {schema}")
            check(props.get("decision", {}).get("enum") == ["allow once", "deny"], f"its choices: {schema}")

        # The grant belonged to that call: the next one is asked again, and declined.
        declined = await client.call_tool("web_fetch", {"url": f"{base}/canary"})
        check(len(answers.asked) == 2, f"the next call is asked again: {len(answers.asked)} asks")
        check(declined.is_error is True, "declined, the call is refused")
        check(
            text_of(declined) == original.replace("/page", "/canary"),
            f"declined, the refusal is the original one: {text_of(declined)!r} vs {original!r}",
        )
        check(hits("/canary") == 0, f"declined, the canary saw no request: {dict(HITS)}")

        denied = await client.call_tool("web_fetch", {"url": f"{base}/canary"})
        check(len(answers.asked) == 3, "a third call is asked too")
        check(text_of(denied) == text_of(declined), f"'deny' is the original refusal: {text_of(denied)!r}")
        check(hits("/canary") == 0, f"denied, the canary saw no request: {dict(HITS)}")

        if mode != "legacy":
            async with Client(server_params(binary, "--ask-permission"), mode=mode, elicitation_callback=answers) as other:
                asked = await other.session.call_tool("web_fetch", {"url": f"{base}/canary"}, allow_input_required=True)
                foreign = getattr(asked, "request_state", None) or ""
            await tampered_and_replayed(client, base, foreign)

    if mode == "legacy":
        async def fails(context, params):
            return types.ErrorData(code=types.INVALID_REQUEST, message="the user closed the window")

        async with Client(server_params(binary, "--ask-permission"), mode=mode, elicitation_callback=fails) as client:
            failed = await client.call_tool("web_fetch", {"url": f"{base}/canary"})
            check(
                text_of(failed) == original.replace("/page", "/canary"),
                f"an elicitation the client fails is the original refusal: {text_of(failed)!r}",
            )
            check(hits("/canary") == 0, f"and nothing was fetched: {dict(HITS)}")

    async with Client(server_params(binary, "--ask-permission"), mode=mode) as client:
        unasked = await client.call_tool("web_fetch", {"url": f"{base}/page"})
        check(unasked.is_error is True, "a client that cannot be asked is refused")
        check(text_of(unasked) == original, f"with the unchanged text: {text_of(unasked)!r} vs {original!r}")
        check(hits("/page") == 1, f"and nothing was fetched: {dict(HITS)}")


async def tampered_and_replayed(client, base, foreign):
    args = {"url": f"{base}/canary"}
    allow = {"permission": types.ElicitResult(action="accept", content={"decision": "allow once"})}
    first = await client.session.call_tool("web_fetch", args, allow_input_required=True)
    state = getattr(first, "request_state", None)
    check(isinstance(first, types.InputRequiredResult) and state, f"an InputRequiredResult with a state: {first!r}")
    if not state:
        return
    tampered = state[:-1] + ("0" if state[-1] != "0" else "1")
    for what, bad in (("tampered", tampered), ("foreign", foreign)):
        try:
            result = await client.session.call_tool(
                "web_fetch", args, input_responses=allow, request_state=bad, allow_input_required=True
            )
            check(False, f"a {what} requestState was answered: {result!r}")
        except Exception as error:  # the SDK raises the JSON-RPC error
            check("Invalid or expired requestState" in str(error), f"a {what} state's error: {error!r}")
    check(hits("/canary") == 0, f"no fetch on a bad state: {dict(HITS)}")
    granted = await client.session.call_tool(
        "web_fetch", args, input_responses=allow, request_state=state, allow_input_required=True
    )
    check(getattr(granted, "is_error", True) is not True, f"the genuine state is granted: {granted!r}")
    check(hits("/canary") == 1, f"the granted call fetched once: {dict(HITS)}")
    try:
        replay = await client.session.call_tool(
            "web_fetch", args, input_responses=allow, request_state=state, allow_input_required=True
        )
        check(False, f"a replayed requestState was answered: {replay!r}")
    except Exception as error:
        check("Invalid or expired requestState" in str(error), f"a replayed state's error: {error!r}")
    check(hits("/canary") == 1, f"the replay fetched nothing: {dict(HITS)}")


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
