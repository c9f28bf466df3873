#!/usr/bin/env python3
"""Measure whether a running pi can be steered to wrap up at a turn budget.

Usage: measure-turn-steer.py PI_BIN [BUDGET] [--mode rpc|json] [--steer-on turn_end|turn_start]

Starts a reactive fake LLM on 127.0.0.1 that answers every request with an
`ls` tool call until some user message contains "turn limit", and then with a
final report. Drives pi against it:

* rpc:  `pi --mode rpc`, sends `prompt`, counts `turn_end` events and sends
        `steer` with the wrap-up message once BUDGET turns have ended; keeps
        stdin open until the run ends (agent_end without a retry following,
        or agent_settled), then closes stdin.
* json: `pi --mode json -p PROMPT`, counts `turn_end` and kills pi (SIGTERM)
        once BUDGET turns have ended: the runner's hard stop.

Prints one JSON line: turns seen, LLM requests, the request index at which the
steer text reached the model, the final assistant text, pi's exit code and the
wall time. Loopback only; the temp agent dir is removed afterwards.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STEER = "You have reached your turn limit. Wrap up now and give your final report."
REPORT = "Final report: No findings. (wrapped up after the turn limit)"


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = 0
        self.steer_seen_at = None


def handler_for(state):
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def sse(self, obj):
            data = obj if isinstance(obj, str) else json.dumps(obj)
            self.wfile.write(("data: " + data + "\n\n").encode())
            self.wfile.flush()

        def chunk(self, delta, finish=None):
            return {"id": "c", "object": "chat.completion.chunk", "created": 0,
                    "model": "mock-model",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            msgs = body.get("messages") or []
            steered = False
            for m in msgs:
                if m.get("role") != "user":
                    continue
                c = m.get("content")
                text = c if isinstance(c, str) else " ".join(
                    p.get("text", "") for p in (c or []) if isinstance(p, dict))
                if "turn limit" in text:
                    steered = True
            with state.lock:
                state.requests += 1
                n = state.requests
                if steered and state.steer_seen_at is None:
                    state.steer_seen_at = n
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            self.sse(self.chunk({"role": "assistant", "content": ""}))
            if steered:
                self.sse(self.chunk({"content": REPORT}))
                self.sse(self.chunk({}, "stop"))
            else:
                self.sse(self.chunk({"tool_calls": [{"index": 0, "id": "call_%d" % n, "type": "function",
                                                     "function": {"name": "ls", "arguments": "{\"path\":\".\"}"}}]}))
                self.sse(self.chunk({}, "tool_calls"))
            self.sse("[DONE]")
    return H


def main():
    pi = sys.argv[1]
    budget = int(sys.argv[2]) if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else 3
    mode = "rpc"
    steer_on = "turn_end"
    if "--steer-on" in sys.argv:
        steer_on = sys.argv[sys.argv.index("--steer-on") + 1]
    turn_starts = 0
    if "--mode" in sys.argv:
        mode = sys.argv[sys.argv.index("--mode") + 1]
    state = State()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(state))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = srv.server_address[1]
    tmp = tempfile.mkdtemp(prefix="pwk-steer-")
    try:
        agent = os.path.join(tmp, "agent")
        work = os.path.join(tmp, "work")
        os.makedirs(agent)
        os.makedirs(work)
        with open(os.path.join(agent, "models.json"), "w") as f:
            json.dump({"providers": {"mock": {"baseUrl": "http://127.0.0.1:%d/v1" % port,
                                              "api": "openai-completions", "apiKey": "mock-key",
                                              "models": [{"id": "mock-model"}]}}}, f)
        with open(os.path.join(agent, "settings.json"), "w") as f:
            json.dump({"retry": {"enabled": False, "provider": {"maxRetries": 0, "timeoutMs": 5000}}}, f)
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(PI_CODING_AGENT_DIR=agent, PI_OFFLINE="1", HOME=tmp,
                   NODE_COMPILE_CACHE=os.path.join(tmp, "ncc"))
        common = ["--provider", "mock", "--model", "mock-model", "--no-session",
                  "--tools", "read,grep,find,ls", "--no-extensions", "--no-skills",
                  "--no-prompt-templates", "--no-context-files"]
        prompt = "Map the repository. Use ls as often as you like."
        t0 = time.time()
        if mode == "rpc":
            p = subprocess.Popen([pi, "--mode", "rpc"] + common, cwd=work, env=env,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            p.stdin.write(json.dumps({"id": "p1", "type": "prompt", "message": prompt}) + "\n")
            p.stdin.flush()
        else:
            p = subprocess.Popen([pi, "--mode", "json", "-p"] + common + [prompt], cwd=work, env=env,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        turns = 0
        steered_at_turn = None
        steer_response = None
        final_text = None
        events = []
        pending_end = False
        deadline = t0 + 60
        for line in p.stdout:
            if time.time() > deadline:
                break
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            t = ev.get("type")
            events.append(t)
            if t == "response" and ev.get("command") == "steer":
                steer_response = ev
            if t == "message_end" and (ev.get("message") or {}).get("role") == "assistant":
                msg = ev["message"]
                final_text = "".join(c.get("text", "") for c in msg.get("content", []) if c.get("type") == "text")
            if t == "turn_start":
                turn_starts += 1
                if (mode == "rpc" and steer_on == "turn_start" and turn_starts >= budget
                        and steered_at_turn is None):
                    steered_at_turn = turn_starts
                    p.stdin.write(json.dumps({"id": "s1", "type": "steer", "message": STEER}) + "\n")
                    p.stdin.flush()
            if t == "turn_end":
                turns += 1
                if turns >= budget and steered_at_turn is None:
                    steered_at_turn = turns
                    if mode == "rpc":
                        p.stdin.write(json.dumps({"id": "s1", "type": "steer", "message": STEER}) + "\n")
                        p.stdin.flush()
                    else:
                        p.send_signal(signal.SIGTERM)
                if turns > budget + 10:
                    break
            if mode == "rpc" and t == "agent_end":
                # retries are disabled in settings.json, so agent_end is final
                break
        if mode == "rpc":
            # stdin EOF ends an idle RPC pi
            p.stdin.close()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        print(json.dumps({
            "pi": pi, "mode": mode, "budget": budget, "steer_on": steer_on if mode == "rpc" else None, "turns": turns,
            "steered_at_turn": steered_at_turn, "llm_requests": state.requests,
            "steer_reached_model_at_request": state.steer_seen_at,
            "steer_response": steer_response, "final_text": final_text,
            "exit_code": p.returncode, "wall_s": round(time.time() - t0, 2),
            "last_events": events[-6:],
        }))
    finally:
        srv.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
