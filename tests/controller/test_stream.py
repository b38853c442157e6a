"""The stream: packet-out and packet-in by metadata name, digests with acknowledgement."""

from __future__ import annotations

import grpc
import pytest

from controller import DigestEntry, P4RuntimeSession, Update

from .conftest import Switch
from .world import packet


def test_packet_out_by_metadata_name(sw: P4RuntimeSession, switch: Switch) -> None:
    frame = packet(0, a=1)
    sw.packet_out(frame, egress_port=3)
    assert switch.recv(3) == frame
    with pytest.raises(ValueError, match="no metadata"):
        sw.packet_out(frame, port=3)
    with pytest.raises(ValueError, match="does not fit in 9 bits"):
        sw.packet_out(frame, egress_port=600)


def test_packet_in_carries_decoded_metadata(sw: P4RuntimeSession, switch: Switch) -> None:
    frame = packet(8, a=9)
    switch.send(4, frame)
    got = sw.packet_in(timeout=2)
    assert got is not None
    assert got.payload == frame
    assert got.metadata == {"ingress_port": 4, "_pad": 0}
    assert sw.packet_in(timeout=0.1) is None


def test_digests_are_decoded_and_acknowledged(sw: P4RuntimeSession, switch: Switch) -> None:
    entry = sw.digest("learn_t", max_timeout_ns=0, max_list_size=1, ack_timeout_ns=10**10)
    sw.insert(entry)
    assert list(sw.read(DigestEntry(entry.digest))) == [entry]
    switch.send(2, packet(7, mac=0xA1))
    dl = sw.digest_list(timeout=2)
    assert dl is not None
    assert dl.digest == "learn_t" and dl.messages == ({"mac": 0xA1, "port": 2},)
    switch.send(2, packet(7, mac=0xA1))  # the same message, not acknowledged: suppressed
    assert sw.digest_list(timeout=0.3) is None
    sw.ack(dl)
    again = None
    for _ in range(20):  # the ack travels on the stream, the packet on a port: retry
        switch.send(2, packet(7, mac=0xA1))
        again = sw.digest_list(timeout=0.1)
        if again is not None:
            break
    assert again is not None and again.list_id != dl.list_id
    assert again.messages == dl.messages
    sw.write([Update.delete(entry)])
    switch.send(2, packet(7, mac=0xB2))
    assert sw.digest_list(timeout=0.3) is None


def test_refused_packet_out_is_a_stream_error(sw: P4RuntimeSession, switch: Switch) -> None:
    """A backup's packet-out is refused with a StreamError (PERMISSION_DENIED)."""
    backup = P4RuntimeSession(switch.address, device_id=1, election_id=3)
    backup.connect(timeout=5, wait_primary=False)
    try:
        backup.use_p4info(sw.schema.p4info)
        backup.packet_out(packet(0), egress_port=1)
        err = backup.stream_error(timeout=2)
        assert err is not None and err.code == grpc.StatusCode.PERMISSION_DENIED
        assert switch.recv(1, timeout=0.2) is None
    finally:
        backup.close()
