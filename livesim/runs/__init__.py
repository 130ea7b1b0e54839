"""Runs: the layer that drives envs with agents (episodes and records, replay and regrade, compare, the live
dashboard loop, HSA measurements). It sits above envs and agents and below hat and the CLI."""
