"""slipway mcp framing over raw JSON-RPC: JSON whitespace around a message,
bytes that are not JSON, valid JSON the server cannot hold (\\u0000, integers
past 64 bits), requests before initialize, a stdout that cannot be
written, and a message over the limit at the end of input."""

import json
import os
import subprocess

from slipway_e2e import BIN, main, scratch_repo
from test_mcp import init, msg, raw

PING = msg(id=99, method="ping")
PONG = {"jsonrpc": "2.0", "id": 99, "result": {}}
BIG = 2 ** 63


def line(text):
    return text.encode() + b"\n" if isinstance(text, str) else text + b"\n"


def one_reply(repo, data):
    """The reply to `data` sent after initialize, then a ping: the server
    answers `data` once and keeps serving."""
    replies, _ = raw(repo, init() + data + PING)
    assert len(replies) == 3, (data, replies)
    assert replies[2] == PONG, (data, replies)
    return replies[1]


def test_json_whitespace_around_a_message_is_accepted():
    repo = scratch_repo()
    body = b'{"jsonrpc":"2.0","id":7,"method":"ping"}'
    for before, after in ((b" ", b""), (b"\t\t", b""), (b"\r", b""), (b" \t\r ", b" \t\r"),
                          (b"", b"\r"), (b"", b"  ")):
        reply = one_reply(repo, before + body + after + b"\n")
        assert reply == {"jsonrpc": "2.0", "id": 7, "result": {}}, (before, after, reply)
    # Blank lines are no messages; the last message may end without a newline.
    replies, _ = raw(repo, b" \t\r\n\n" + PING + b"  " + body + b" \r")
    assert replies == [PONG, {"jsonrpc": "2.0", "id": 7, "result": {}}], replies


def test_bytes_that_are_not_json_are_a_parse_error_and_never_dropped():
    repo = scratch_repo()
    body = b'{"jsonrpc":"2.0","id":7,"method":"ping"}'
    for data in (b"\x00" + body, body + b"\x00", b"\x00", b"\x00\x00 ", b"\x0c" + body,
                 b"\xc2\xa0" + body, b"\xef\xbb\xbf" + body, b"\x0b" + body, body + b"\x1c",
                 b'{"jsonrpc":"2.0","id":7,"method":"pi\x00ng"}', b"\xff"):
        reply = one_reply(repo, data + b"\n")
        assert reply["id"] is None and reply["error"]["code"] == -32700, (data, reply)


def test_nul_in_a_string_is_refused_with_the_request_id():
    repo = scratch_repo()
    call = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":%s}'
    cases = [
        (call % ("5", '{"name":"run","arguments":{"goal":"a\\u0000b"}}'), 5, -32602),
        (call % ('"x"', '{"name":"run\\u0000","arguments":{"goal":"a"}}'), "x", -32602),
        (call % ("6", '{"name":"run","arguments":{"k\\u0000":1}}'), 6, -32602),
        ('{"jsonrpc":"2.0","id":8,"method":"pi\\u0000ng"}', 8, -32600),
        ('{"jsonrpc":"2.0","id":9,"method":"ping","meta":{"k\\u0000":1}}', 9, -32600),
        ('{"jsonrpc":"2.0\\u0000","id":10,"method":"ping"}', 10, -32600),
    ]
    for data, want_id, code in cases:
        reply = one_reply(repo, line(data))
        assert reply["id"] == want_id and reply["error"]["code"] == code, (data, reply)
    # An id holding a NUL is still an id: it is answered as it came.
    reply = one_reply(repo, line('{"jsonrpc":"2.0","id":"a\\u0000b","method":"ping"}'))
    assert reply == {"jsonrpc": "2.0", "id": "a\u0000b", "result": {}}, reply


