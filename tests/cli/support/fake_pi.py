#!/usr/bin/env python3
"""A scripted stand-in for `pi --mode json`, for faults the real pi cannot show on
demand. Test-only: never shipped. The mode comes from FAKE_PI_MODE; every start is
logged (argv, stdin) as one JSON line to FAKE_PI_LOG when set.

Modes:
  ok                 a normal short run whose answer echoes the prompt
  malformed          a non-JSON line and a line with invalid UTF-8 among valid events
  split-utf8         multi-byte code points split across separate writes
  huge-line          a 100 MB message_update line, then a normal answer
  crash-mid          starts streaming an answer, then dies (SIGKILL on itself)
  stdin-rejected     rejects stdin before starting; with an argv prompt runs normally
  stdin-rejected-after-start   prints events first, then the stdin rejection
  json-rejected      rejects --mode json; in text (--print) mode prints the answer
  eacces             EACCES at startup, before any event
  tool-child         starts a tool child that ignores SIGTERM and holds stdout, then stalls
  turns              runs turn after turn (for the turn budget)
  usage              assistant messages with the raw usage values of FAKE_PI_USAGE_RAW
  huge-end           the final message_end is a 9 MiB line (over pwk's 8 MiB limit)
  daemon             a complete run, then a forked `setsid` daemon keeps stdout open
                     (its pid goes to FAKE_PI_DAEMON_PID, or FAKE_PI_DAEMON_PID.<pi pid>
                     with FAKE_PI_DAEMON_PER_RUN=1) while pi itself exits; with
                     FAKE_PI_DAEMON_ENV_CLEAR=1 it execs `sleep` with an empty environment
                     with FAKE_PI_DAEMON_DETACH=1 the daemon closes stdio instead
                     (nothing holds pi's pipes: only a subreaper sees it)

With `--mode rpc` the modes ok and daemon speak pi's RPC protocol: the `prompt`
command is read from stdin, answered, and pi exits at stdin EOF.
FAKE_PI_TEXT replaces the answer text (default: a task report block).
`--help` prints a usage text (not logged as a start) that lists `--no-mcp` when
FAKE_PI_HELP_NO_MCP=1, as pi 1.6 does; pi 0.73.1 does not list it (each `--help`
appends a line to FAKE_PI_HELP_LOG when set). `--list-models`
prints pi's table with `fake/fake-model` (FAKE_PI_LIST_N more rows around it). Both
probes can leave a setsid daemon or hang (see `probe`).
"""
import json, os, signal, sys, time

mode = os.environ.get("FAKE_PI_MODE", "ok")
args = sys.argv[1:]
out = sys.stdout.buffer


def ev(obj):
    out.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
    out.flush()


def report(summary):
    if os.environ.get("FAKE_PI_TEXT"):
        return os.environ["FAKE_PI_TEXT"]
    body = os.environ.get("FAKE_PI_REPORT") or json.dumps({"summary": summary, "changedFiles": []})
    return "Done.\n---PI_TASK_REPORT---\n" + body + "\n---END_PI_TASK_REPORT---"


