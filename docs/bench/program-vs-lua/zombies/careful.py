#!/usr/bin/python3
import random, sys

for line in sys.stdin:
    f = [int(v) for v in line.split()]
    bullets, k = f[5], f[7]
    seen = [f[8 + 4 * i: 12 + 4 * i] for i in range(k)]  # dx, dy, owner, number
    zombies = sorted((max(abs(dx), abs(dy)), dx, dy, n) for dx, dy, owner, n in seen if owner == -1)
    if zombies and zombies[0][0] <= 3 and bullets > 0:
        print("SHOOT", zombies[0][3])
    elif zombies:
        _, dx, dy, _ = zombies[0]
        ns = "N" if dy > 0 else "S" if dy < 0 else ""
        ew = "W" if dx > 0 else "E" if dx < 0 else ""
        print(ns + ew or "STAY")
    else:
        print(random.choice(["N", "NE", "E", "SE", "S", "SW", "W", "NW", "STAY"]))
    sys.stdout.flush()
