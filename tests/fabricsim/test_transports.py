"""Each transport's control law against updates computed by hand, and the bounded
reorder window of a selective-repeat receiver."""

from __future__ import annotations

import math

import pytest

from fabricsim.frames import FlowFrames
from fabricsim.receivers import Receiver
from fabricsim.transports import make_transport, transport_params
from fabricsim.transports.base import IntHop, PathInfo
from fabricsim.transports.dcqcn import Dcqcn, DcqcnParams
from fabricsim.transports.dctcp import Dctcp, DctcpParams
from fabricsim.transports.hpcc import Hpcc, HpccParams
from fabricsim.transports.ndp import Ndp, NdpParams

from .accounting import flow_frames

PATH = PathInfo(line_rate_bps=100e9, base_rtt_ns=10_000, packet_bytes=1_000)


def test_dcqcn_cut_and_timer_recovery() -> None:
    cc = Dcqcn(PATH, DcqcnParams())
    assert cc.rate_bps(0) == 100e9 and cc.window() == math.inf
    cc.on_cnp(0)  # alpha starts at 1: the rate halves, the target keeps line rate
    assert cc.rate_bps(0) == pytest.approx(50e9)
    assert cc.alpha == pytest.approx(1.0)
    # 300 us later the rate timer fires once: with F = 1 the timer count (1) has reached F
    # and the byte count (0) has not, so additive increase (target capped at line rate),
    # and the rate moves halfway to it
    assert cc.rate_bps(299_999) == pytest.approx(50e9)
    assert cc.rate_bps(300_000) == pytest.approx(75e9)
    assert cc.rate_bps(600_000) == pytest.approx(87.5e9)


def test_dcqcn_alpha_decays_per_period_and_sets_the_next_cut() -> None:
    p = DcqcnParams()
    cc = Dcqcn(PATH, p)
    cc.on_cnp(0)
    cc.rate_bps(10_000)  # ten alpha periods (1 us each) without a CNP
    alpha = (1 - p.g) ** 10
    assert cc.alpha == pytest.approx(alpha)
    before = cc.rate_bps(10_000)
    cc.on_cnp(10_000)
    assert cc.rate_bps(10_000) == pytest.approx(before * (1 - alpha / 2))
    assert cc.alpha == pytest.approx((1 - p.g) * alpha + p.g)
    assert cc.target == pytest.approx(before)


def test_dcqcn_byte_counter_drives_increase() -> None:
    p = DcqcnParams(byte_counter=10_000, rate_timer_ns=10**9)
    cc = Dcqcn(PATH, p)
    cc.on_cnp(0)
    for _ in range(9):
        cc.on_send(1_000, 1_000)
    assert cc.rate_bps(1_000) == pytest.approx(50e9)
    cc.on_send(1_000, 1_000)  # the 10,000th byte: one byte-counter event
    assert cc.rate_bps(1_000) == pytest.approx(75e9)


def test_dcqcn_cuts_at_most_once_per_reduce_interval() -> None:
    """ConnectX's rate_reduce_monitor_period: a second CNP 1 us after a cut is held and
    made into one cut when the 4 us interval ends; a third inside the same interval adds
    nothing."""
    p = DcqcnParams(g=0.5)
    cc = Dcqcn(PATH, p)
    cc.on_cnp(0)  # alpha 1: halve to 50 Gb/s, alpha -> 0.5 + 0.5 = 1
    assert cc.rate_bps(0) == pytest.approx(50e9)
    cc.on_cnp(1_000)
    cc.on_cnp(2_000)
    # alpha decays every 1 us: at 1 us (to 0.5) and 2 us (0.25); the rate holds meanwhile
    assert cc.rate_bps(3_999) == pytest.approx(50e9)
    assert cc.cnps == 3
    # at 4 us: two more decays (3 us, 4 us) are due first, alpha 1/16; then the cut
    rate = cc.rate_bps(4_000)
    assert rate == pytest.approx(50e9 * (1 - (1 / 16) / 2))
    assert cc.target == pytest.approx(50e9)
    assert cc.alpha == pytest.approx(0.5 / 16 + 0.5)
    assert cc.cut_at == 4_000 and not cc.cut_pending
    # no CNP since: nothing more is cut
    assert cc.rate_bps(9_000) == pytest.approx(rate)


def test_dcqcn_paper_parameters_cut_on_every_cnp() -> None:
    cc = Dcqcn(PATH, DcqcnParams.paper())
    cc.on_cnp(0)
    cc.on_cnp(1_000)
    assert cc.cnps == 2 and cc.rate_bps(1_000) < 50e9


