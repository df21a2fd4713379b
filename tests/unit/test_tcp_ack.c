// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of include/tcp_ack_core.h, what the fast datapath re-does of the
 * kernel's tcp_cong_control(): PRR (RFC 6937) step by step and over a whole
 * recovery, the pacing rate, tcp_may_raise_cwnd(), the restart after idle, and
 * tcp_ack()'s flag as a kernel before 6.10 does not pass it.
 * The expected values are worked out by hand from RFC 6937 and the kernel's
 * formulas, not by calling the functions under test.
 */
#include <stdbool.h>
#include <string.h>
#include "tcp_ack_core.h"
#include "unit.h"

TEST(prr_first_ack_forces_one_retransmit)
{
	/* cwnd 20 at the loss, ssthresh 14 (beta 0.7), one lost: 19 in flight */
	struct tcp_prr p = { .ssthresh = 14, .in_flight = 19, .prior_cwnd = 20, .prr_out = 0 };
	__u32 prr_delivered = 0;

	/* delta < 0: ceil(14 x 1 / 20) - 0 = 1 */
	CHECK_EQ(tcp_core_prr_cwnd(&p, &prr_delivered, 1, 1, 0), 19 + 1);
	CHECK_EQ(prr_delivered, 1);
	/* nothing delivered: cwnd stays (0 = no change), the counter too */
	CHECK_EQ(tcp_core_prr_cwnd(&p, &prr_delivered, 0, 0, 0), 0);
	CHECK_EQ(prr_delivered, 1);
	/* no reduction begun (prior_cwnd 0): no change */
	p.prior_cwnd = 0;
	CHECK_EQ(tcp_core_prr_cwnd(&p, &prr_delivered, 1, 0, 0), 0);
}

TEST(prr_proportional_part)
{
	/* RFC 6937 section 3: sndcnt = CEIL(prr_delivered x ssthresh / RecoverFS) - prr_out */
	struct tcp_prr p = { .ssthresh = 14, .in_flight = 17, .prior_cwnd = 20, .prr_out = 2 };
	__u32 prr_delivered = 3;

	/* 4 delivered: ceil(14 x 4 / 20) = 3, minus the 2 sent: 1 */
	CHECK_EQ(tcp_core_prr_cwnd(&p, &prr_delivered, 1, 0, 0), 17 + 1);
	/* the ceiling is exact: ceil(7 x 3 / 10) = ceil(2.1) = 3 */
	{
		struct tcp_prr q = { .ssthresh = 7, .in_flight = 9, .prior_cwnd = 10, .prr_out = 0 };
		__u32 d = 2;

		CHECK_EQ(tcp_core_prr_cwnd(&q, &d, 1, 0, 0), 9 + 3);
		d = 1; /* ceil(7 x 2 / 10) = ceil(1.4) = 2 */
		CHECK_EQ(tcp_core_prr_cwnd(&q, &d, 1, 0, 0), 9 + 2);
	}
	/* ahead of the proportion: sndcnt 0, but prr_out > 0, so not forced to 1 */
	p.prr_out = 5;
	prr_delivered = 4;
	CHECK_EQ(tcp_core_prr_cwnd(&p, &prr_delivered, 1, 0, 0), 17);
}

TEST(prr_conservation_part)
{
	/* in flight 10 <= ssthresh 14: delta 4, send what was delivered */
	struct tcp_prr p = { .ssthresh = 14, .in_flight = 10, .prior_cwnd = 20, .prr_out = 8 };
	__u32 prr_delivered = 9;

	/* max(10 - 8, 1) = 2 */
	CHECK_EQ(tcp_core_prr_cwnd(&p, &prr_delivered, 1, 0, 0), 10 + 2);
	/* snd_una advanced and nothing newly lost: one more (slow start to ssthresh) */
	prr_delivered = 9;
	CHECK_EQ(tcp_core_prr_cwnd(&p, &prr_delivered, 1, 0, TCP_FLAG_SND_UNA_ADVANCED), 10 + 3);
	/* ... but not with a new loss */
	prr_delivered = 9;
	CHECK_EQ(tcp_core_prr_cwnd(&p, &prr_delivered, 1, 1, TCP_FLAG_SND_UNA_ADVANCED), 10 + 2);
	/* never above ssthresh: delta caps it */
	prr_delivered = 9;
	CHECK_EQ(tcp_core_prr_cwnd(&p, &prr_delivered, 6, 0, TCP_FLAG_SND_UNA_ADVANCED), 14);
}

