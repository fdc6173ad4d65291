# tests: SLIM's experiment — the added delay per packet and per input's
# response (xcapanalyse --added-delay and its companions; their by-hand
# unit test is check_predict's), and its pictures (netplot --cdf
# added-delay), on real captures.
if NETPLOT
dist_check_SCRIPTS += tests/netplot-added-delay.sh
TESTS += tests/netplot-added-delay.sh
endif

# Against a real slower link (root, namespaces, xcap-link): a short typing
# at 1 Mbit/s in the suite; make long-slim adds 100 kbit/s and types more.
dist_check_SCRIPTS += tests/slim-link.sh
TESTS += tests/slim-link.sh
long-slim: all $(check_PROGRAMS)
	SLIM_RATES=1M,100k SLIM_TEXT="the quick brown fox jumps over" \
		$(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/slim-link.sh
.PHONY: long-slim
