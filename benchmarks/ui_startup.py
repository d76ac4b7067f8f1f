"""How fast the terminal table starts and redraws.

    PYTHONPATH=. python benchmarks/ui_startup.py [--events N]

1. import + first frame: a fresh interpreter imports ``p2pcards.ui``, builds
   the app around a LocalSession (trio in guest mode on asyncio) and draws
   the first table to an in-memory xterm; measured from interpreter start
   (imports of the interpreter itself excluded) to the end of that frame.
2. redraw per event: mid-deal, for every game at 4 players, one bot move is
   applied (a session event) and the whole screen is rendered to an
   in-memory 120x40 xterm; the time of that render, per event.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import time

FIRST_FRAME = r"""
import time
t0 = time.perf_counter()
import io
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
import trio
from p2pcards.ui import LocalSession, run_app
t_import = time.perf_counter()
out = {}
with create_pipe_input() as pipe:
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=40, columns=120), term="xterm-256color")
    async def main(ui):
        session = LocalSession("kanasta", 4, bots="random", seed=1, bot_delay=1e9)
        ui.show(session)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(session.run)
            while session.view() is None:
                await trio.sleep(0)
            count = ui.app.render_counter
            while ui.app.render_counter == count:   # the frame with the table in it
                await trio.sleep(0)
            out["frame"] = time.perf_counter()
            nursery.cancel_scope.cancel()
        ui.app.exit()
    run_app(main, input=pipe, output=output)
print(t_import - t0, out["frame"] - t0)
"""


def first_frame(runs: int) -> tuple[list[float], list[float]]:
    imports, frames = [], []
    for _ in range(runs):
        res = subprocess.run([sys.executable, "-c", FIRST_FRAME], capture_output=True, text=True, check=True)
        a, b = map(float, res.stdout.split())
        imports.append(a)
        frames.append(b)
    return imports, frames


def redraw_costs(game_id: str, events: int) -> tuple[list[float], list[float]]:
    """(whole-screen render per event, table text per event) in seconds."""
    import trio
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    from p2pcards.ui import LocalSession, run_app
    from p2pcards.ui.render import render_table

    screen, table = [], []
    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=40, columns=120), term="xterm-256color")

        async def main(ui):
            seed = 1
            session = None
            while len(screen) < events:
                if session is None or session.game.deal_over(session._state):
                    session = LocalSession(game_id, 4, seat=0, bots="random", seed=seed)
                    seed += 1
                    session._begin_deal()  # as LocalSession.run deals
                    ui.show(session)
                    continue
                who = session.game.to_act(session._state)
                bot = session.bots.get(who) or session._hint_bot
                session._apply(who, bot.choose(session.game, session._views.seat_state(who)))  # the event
                app = ui.app
                t = time.perf_counter()
                app.renderer.render(app, app.layout)
                screen.append(time.perf_counter() - t)
                t = time.perf_counter()
                render_table(session, False, 75)
                table.append(time.perf_counter() - t)
                await trio.sleep(0)
            ui.app.exit()

        run_app(main, input=pipe, output=output)
    return screen, table


def ms(xs: list[float]) -> str:
    xs = sorted(xs)
    return f"median {statistics.median(xs) * 1e3:6.2f} ms   p95 {xs[int(len(xs) * 0.95)] * 1e3:6.2f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="fresh interpreters for the first frame")
    ap.add_argument("--events", type=int, default=300, help="events per game for the redraw cost")
    args = ap.parse_args()

    imports, frames = first_frame(args.runs)
    print(f"import p2pcards.ui (+prompt-toolkit, trio): {ms(imports)}")
    print(f"import + first table frame (kanasta, 4):   {ms(frames)}")
    for game_id in ("kanasta", "kanaszta", "warkocz", "bura"):
        screen, table = redraw_costs(game_id, args.events)
        print(f"{game_id:<9} redraw per event, whole screen: {ms(screen)};  table text alone: {ms(table)}")


if __name__ == "__main__":
    main()