/*
 * A whole recovery: 1 of 20 lost, every ACK delivers one packet and the
 * sender sends what cwnd allows. PRR sends ssthresh/RecoverFS of what was
 * delivered, spread over the round, and ends with ssthresh in flight.
 */
TEST(prr_whole_recovery)
{
	/* 20 in flight, 1 of them lost: the kernel counts 19 */
	struct tcp_prr p = { .ssthresh = 14, .in_flight = 19, .prior_cwnd = 20, .prr_out = 0 };
	__u32 prr_delivered = 0;

	for (int ack = 1; ack <= 20; ack++) {
		__u32 cwnd, send;

		bool proportional;

		p.in_flight -= 1; /* what this ACK delivered left the network */
		proportional = p.in_flight > p.ssthresh;
		cwnd = tcp_core_prr_cwnd(&p, &prr_delivered, 1, 0, 0);
		send = cwnd > p.in_flight ? cwnd - p.in_flight : 0;
		p.in_flight += send;
		p.prr_out += send;
		if (ack == 1)
			CHECK_EQ(send, 1); /* the fast retransmit */
		/* while above ssthresh: exactly ceil(ssthresh x delivered / RecoverFS) sent */
		if (proportional)
			CHECK(p.prr_out == (14 * prr_delivered + 19) / 20, "ack %d: prr_out %u after %u",
			      ack, p.prr_out, prr_delivered);
		else /* then one out per one delivered: in flight stays at ssthresh */
			CHECK_EQ(p.in_flight, 14);
		if (ack == 17) /* ceil(14 x 17 / 20) = 12; 19 - 17 + 12 = 14 in flight */
			CHECK(p.prr_out == 12 && p.in_flight == 14, "prr_out %u in flight %u", p.prr_out,
			      p.in_flight);
	}
	/* acks 18-20 each send one more: 15 sent, ssthresh in flight */
	CHECK_EQ(prr_delivered, 20);
	CHECK_EQ(p.prr_out, 15);
	CHECK_EQ(p.in_flight, 14);
}

TEST(pacing_rate_ratios)
{
	/* 10 x 1448 bytes per 1 ms = 14.48 MB/s; srtt_us is kept << 3 */
	struct tcp_pacing p = { .mss = 1448, .cwnd = 10, .ssthresh = 0x7fffffff, .packets_out = 4,
				.srtt_us = 1000 << 3, .ss_ratio = 200, .ca_ratio = 120,
				.max_rate = ~0ULL };

	CHECK_EQ(tcp_core_pacing_rate(&p), 28960000); /* 200 % in slow start */
	p.ssthresh = 20;			      /* cwnd >= ssthresh / 2: 120 % */
	CHECK_EQ(tcp_core_pacing_rate(&p), 17376000);
	p.ssthresh = 21; /* 10 < 21 / 2 = 10? no: integer half is 10 */
	CHECK_EQ(tcp_core_pacing_rate(&p), 17376000);
	p.ssthresh = 22; /* 10 < 11 */
	CHECK_EQ(tcp_core_pacing_rate(&p), 28960000);
	p.packets_out = 30; /* more in flight than cwnd counts */
	CHECK_EQ(tcp_core_pacing_rate(&p), 86880000);
	p.max_rate = 1000000; /* SO_MAX_PACING_RATE caps it */
	CHECK_EQ(tcp_core_pacing_rate(&p), 1000000);
	p.max_rate = ~0ULL;
	p.srtt_us = 0; /* no RTT yet: no division */
	CHECK_EQ(tcp_core_pacing_rate(&p), 1448ULL * 80000 * 200 * 30);
}

