"""Heuristic ("greedy") players, one module per game: ``choose(game, state, rng) -> action``."""