def test_integers_past_64_bits_are_refused_with_the_request_id_when_it_reads():
    repo = scratch_repo()
    run_call = ('{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"run",'
                '"arguments":{"goal":"g","budget":%d}}}')
    cases = [
        (run_call % ("3", BIG), 3, -32602),
        (run_call % ('"b"', -BIG - 1), "b", -32602),
        (run_call % (str(BIG - 1), BIG * 1000), BIG - 1, -32602),
        ('{"jsonrpc":"2.0","id":4,"method":"ping","n":%d}' % BIG, 4, -32600),
        ('{"jsonrpc":"2.0","id":%d,"method":"ping"}' % BIG, None, -32600),
        ('{"jsonrpc":"2.0","id":%d,"method":"ping"}' % (-BIG - 1), None, -32600),
        ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"n":%d}}' % (BIG, BIG), None, -32600),
    ]
    for data, want_id, code in cases:
        reply = one_reply(repo, line(data))
        assert reply["id"] == want_id and reply["error"]["code"] == code, (data, reply)
    # The largest id is answered exactly; a big integer in a notification
    # or in a duplicate-key message changes nothing.
    reply = one_reply(repo, line('{"jsonrpc":"2.0","id":%d,"method":"ping"}' % (BIG - 1)))
    assert reply == {"jsonrpc": "2.0", "id": BIG - 1, "result": {}}, reply
    replies, _ = raw(repo, init() + line('{"jsonrpc":"2.0","method":"notifications/x",'
                                         '"params":{"n":%d}}' % BIG) + PING)
    assert replies[1:] == [PONG], replies
    reply = one_reply(repo, line('{"jsonrpc":"2.0","id":1,"id":2,"method":"ping","n":%d}' % BIG))
    assert reply["id"] is None and reply["error"]["code"] == -32700, reply


def test_requests_before_initialize_get_not_initialized():
    repo = scratch_repo()
    early = [msg(id=1, method="tools/list"),
             msg(id=2, method="tools/call", params={"name": "status", "arguments": {}}),
             msg(id=3, method="resources/list"),
             msg(id=4, method="resources/read", params={"uri": "slipway://runs"}),
             msg(id=5, method="no/such/method")]
    replies, _ = raw(repo, b"".join(early) + msg(method="notifications/initialized") + PING
                     + msg(id=6, method="initialize", params={})
                     + msg(id=7, method="tools/list")
                     + init(id=8) + msg(id=9, method="tools/list") + msg(id=10, method="no/such"))
    ids = [r["id"] for r in replies]
    assert ids == [1, 2, 3, 4, 5, 99, 6, 7, 8, 9, 10], ids
    for r in replies[:5] + [replies[7]]:
        assert r["error"]["code"] == -32000 and "not initialized" in r["error"]["message"], r
    assert replies[5] == PONG
    assert replies[6]["error"]["code"] == -32602, "a failed initialize initializes nothing"
    assert "protocolVersion" in replies[8]["result"]
    assert [t["name"] for t in replies[9]["result"]["tools"]][0] == "run"
    assert replies[10]["error"]["code"] == -32601


def test_a_stdout_that_cannot_be_written_is_logged_before_exit():
    repo = scratch_repo()
    r, w = os.pipe()
    os.close(r)
    proc = subprocess.run([BIN, "mcp", "--root", repo], input=init() + PING, stdout=w,
                          stderr=subprocess.PIPE, timeout=60, cwd=repo)
    os.close(w)
    assert proc.returncode == 1, proc
    assert b"slipway mcp: cannot write to stdout" in proc.stderr, proc.stderr
    assert b"Broken pipe" in proc.stderr, proc.stderr
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([BIN, "mcp", "--root", repo], input=PING, stdout=full,
                              stderr=subprocess.PIPE, timeout=60, cwd=repo)
    assert proc.returncode == 1 and b"No space left on device" in proc.stderr, proc


def test_a_message_over_the_limit_at_end_of_input_gets_its_error():
    repo = scratch_repo()
    big = 17825792 + 16  # MCP_MAX_MESSAGE plus a little
    data = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * big + b'"}}'
    replies, _ = raw(repo, PING + data)
    assert len(replies) == 2 and replies[0] == PONG, replies
    assert replies[1]["id"] is None and replies[1]["error"]["code"] == -32600, replies[1]
    assert "exceeds" in replies[1]["error"]["message"]


if __name__ == "__main__":
    main([test_json_whitespace_around_a_message_is_accepted,
          test_bytes_that_are_not_json_are_a_parse_error_and_never_dropped,
          test_nul_in_a_string_is_refused_with_the_request_id,
          test_integers_past_64_bits_are_refused_with_the_request_id_when_it_reads,
          test_requests_before_initialize_get_not_initialized,
          test_a_stdout_that_cannot_be_written_is_logged_before_exit,
          test_a_message_over_the_limit_at_end_of_input_gets_its_error])