TEST(may_raise_cwnd)
{
	/* normal reordering: only in-order delivery raises cwnd */
	CHECK(tcp_core_may_raise_cwnd(3, 3, TCP_FLAG_DATA_ACKED), "data acked");
	CHECK(!tcp_core_may_raise_cwnd(3, 3, TCP_FLAG_DATA_SACKED), "sack only");
	CHECK(!tcp_core_may_raise_cwnd(3, 3, TCP_FLAG_SYN_ACKED), "syn only");
	CHECK(!tcp_core_may_raise_cwnd(3, 3, 0), "nothing");
	/* reordering above the sysctl: any forward progress */
	CHECK(tcp_core_may_raise_cwnd(4, 3, TCP_FLAG_DATA_SACKED), "sack, high reordering");
	CHECK(tcp_core_may_raise_cwnd(4, 3, TCP_FLAG_SYN_ACKED), "syn, high reordering");
	CHECK(!tcp_core_may_raise_cwnd(4, 3, TCP_FLAG_SND_UNA_ADVANCED), "una only");
}

/* The flag a (sk, rs) .cong_control (Linux before 6.10) does not get. */
TEST(ack_flag_before_6_10)
{
	struct tcp_ack_seen a = { .prior_una = 1000, .have_prior = 1, .sack = 1 };
	const int una_data = TCP_FLAG_DATA_ACKED | TCP_FLAG_SND_UNA_ADVANCED;

	/* a cumulative ACK of two segments */
	a.snd_una = 3000, a.acked_sacked = 2;
	CHECK_EQ(tcp_core_ack_flag(&a), una_data);
	/* and across the wrap of the sequence space */
	a.prior_una = 0xfffffc00u, a.snd_una = 0x400;
	CHECK_EQ(tcp_core_ack_flag(&a), una_data);
	/* the cumulative part moved snd_una, the SACKed part does not change that */
	a.prior_una = 1000, a.snd_una = 2000, a.acked_sacked = 5;
	CHECK_EQ(tcp_core_ack_flag(&a), una_data);
	/* snd_una still: what was delivered was SACKed */
	a.snd_una = 1000, a.acked_sacked = 3;
	CHECK_EQ(tcp_core_ack_flag(&a), TCP_FLAG_DATA_SACKED);
	/* a duplicate ACK with nothing new */
	a.acked_sacked = 0;
	CHECK_EQ(tcp_core_ack_flag(&a), 0);
	/* without SACK a duplicate ACK counts as delivered (Reno): no SACK flag */
	a.sack = 0, a.acked_sacked = 1;
	CHECK_EQ(tcp_core_ack_flag(&a), 0);
	/* an old ACK: snd_una never moves back, no flag either */
	a.sack = 1, a.acked_sacked = 0, a.snd_una = 900;
	CHECK_EQ(tcp_core_ack_flag(&a), 0);
	/* an active open's SYN-ACK, before .init has run */
	a.syn_sent = 1, a.have_prior = 0, a.acked_sacked = 1;
	CHECK_EQ(tcp_core_ack_flag(&a), TCP_FLAG_SYN_ACKED | TCP_FLAG_SND_UNA_ADVANCED);
	/* no prior snd_una known: delivered counts as acked */
	a.syn_sent = 0, a.acked_sacked = 2;
	CHECK_EQ(tcp_core_ack_flag(&a), una_data);
	a.acked_sacked = 0;
	CHECK_EQ(tcp_core_ack_flag(&a), 0);
	/* what cong_control() makes of it: cwnd grows on acked data only */
	a.have_prior = 1, a.prior_una = 1000, a.snd_una = 1000, a.acked_sacked = 3;
	CHECK(!tcp_core_may_raise_cwnd(3, 3, tcp_core_ack_flag(&a)), "sack only");
	CHECK(tcp_core_may_raise_cwnd(4, 3, tcp_core_ack_flag(&a)), "sack, high reordering");
	a.snd_una = 4000;
	CHECK(tcp_core_may_raise_cwnd(3, 3, tcp_core_ack_flag(&a)), "acked");
}

