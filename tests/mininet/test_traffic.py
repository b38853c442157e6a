"""Reading iperf3's JSON reports."""

from __future__ import annotations

import json

from fabricnet.traffic import Flow, _result

FLOW = Flow("h1", "h3")


def test_throughput_and_retransmits_come_from_the_end_sums() -> None:
    report = {
        "end": {
            "sum_sent": {"bits_per_second": 9.5e6, "retransmits": 3},
            "sum_received": {"bits_per_second": 9.1e6},
        }
    }
    r = _result(FLOW, json.dumps(report).encode())
    assert (r.sent_bps, r.received_bps, r.retransmits, r.error) == (9.5e6, 9.1e6, 3, None)
    assert r.mbps == 9.1


def test_iperf3_errors_and_garbage_are_reported_not_raised() -> None:
    refused = _result(FLOW, b'{"error": "unable to connect to server: Connection refused"}')
    assert refused.error == "unable to connect to server: Connection refused"
    assert refused.mbps == 0
    garbage = _result(FLOW, b"iperf3: interrupt")
    assert garbage.error is not None and garbage.error.startswith("unreadable iperf3 report")
