#!/usr/bin/env python3
# arena: target
# TargetRandomPy: the "Invisible target" baseline as a program bot (the seed's text
# protocol: one process per copy, one line in per turn, one move 0..4 out). Its numbers
# are seeded by the game's seed and its copy index (ARENA_SEED, ARENA_COPY), so that a
# game replays from its seed.
import os
import random
import sys

rng = None
for line in sys.stdin:
    nums = line.split()
    if rng is None:
        rng = random.Random(f"{os.environ.get('ARENA_SEED', '0')}:{os.environ.get('ARENA_COPY', '0')}")
    print(rng.randrange(5), flush=True)