TEST(current_ssthresh)
{
	CHECK_EQ(tcp_core_current_ssthresh(100, 50, 0), 75);  /* 3/4 of cwnd */
	CHECK_EQ(tcp_core_current_ssthresh(100, 90, 0), 90);  /* already higher */
	CHECK_EQ(tcp_core_current_ssthresh(100, 50, 1), 50);  /* in a reduction: as is */
}

TEST(restart_after_idle)
{
	__u32 ss = 50;

	/* 3.5 RTOs idle: three halvings (2.5, 1.5, 0.5 left), 100 -> 12 */
	CHECK_EQ(tcp_core_cwnd_restart(100, &ss, 0, 10, 350, 100), 12);
	CHECK_EQ(ss, 75);
	/* 1.5 RTOs: one halving */
	ss = 50;
	CHECK_EQ(tcp_core_cwnd_restart(100, &ss, 0, 10, 150, 100), 50);
	/* long idle: down to the restart window, not below */
	ss = 50;
	CHECK_EQ(tcp_core_cwnd_restart(100, &ss, 0, 10, 100000, 100), 10);
	/* cwnd already below the initial window: restart window is cwnd */
	ss = 50;
	CHECK_EQ(tcp_core_cwnd_restart(4, &ss, 0, 10, 100000, 100), 4);
	/* a huge cwnd and idle stop after at most 32 halvings */
	ss = 50;
	CHECK_EQ(tcp_core_cwnd_restart(0xffffffffu, &ss, 0, 10, 0x7fffffff, 1), 10);
	/* no RTO known: no halving */
	ss = 50;
	CHECK_EQ(tcp_core_cwnd_restart(100, &ss, 0, 10, 1000, 0), 100);
}

TEST(app_limited_decay)
{
	__u32 ss = 50;

	/* used 40 of 100: the mean, 70; ssthresh keeps 3/4 of the old cwnd */
	CHECK_EQ(tcp_core_app_limited_cwnd(100, &ss, 40, 10), 70);
	CHECK_EQ(ss, 75);
	/* used less than the initial window: the initial window counts */
	ss = 50;
	CHECK_EQ(tcp_core_app_limited_cwnd(100, &ss, 3, 10), 55);
	/* used all of it: nothing changes, ssthresh neither */
	ss = 50;
	CHECK_EQ(tcp_core_app_limited_cwnd(100, &ss, 100, 10), 100);
	CHECK_EQ(ss, 50);
	CHECK_EQ(tcp_core_app_limited_cwnd(8, &ss, 0, 10), 8);
}