def test_dctcp_window_after_a_marked_and_a_clean_window() -> None:
    cc = Dctcp(PATH, DctcpParams(init_window=10))
    for i in range(10):
        cc.on_ack(0, 1, i < 5, None, ())
    alpha = 15 / 16 + 0.5 / 16
    assert cc.alpha == pytest.approx(alpha)
    assert cc.window() == pytest.approx(10 * (1 - alpha / 2))
    w = cc.window()
    for _ in range(math.ceil(w)):
        cc.on_ack(0, 1, False, None, ())
    assert cc.window() == pytest.approx(w + 1)
    assert cc.alpha == pytest.approx(alpha * 15 / 16)


def test_dctcp_nack_halves_once_per_window() -> None:
    cc = Dctcp(PATH, DctcpParams(init_window=16))
    cc.on_nack(0)
    assert cc.window() == 8
    cc.on_nack(0)  # the same window's second loss
    assert cc.window() == 8
    for _ in range(9):
        cc.on_send(0, 1_000)
    cc.on_nack(0)
    assert cc.window() == 4
    cc.on_timeout(0)
    assert cc.window() == 1


def test_hpcc_window_from_int_records() -> None:
    p = HpccParams()
    cc = Hpcc(PATH, p)
    w_init = 100e9 * 10_000 / 8e9  # B·T in bytes: 125,000
    w_ai = w_init * (1 - 0.95) / 16
    assert cc.window() == pytest.approx(w_init / 1_000)
    cc.on_send(0, 1_000)
    cc.on_ack(0, 1, False, 10_000, [IntHop(10, 0, 0, 100e9)])
    # one microsecond later the hop has sent 12,500 bytes (line rate) with 10 packets queued
    cc.on_ack(1_000, 1, False, 10_000, [IntHop(10, 12_500, 1_000, 100e9)])
    u = 10 * 1_000 * 8e9 / (100e9 * 10_000) + 1.0  # queue term 0.08 + rate term 1
    U = (1 - 0.1) * 1.0 + 0.1 * u  # tau = 1 us of T = 10 us
    assert pytest.approx(U) == cc.U
    assert pytest.approx(w_init / (U / 0.95) + w_ai) == cc.W
    assert cc.rate_bps(0) == pytest.approx(cc.W * 8e9 / 10_000)


def test_hpcc_additive_stage_when_under_eta() -> None:
    cc = Hpcc(PATH, HpccParams(w_ai_bytes=1_000))
    cc.Wc = cc.W = 50_000.0
    cc.U = 0.5
    cc.on_ack(0, 1, False, None, [IntHop(0, 0, 0, 100e9)])
    cc.on_ack(10_000, 1, False, None, [IntHop(0, 62_500, 10_000, 100e9)])  # half rate
    assert pytest.approx(0.5) == cc.U
    assert pytest.approx(51_000) == cc.W
    assert cc.inc_stage == 1


