# The emulated link and the latency x bandwidth sweep.