def assistant_end(text, stop="stop"):
    ev({"type": "message_end", "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
        "provider": "fake", "model": "fake-model", "stopReason": stop,
        "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                  "cost": {"total": 0.001}}}})


def start():
    ev({"type": "session", "version": 3, "id": "fake-session", "timestamp": "t", "cwd": os.getcwd()})
    ev({"type": "agent_start"})
    ev({"type": "turn_start"})


def finish():
    ev({"type": "agent_end", "messages": []})
    ev({"type": "agent_settled", "aborted": False})


def spawn_daemon():
    """Double-fork a daemon in its own session that inherits (and holds) stdout.
    With FAKE_PI_DAEMON_PER_RUN=1 its pid goes to FAKE_PI_DAEMON_PID.<pi's pid>."""
    pi_pid = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
        if os.environ.get("FAKE_PI_DAEMON_DETACH") == "1":
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
        pidfile = os.environ.get("FAKE_PI_DAEMON_PID")
        if pidfile and os.environ.get("FAKE_PI_DAEMON_PER_RUN") == "1":
            pidfile += "." + str(pi_pid)
        if pidfile:
            with open(pidfile + ".tmp", "w") as f:
                f.write(str(os.getpid()))
            os.rename(pidfile + ".tmp", pidfile)
        secs = os.environ.get("FAKE_PI_DAEMON_SECS", "120")
        if os.environ.get("FAKE_PI_DAEMON_ENV_CLEAR") == "1":
            os.execve("/bin/sleep", ["sleep", secs], {})
        time.sleep(float(secs))
        os._exit(0)
    os.waitpid(pid, 0)


def log_start(stdin_text):
    log = os.environ.get("FAKE_PI_LOG")
    if log:
        with open(log, "a") as f:
            entry = {"argv": args, "stdin": stdin_text, "pid": os.getpid(), "pgid": os.getpgid(0)}
            if "--system-prompt" in args[:-1]:
                try:
                    with open(args[args.index("--system-prompt") + 1]) as sp:
                        entry["systemPrompt"] = sp.read(4000)
                except OSError:
                    pass
            f.write(json.dumps(entry) + "\n")


def probe(kind):
    """`--help` / `--list-models` faults: FAKE_PI_PROBE_DAEMON=kind double-forks a
    setsid daemon (its pid appended to FAKE_PI_PROBE_PIDS; stdio kept unless
    FAKE_PI_DAEMON_DETACH=1) before answering; FAKE_PI_PROBE_HANG=kind never answers
    (its pid appended to FAKE_PI_PROBE_PIDS)."""
    pids = os.environ.get("FAKE_PI_PROBE_PIDS")
    if os.environ.get("FAKE_PI_PROBE_HANG") == kind:
        if pids:
            with open(pids, "a") as f:
                f.write("%d\n" % os.getpid())
        time.sleep(600)
        sys.exit(0)
    if os.environ.get("FAKE_PI_PROBE_DAEMON") == kind:
        pid = os.fork()
        if pid == 0:
            os.setsid()
            if os.fork() != 0:
                os._exit(0)
            if os.environ.get("FAKE_PI_DAEMON_DETACH") == "1":
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
            if pids:
                fd = os.open(pids, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                os.write(fd, b"%d\n" % os.getpid())
                os.close(fd)
            time.sleep(120)
            os._exit(0)
        os.waitpid(pid, 0)


if "--help" in args:
    if os.environ.get("FAKE_PI_HELP_LOG"):
        with open(os.environ["FAKE_PI_HELP_LOG"], "a") as f:
            f.write("help\n")
    probe("help")
    sys.stdout.write("Usage: pi [options] [messages...]\n  --mode <mode>  Output mode\n"
                     "  --tools <tools>  Allow-list\n  --no-session  Ephemeral\n")
    if os.environ.get("FAKE_PI_HELP_NO_MCP") == "1":
        sys.stdout.write("  --no-mcp  Disable built-in MCP support\n")
    sys.exit(0)

if "--list-models" in args:
    # pi's table; FAKE_PI_LIST_N padding models around `fake/fake-model` (which sits
    # in the middle), for listings of any size.
    probe("list")
    n = int(os.environ.get("FAKE_PI_LIST_N", "0"))
    rows = ["openrouter  vendor-%05d/model-with-a-long-name  200K  32K  yes  yes" % i for i in range(n)]
    rows.insert(n // 2, "fake        fake-model  128K  16K  no  no")
    sys.stdout.write("provider    model  context  max-out  thinking  images\n" + "\n".join(rows) + "\n")
    sys.exit(0)

if "--mode" in args and args[args.index("--mode") + 1] == "rpc":
    first = sys.stdin.readline()
    log_start(first)
    cmd = json.loads(first)
    ev({"id": cmd.get("id"), "type": "response", "command": "prompt", "success": True})
    ev({"type": "agent_start"})
    ev({"type": "turn_start"})
    if mode == "tool-child":
        ev({"type": "tool_execution_start", "toolCallId": "c1", "toolName": "bash", "args": {}})
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(600)
            os._exit(0)
        time.sleep(600)
    assistant_end(report("rpc: " + cmd.get("message", "")[:40]))
    ev({"type": "agent_end", "messages": []})
    ev({"type": "agent_settled", "aborted": False})
    if mode == "daemon":
        spawn_daemon()
    sys.stdin.read()  # RPC pi shuts down at stdin EOF
    sys.exit(0)

stdin_text = ""
argv_prompt = None
known_with_value = {"--mode", "--provider", "--model", "--thinking", "--tools", "--session",
                    "--system-prompt", "--append-system-prompt"}
i = 0
while i < len(args):
    a = args[i]
    if a in known_with_value:
        i += 2
        continue
    if a.startswith("-"):
        i += 1
        continue
    argv_prompt = a
    i += 1

if mode not in ("stdin-rejected",) or argv_prompt is None:
    if not sys.stdin.isatty():
        stdin_text = sys.stdin.read()

log_start(stdin_text)

prompt = argv_prompt if argv_prompt is not None else stdin_text

if mode == "ok":
    start()
    time.sleep(float(os.environ.get("FAKE_PI_SLEEP", "0")))
    assistant_end(report("echo: " + prompt[:40]))
    finish()
elif mode == "malformed":
    start()
    out.write(b"this is not json\n")
    out.write(b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"\xff\xfe"}}\n')
    out.flush()
    assistant_end(report("survived"))
    finish()
elif mode == "split-utf8":
    start()
    line = json.dumps({"type": "message_end", "message": {"role": "assistant",
        "content": [{"type": "text", "text": "héllo ✓ 𝄞 日本"}], "stopReason": "stop"}},
        ensure_ascii=False).encode() + b"\n"
    for b in line:
        out.write(bytes([b]))
        out.flush()
        if b >= 0x80:
            time.sleep(0.002)
    finish()
elif mode == "huge-line":
    start()
    out.write(b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"x"},"message":{"text":"')
    chunk = b"a" * (1 << 20)
    for _ in range(100):
        out.write(chunk)
    out.write(b'"}}\n')
    out.flush()
    assistant_end(report("after the huge line"))
    finish()
elif mode == "crash-mid":
    start()
    ev({"type": "message_start", "message": {"role": "assistant", "content": []}})
    ev({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "Half an ans"}})
    os.kill(os.getpid(), signal.SIGKILL)
elif mode == "stdin-rejected":
    if argv_prompt is None:
        sys.stderr.write("Error: reading the prompt from stdin is not supported\n")
        sys.exit(1)
    start()
    assistant_end(report("argv: " + argv_prompt[:40]))
    finish()
elif mode == "stdin-rejected-after-start":
    start()
    sys.stderr.write("Error: reading the prompt from stdin is not supported\n")
    sys.exit(1)
elif mode == "json-rejected":
    if "--mode" in args:
        sys.stderr.write('Error: Invalid mode "json". Valid values: text\n')
        sys.exit(1)
    out.write(report("text mode").encode() + b"\n")
    out.flush()
elif mode == "eacces":
    sys.stderr.write("Error: EACCES: permission denied, open '/denied/agent/auth.json'\n")
    sys.exit(1)
elif mode == "tool-child":
    start()
    ev({"type": "tool_execution_start", "toolCallId": "c1", "toolName": "bash", "args": {}})
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(600)
        os._exit(0)
    time.sleep(600)
elif mode == "huge-end":
    start()
    assistant_end("an earlier, shorter answer", stop="toolUse")
    ev({"type": "turn_start"})
    assistant_end(report("x" * (9 << 20)))
    finish()
elif mode == "daemon":
    start()
    assistant_end(report("complete before the daemon"))
    finish()
    spawn_daemon()
elif mode == "usage":
    # Assistant messages whose `usage` is FAKE_PI_USAGE_RAW's `|`-separated raw JSON
    # texts in turn (`OMIT`: no usage key), then FAKE_PI_USAGE_REST's (else the list
    # again), FAKE_PI_TURNS of them (default: one per text); the last one is the
    # final answer.
    raws = os.environ.get("FAKE_PI_USAGE_RAW", "OMIT").split("|")
    n = int(os.environ.get("FAKE_PI_TURNS", str(len(raws))))
    start()
    for i in range(n):
        rest = os.environ.get("FAKE_PI_USAGE_REST")
        raw = raws[i] if i < len(raws) else (rest if rest else raws[i % len(raws)])
        last = i == n - 1
        text = report("usage " + str(i)) if last else "step %d" % i
        head = json.dumps({"role": "assistant", "content": [{"type": "text", "text": text}],
                           "provider": "fake", "model": "fake-model",
                           "stopReason": "stop" if last else "toolUse"})[:-1]
        usage = "" if raw == "OMIT" else ',"usage":' + raw
        out.write(('{"type":"message_end","message":' + head + usage + "}}\n").encode())
        out.flush()
        if not last:
            ev({"type": "turn_start"})
            time.sleep(0.01)
    finish()
elif mode == "turns":
    start()
    for n in range(1000):
        assistant_end("thinking step %d" % n, stop="toolUse")
        ev({"type": "turn_start"})
        time.sleep(0.01)
else:
    sys.stderr.write("fake_pi: unknown mode %s\n" % mode)
    sys.exit(3)
