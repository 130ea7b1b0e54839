"""The bare stream simulator (`sim.StreamSim`), its config, scenario files and the JSONL record format."""
