"""A relay that cuts one pair of seats: a TCP proxy in front of a real
magic-wormhole Transit Relay, doing what a hostile or broken relay could.

    python tests/cutting_relay.py LISTEN_HOST LISTEN_PORT RELAY_HOST RELAY_PORT

It reads each connection's first line (``please relay TOKEN for side SIDE``),
notes which address presented which token, and from then on copies bytes
both ways. A line ``CUT A B`` on stdin cuts the pairs whose token came from
both address A and address B: their connections are closed, and every later
connection presenting such a token is closed as soon as it says it, so the
pair never comes back; every other pair goes on. It answers ``CUT n`` (how
many tokens it cut) on stdout; ``REFUSED`` answers ``REFUSED n``, how many
connections it has closed since for presenting a cut token; ``READY`` once
it listens.
"""

from __future__ import annotations

import socket
import sys
import threading

MAX_LINE = 200


class CuttingRelay:
    def __init__(self, listen: tuple[str, int], relay: tuple[str, int]) -> None:
        self.relay = relay
        self.lock = threading.Lock()
        self.seen: dict[str, set[str]] = {}  # token -> addresses that presented it
        self.open: dict[str, list[socket.socket]] = {}  # token -> its sockets (both sides')
        self.cut: set[str] = set()
        self.refused = 0
        self.server = socket.create_server(listen)

    def serve(self) -> None:
        while True:
            conn, (host, _) = self.server.accept()
            threading.Thread(target=self._handle, args=(conn, host), daemon=True).start()

    def _handle(self, conn: socket.socket, host: str) -> None:
        line = b""
        while not line.endswith(b"\n") and len(line) < MAX_LINE:
            chunk = conn.recv(1)
            if not chunk:
                conn.close()
                return
            line += chunk
        parts = line.split()
        token = parts[2].decode(errors="replace") if len(parts) >= 3 else ""
        with self.lock:
            if token in self.cut:
                self.refused += 1
                conn.close()
                return
            self.seen.setdefault(token, set()).add(host)
            upstream = socket.create_connection(self.relay)
            self.open.setdefault(token, []).extend((conn, upstream))
        upstream.sendall(line)
        threading.Thread(target=self._copy, args=(upstream, conn), daemon=True).start()
        self._copy(conn, upstream)

    @staticmethod
    def _copy(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut_pair(self, a: str, b: str) -> int:
        with self.lock:
            tokens = [t for t, hosts in self.seen.items() if {a, b} <= hosts]
            self.cut.update(tokens)
            for token in tokens:
                for s in self.open.pop(token, []):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
        return len(tokens)


def main(argv: list[str]) -> None:
    relay = CuttingRelay((argv[0], int(argv[1])), (argv[2], int(argv[3])))
    threading.Thread(target=relay.serve, daemon=True).start()
    print("READY", flush=True)
    for line in sys.stdin:
        words = line.split()
        if len(words) == 3 and words[0] == "CUT":
            print(f"CUT {relay.cut_pair(words[1], words[2])}", flush=True)
        elif words == ["REFUSED"]:
            with relay.lock:
                print(f"REFUSED {relay.refused}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
