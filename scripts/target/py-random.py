#!/usr/bin/env python3
# arena: target
# TargetRandomPy: the "Invisible target" baseline as a program bot (the seed's text
# protocol: one process per copy, one line in per turn, one move 0..4 out). Its numbers
# are seeded by its first position, so that a game replays from its seed.
import random
import sys

rng = None
for line in sys.stdin:
    nums = line.split()
    if rng is None:
        rng = random.Random(int(nums[1]) if len(nums) > 1 else 0)
    print(rng.randrange(5), flush=True)
