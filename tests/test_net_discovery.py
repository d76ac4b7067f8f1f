"""LAN discovery. The loopback test needs multicast on lo; it is checked at run
time and the test is skipped, with the reason, where the kernel refuses it."""

from __future__ import annotations

import os

import pytest
import trio

from p2pcards import PROTOCOL_VERSION
from p2pcards.net import DiscoveryUnavailable
from p2pcards.net import discovery
from tests.helpers import multicast_loopback_problem



async def test_without_zeroconf_discovery_says_so(monkeypatch):
    monkeypatch.setattr(discovery, "_zc", None)
    assert not discovery.available()
    with pytest.raises(DiscoveryUnavailable, match=r"pip install 'p2pcards\[lan\]'.*ADDR:PORT"):
        await discovery.browse(0.1)
    with pytest.raises(DiscoveryUnavailable):
        discovery.browse_blocking(0.1)
    with pytest.raises(DiscoveryUnavailable):
        async with discovery.advertise(game="bura", wanted=2, seated=1, host_name="x", port=1,
                                       table_id=b"\0" * 16):
            pass


def test_malformed_advertisement_is_ignored():
    class Info:
        name = "bad._p2pcards._tcp.local."
        properties = {b"game": b"bura", b"wanted": b"many"}
        port = 1

        def parsed_addresses(self):
            return ["10.0.0.1"]

    assert discovery._parse_ad(Info()) is None


@pytest.mark.skipif(not discovery.available(), reason="zeroconf is not installed (optional: p2pcards[lan])")
async def test_advertised_table_is_found_on_loopback():
    problem = await trio.to_thread.run_sync(multicast_loopback_problem)
    if problem:
        pytest.skip(problem)
    tid = os.urandom(16)
    lo = ["127.0.0.1"]
    with trio.fail_after(30):
        async with discovery.advertise(game="warkocz", wanted=4, seated=1, host_name="Zażółć gęślą", port=7531,
                                       table_id=tid, addresses=lo, interfaces=lo) as ad:
            found = [a for a in await discovery.browse(2.5, interfaces=lo) if a.table_id == tid]
            assert len(found) == 1
            t = found[0]
            assert (t.game, t.wanted, t.seated, t.host_name, t.version, t.port) == \
                ("warkocz", 4, 1, "Zażółć gęślą", PROTOCOL_VERSION, 7531)
            assert t.addresses == ("127.0.0.1",) and t.joinable and (t.address, t.port) == ("127.0.0.1", 7531)
            assert t.join_arg == "127.0.0.1:7531" and "2/4" not in t.describe() and "1/4 players" in t.describe()
            await ad.update(seated=4)
            found = [a for a in await discovery.browse(2.5, interfaces=lo) if a.table_id == tid]
            assert found[0].seated == 4 and not found[0].joinable and "(full)" in found[0].describe()


@pytest.mark.skipif(not discovery.available(), reason="zeroconf is not installed (optional: p2pcards[lan])")
async def test_hosted_lobby_advertises_itself_and_tracks_the_seat_count():
    from p2pcards.net import open_endpoint
    from p2pcards.net.lobby import HostLobby, join_table

    from tests.helpers import LOCAL, Seats, new_key

    problem = await trio.to_thread.run_sync(multicast_loopback_problem)
    if problem:
        pytest.skip(problem)
    lo = ["127.0.0.1"]
    seats = Seats()
    with trio.fail_after(40):
        async with open_endpoint(new_key(), "Ala", bind=LOCAL) as host_ep:
            lobby = HostLobby(host_ep, "bura", 3, on_update=seats, advertise=True, advertise_interfaces=lo)

            async def find(seated):
                for _ in range(10):
                    ads = [a for a in await discovery.browse(1.5, interfaces=lo) if a.table_id == lobby.table_id]
                    if ads and ads[0].seated == seated:
                        return ads[0]
                raise AssertionError(f"no advertisement with {seated} seated")

            async with trio.open_nursery() as nursery:
                nursery.start_soon(lobby.run)
                ad = await find(1)
                assert (ad.host_name, ad.port, ad.wanted, ad.address) == ("Ala", host_ep.port, 3, LOCAL)
                async with open_endpoint(new_key(), "Bolek", bind=LOCAL) as ep:
                    async with trio.open_nursery() as inner:
                        inner.start_soon(join_table, ep, ad.address, ad.port)
                        await seats.wait(2)
                        await find(2)
                        inner.cancel_scope.cancel()
                nursery.cancel_scope.cancel()