TEST(end_of_reduction)
{
	const __u32 inf = TCP_CORE_INFINITE_SSTHRESH;

	/* CWR -> Open: always (tcp_fastretrans_alert(), tcp_process_tlp_ack()) */
	CHECK(tcp_core_end_reduction(TCP_CORE_CA_CWR, TCP_CORE_CA_OPEN, 0, 20), "cwr");
	/* tcp_process_tlp_ack(): CWR -> Disorder when the ACK also SACKed data */
	CHECK(tcp_core_end_reduction(TCP_CORE_CA_CWR, TCP_CORE_CA_DISORDER, 0, 20), "tlp");
	CHECK(!tcp_core_end_reduction(TCP_CORE_CA_CWR, TCP_CORE_CA_DISORDER, 0, inf), "tlp inf");
	/* Recovery -> Open: only without an undo */
	CHECK(tcp_core_end_reduction(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_OPEN, 1234, 20), "recovery");
	CHECK(!tcp_core_end_reduction(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_OPEN, 0, 20), "undone");
	/* not to Open, or from elsewhere, or no ssthresh: never */
	CHECK(!tcp_core_end_reduction(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_DISORDER, 1234, 20), "disorder");
	CHECK(!tcp_core_end_reduction(TCP_CORE_CA_CWR, TCP_CORE_CA_RECOVERY, 0, 20), "cwr to recovery");
	CHECK(!tcp_core_end_reduction(TCP_CORE_CA_CWR, TCP_CORE_CA_LOSS, 0, 20), "cwr to loss");
	CHECK(!tcp_core_end_reduction(TCP_CORE_CA_LOSS, TCP_CORE_CA_OPEN, 1234, 20), "loss");
	CHECK(!tcp_core_end_reduction(TCP_CORE_CA_DISORDER, TCP_CORE_CA_OPEN, 1234, 20), "disorder");
	CHECK(!tcp_core_end_reduction(TCP_CORE_CA_OPEN, TCP_CORE_CA_OPEN, 1234, 20), "open");
	CHECK(!tcp_core_end_reduction(TCP_CORE_CA_CWR, TCP_CORE_CA_OPEN, 0, inf), "infinite");
}

/* The moves that follow a .ssthresh call, and only those. */
TEST(reduction_begins)
{
	CHECK(tcp_core_reduction_begins(TCP_CORE_CA_OPEN, TCP_CORE_CA_CWR, 0), "ecn");
	CHECK(tcp_core_reduction_begins(TCP_CORE_CA_DISORDER, TCP_CORE_CA_RECOVERY, 0), "ece ack");
	CHECK(tcp_core_reduction_begins(TCP_CORE_CA_OPEN, TCP_CORE_CA_RECOVERY, 30), "recovery");
	CHECK(tcp_core_reduction_begins(TCP_CORE_CA_OPEN, TCP_CORE_CA_LOSS, 30), "rto");
	/* tcp_non_congestion_loss_retransmit(): Loss without .ssthresh */
	CHECK(!tcp_core_reduction_begins(TCP_CORE_CA_OPEN, TCP_CORE_CA_LOSS, 0), "pmtu");
	/* already reducing: .ssthresh is not called again */
	CHECK(!tcp_core_reduction_begins(TCP_CORE_CA_CWR, TCP_CORE_CA_RECOVERY, 30), "cwr");
	CHECK(!tcp_core_reduction_begins(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_LOSS, 30), "rec");
	CHECK(!tcp_core_reduction_begins(TCP_CORE_CA_LOSS, TCP_CORE_CA_LOSS, 30), "loss");
	CHECK(!tcp_core_reduction_begins(TCP_CORE_CA_OPEN, TCP_CORE_CA_DISORDER, 30), "disorder");
	CHECK(!tcp_core_reduction_begins(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_OPEN, 30), "open");
}

