"""Looking at trained agents: pictures of a checkpoint's policy."""
