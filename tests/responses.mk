# Responses to input (xcapanalyse --responses): the golden capture and
# outputs, the ground truth against a server-side clock, the benchmark.
EXTRA_DIST += tests/captures/xterm-input.pcap \
	tests/golden/xterm-input-responses.out \
	tests/golden/xterm-input-responses-csv.out \
	tests/golden/xterm-input-responses-json.out \
	tests/golden/xterm-input-summary.out \
	tests/golden/xterm-input-summary-md.out \
	tests/golden/xterm-input-responses-quiet.out \
	tests/golden/rfb-xvnc-responses.out \
	tests/golden/rfb-xvnc-summary-json.out
