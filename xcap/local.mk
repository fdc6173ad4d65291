# xcap
