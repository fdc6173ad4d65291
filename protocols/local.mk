# protocols
