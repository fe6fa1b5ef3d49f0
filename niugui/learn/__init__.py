"""Training the ``learned`` bot's network: features, self-play data, the numpy model, torch training,
evaluation (see docs/bots.md)."""