/* What a move that .set_state never saw left undone. */
TEST(missed_moves)
{
	const __u32 inf = TCP_CORE_INFINITE_SSTHRESH;

	CHECK_EQ(tcp_core_missed_move(TCP_CORE_CA_OPEN, TCP_CORE_CA_OPEN, 0, 0, inf),
		 TCP_CORE_MISSED_NOTHING);
	CHECK_EQ(tcp_core_missed_move(TCP_CORE_CA_OPEN, TCP_CORE_CA_RECOVERY, 77, 30, 20),
		 TCP_CORE_MISSED_SSTHRESH);
	CHECK_EQ(tcp_core_missed_move(TCP_CORE_CA_DISORDER, TCP_CORE_CA_CWR, 0, 0, 20),
		 TCP_CORE_MISSED_SSTHRESH);
	CHECK_EQ(tcp_core_missed_move(TCP_CORE_CA_OPEN, TCP_CORE_CA_LOSS, 77, 30, 20),
		 TCP_CORE_MISSED_SSTHRESH);
	/* a path MTU drop's Loss asks nothing of the congestion control */
	CHECK_EQ(tcp_core_missed_move(TCP_CORE_CA_OPEN, TCP_CORE_CA_LOSS, 0, 0, 20),
		 TCP_CORE_MISSED_NOTHING);
	/* undone: undo_marker cleared, prior_ssthresh still set */
	CHECK_EQ(tcp_core_missed_move(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_OPEN, 0, 30, 30),
		 TCP_CORE_MISSED_UNDO);
	CHECK_EQ(tcp_core_missed_move(TCP_CORE_CA_LOSS, TCP_CORE_CA_DISORDER, 0, 30, 30),
		 TCP_CORE_MISSED_UNDO);
	/* an ECE recovery (no prior_ssthresh) is never undone through .undo_cwnd */
	CHECK_EQ(tcp_core_missed_move(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_OPEN, 0, 0, 20),
		 TCP_CORE_MISSED_NOTHING);
	/* ended without an undo: the reset */
	CHECK_EQ(tcp_core_missed_move(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_OPEN, 77, 30, 20),
		 TCP_CORE_MISSED_END);
	CHECK_EQ(tcp_core_missed_move(TCP_CORE_CA_CWR, TCP_CORE_CA_OPEN, 0, 0, 20),
		 TCP_CORE_MISSED_END);
	CHECK_EQ(tcp_core_missed_move(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_LOSS, 77, 30, 20),
		 TCP_CORE_MISSED_NOTHING);
}

/* A reduction in progress that bpf_cubic's .ssthresh began. */
TEST(reduction_is_ours)
{
	CHECK(tcp_core_reduction_is_ours(TCP_CORE_CA_RECOVERY, 5000, 5000, 70, 100), "ours");
	CHECK(tcp_core_reduction_is_ours(TCP_CORE_CA_CWR, 5000, 5000, 100, 100), "ssthresh = prior");
	/* ended and began again without us: another high_seq */
	CHECK(!tcp_core_reduction_is_ours(TCP_CORE_CA_RECOVERY, 9000, 5000, 70, 100), "seq");
	/* a stale finite ssthresh above anything ours could be */
	CHECK(!tcp_core_reduction_is_ours(TCP_CORE_CA_RECOVERY, 5000, 5000, 132726976, 100),
	      "stale");
	/* Open, Disorder and Loss are not judged here */
	CHECK(tcp_core_reduction_is_ours(TCP_CORE_CA_LOSS, 9000, 5000, 0x7fffffff, 100), "loss");
	CHECK(tcp_core_reduction_is_ours(TCP_CORE_CA_OPEN, 9000, 5000, 0x7fffffff, 100), "open");
	/* an undo's move out of Recovery carries prior_ssthresh, not a reduction's */
	CHECK(tcp_core_undoing(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_OPEN, 0), "undo");
	CHECK(tcp_core_undoing(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_DISORDER, 0), "partial");
	CHECK(!tcp_core_undoing(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_OPEN, 1234), "no undo");
	CHECK(!tcp_core_undoing(TCP_CORE_CA_RECOVERY, TCP_CORE_CA_LOSS, 0), "to loss");
	CHECK(!tcp_core_undoing(TCP_CORE_CA_OPEN, TCP_CORE_CA_RECOVERY, 0), "entry");
}

int main(void)
{
	RUN(prr_first_ack_forces_one_retransmit);
	RUN(prr_proportional_part);
	RUN(prr_conservation_part);
	RUN(prr_whole_recovery);
	RUN(pacing_rate_ratios);
	RUN(may_raise_cwnd);
	RUN(ack_flag_before_6_10);
	RUN(current_ssthresh);
	RUN(restart_after_idle);
	RUN(app_limited_decay);
	RUN(end_of_reduction);
	RUN(reduction_begins);
	RUN(missed_moves);
	RUN(reduction_is_ours);
	return unit_done("test_tcp_ack");
}
