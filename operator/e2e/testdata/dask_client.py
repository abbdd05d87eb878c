"""A Dask client the e2e tests drive line by line over stdin/stdout.

Usage: dask_client.py SCHEDULER_ADDRESS MARKER_DIR

Each command on stdin is answered by one JSON line on stdout:
  submit N SECONDS  submit N tasks of SECONDS each; keep their futures
  wait              wait until they have all finished (results stay held)
  gather            gather them; check every value, and that every task ran
                    exactly once (each run leaves a file in MARKER_DIR)
  busy SECONDS      keep one task of 0.5 s running at all times, SECONDS long
  events            the workers the scheduler itself logged as retired
  quit
"""

import json
import os
import sys
import time
import uuid

from distributed import Client, wait


def work(i, seconds, marker_dir):
    # One file per run: a task recomputed after its worker was lost runs twice.
    with open(os.path.join(marker_dir, f"{i}-{uuid.uuid4().hex}"), "w"):
        pass
    time.sleep(seconds)
    return i * i


def pause(seconds):
    time.sleep(seconds)
    return seconds


def main():
    address, marker_dir = sys.argv[1], sys.argv[2]
    client = Client(address, timeout=60)
    futures = []
    for line in sys.stdin:
        cmd, *args = line.split()
        out = {"ok": True}
        if cmd == "submit":
            n, seconds = int(args[0]), float(args[1])
            futures = client.map(work, range(n), seconds=seconds, marker_dir=marker_dir, pure=False)
        elif cmd == "wait":
            wait(futures)
        elif cmd == "gather":
            values = client.gather(futures)
            runs = {}
            for name in os.listdir(marker_dir):
                i = int(name.split("-")[0])
                runs[i] = runs.get(i, 0) + 1
            out["values_ok"] = values == [i * i for i in range(len(futures))]
            out["reruns"] = sorted(i for i, n in runs.items() if n != 1)
            out["ran"] = len(runs)
        elif cmd == "busy":
            end = time.time() + float(args[0])
            while time.time() < end:
                client.submit(pause, 0.5, pure=False).result()
        elif cmd == "events":
            retired, removed = set(), set()
            for _, msg in client.get_events("all"):
                if not isinstance(msg, dict):
                    continue
                if msg.get("action") == "retire-workers":
                    for info in msg.get("workers", {}).values():
                        retired.add(str(info.get("name")))
                elif msg.get("action") == "remove-worker":
                    removed.add(str(msg.get("worker")))
            out["retired"] = sorted(retired)
            out["removed"] = sorted(removed)
        elif cmd == "quit":
            print(json.dumps(out), flush=True)
            break
        else:
            out = {"ok": False, "error": f"unknown command {cmd!r}"}
        print(json.dumps(out), flush=True)
    client.close()


if __name__ == "__main__":
    main()