def test_hpcc_coarse_timestamps_measure_over_the_minimum_interval() -> None:
    """Microsecond timestamps (as fabric.p4 stamps them): records closer than
    `min_interval_ns` to the hop's reference leave U alone and keep the reference, so the
    rate is measured over the whole interval; an idle hop pulls U down."""
    cc = Hpcc(PATH, HpccParams(min_interval_ns=5_000))
    cc.on_ack(0, 1, False, None, [IntHop(0, 0, 0, 100e9)])
    for t in (0, 1_000, 4_000):  # same microsecond, then too close
        cc.on_ack(t + 500, 1, False, None, [IntHop(0, t * 100 // 8, t, 100e9)])
        assert cc.U == 1.0 and cc.w_init == cc.W
    # 5 us after the reference: half the line rate over those 5 us, no queue
    cc.on_ack(5_500, 1, False, None, [IntHop(0, 31_250, 5_000, 100e9)])
    assert pytest.approx(0.5 * 1.0 + 0.5 * 0.5) == cc.U  # tau = 5 us of T = 10 us
    assert cc.last[0].ts_ns == 5_000
    # an idle hop 10 us later: u = 0 with full weight
    cc.on_ack(16_000, 1, False, None, [IntHop(0, 31_250, 15_000, 100e9)])
    assert cc.U == 0.0


def test_hpcc_coarse_timestamps_wait_for_every_hop() -> None:
    """The busiest hop is chosen among all hops over one interval: a record of the idle
    first hop that is far enough from its reference does not count while the busy second
    hop's is not."""
    cc = Hpcc(PATH, HpccParams(min_interval_ns=5_000))
    idle, busy = (lambda t: IntHop(0, 0, t, 100e9)), (lambda t, b: IntHop(0, b, t, 100e9))
    cc.on_ack(0, 1, False, None, [idle(1_000), busy(0, 0)])
    cc.on_ack(1, 1, False, None, [idle(6_000), busy(4_000, 50_000)])
    assert cc.U == 1.0 and cc.last[0].ts_ns == 1_000
    cc.on_ack(2, 1, False, None, [idle(6_000), busy(5_000, 62_500)])  # line rate
    assert pytest.approx(1.0) == cc.U and cc.last[1].ts_ns == 5_000


def test_hpcc_sampled_measurements_update_the_reference_window_each_time() -> None:
    """With records compared a base RTT apart (min_interval_ns = T), each measurement is
    the once-per-RTT update of Wc, also when a queue makes the RTT samples longer than T
    (the paper's send-time rule would skip the second one: that packet left 10 us after
    the first measured one, 3 us less than an RTT)."""
    p = HpccParams(min_interval_ns=10_000)
    cc = Hpcc(PATH, p)
    w_init = 125_000.0
    w_ai = w_init * 0.05 / 16
    qlen = 25  # packets: a queue term of 25,000 B / B·T = 0.2
    u = 0.2 + 1.0  # and the hop at line rate
    rec = lambda ts: [IntHop(qlen, ts * 100 // 8, ts, 100e9)]  # noqa: E731
    cc.on_ack(13_000, 1, False, 13_000, rec(0))  # the first records: the reference
    cc.on_ack(23_000, 1, False, 13_000, rec(10_000))
    # tau = dt = T: U = u; U >= eta: multiplicative step from Wc = W_init, Wc updated
    w1 = w_init / (u / 0.95) + w_ai
    assert pytest.approx(u) == cc.U
    assert pytest.approx(w1) == cc.W and pytest.approx(w1) == cc.Wc
    cc.on_ack(33_000, 1, False, 13_000, rec(20_000))  # sent at 20 us, before the update
    w2 = w1 / (u / 0.95) + w_ai
    assert pytest.approx(w2) == cc.W and pytest.approx(w2) == cc.Wc
    cc.on_ack(34_000, 1, False, 13_000, rec(25_000))  # 5 us: not a measurement
    assert pytest.approx(w2) == cc.W
    cc.on_ack(43_000, 1, False, 13_000, rec(30_000))
    assert pytest.approx(w2 / (u / 0.95) + w_ai) == cc.Wc


def test_ndp_is_pull_driven_with_one_and_a_half_bdps_of_credits() -> None:
    cc = Ndp(PATH)
    assert cc.pull_driven and cc.control_in_header_class
    assert cc.initial_credits == math.ceil(1.5 * PATH.bdp_packets)
    assert Ndp(PATH, NdpParams(window_bdps=1.0)).initial_credits == math.ceil(PATH.bdp_packets)
    assert Ndp(PATH, NdpParams(init_window=7)).initial_credits == 7


def test_unknown_transport_and_parameter_are_refused() -> None:
    with pytest.raises(ValueError, match="transport 'tcp'"):
        make_transport("tcp", PATH)
    with pytest.raises(ValueError, match="no parameter 'gain'"):
        transport_params("dcqcn", {"gain": 1.0})
    assert transport_params("dcqcn", {"rate_timer_ns": 55_000.0}).rate_timer_ns == 55_000


def _frames() -> FlowFrames:
    return flow_frames()


def test_selective_receiver_drops_exactly_what_falls_outside_its_window() -> None:
    rx = Receiver(0, 20, _frames(), "selective", window=4)
    rx.deliver(0, False, False)  # expected 1: the window holds psn 1..4
    for psn in (4, 5, 9, 2):
        rx.deliver(psn, False, False)
    assert rx.outside_window == 2  # 5 and 9
    assert rx.held == 2  # 4 and 2
    rx.deliver(1, False, False)  # fills the gap: expected moves to 3
    assert rx.expected == 3
    rx.deliver(5, False, False)  # inside the window now (3..6)
    assert rx.outside_window == 2 and rx.held == 2
    rx.deliver(4, False, False)
    assert rx.duplicates == 1


def test_go_back_n_receiver_nacks_once_per_gap() -> None:
    rx = Receiver(0, 10, _frames(), "go_back_n")
    assert len(rx.deliver(0, False, False)) == 1
    assert len(rx.deliver(2, False, False)) == 1  # the NACK for 1
    assert rx.deliver(3, False, False) == []  # the same gap: no second NACK
    assert rx.expected == 1
    rx.deliver(1, False, False)
    assert rx.expected == 2
