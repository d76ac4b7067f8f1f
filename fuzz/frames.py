"""atheris harness: the frame decoder and the strict body decoder, then the
handshake parsers, on arbitrary bytes cut into arbitrary reads.

    PYTHONPATH=/work/main /work/venv/bin/python fuzz/frames.py -max_total_time=120 [corpus_dir]

Property: only ProtocolError comes out; the decoder's buffer stays bounded;
every decoded message is a map with a str "t" and str keys everywhere.
"""

import sys

import atheris

with atheris.instrument_imports():
    from p2pcards.net.errors import ProtocolError
    from p2pcards.net.framing import HEADER, FrameDecoder, Limits, decode_body
    from p2pcards.net.handshake import parse_auth, parse_hello

LIMITS = Limits(max_frame=4096, max_str_len=1024, max_array_len=256, max_map_len=64)


def _str_keys(v) -> bool:
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            if not all(type(k) is str for k in x):
                return False
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return True


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    step = fdp.ConsumeIntInRange(1, 64)
    stream = fdp.ConsumeBytes(fdp.remaining_bytes())
    dec = FrameDecoder(LIMITS)
    try:
        for i in range(0, len(stream), step):
            dec.feed(stream[i:i + step])
            assert dec.buffered <= HEADER.size + LIMITS.max_frame + step
            while (body := dec.next_body()) is not None:
                msg = decode_body(body, LIMITS)
                assert isinstance(msg, dict) and isinstance(msg["t"], str) and _str_keys(msg)
                for parser in (parse_hello, parse_auth):
                    try:
                        parser(body, LIMITS)
                    except ProtocolError:
                        pass
    except ProtocolError:
        pass


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
