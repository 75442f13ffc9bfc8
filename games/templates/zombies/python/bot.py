#!/usr/bin/env python3
# arena: zombies
# {{NAME}}: a zombies bot ("Save the last bullet for yourself") for the arena, a Python
# program written by `arena new-bot`. Nothing to build (keep the file executable); play
# it with
#     arena --game zombies --scripts . play --seed 1
#
# The game in a few lines (all of it, and the protocol: the arena's
# docs/games/zombies.md): every entry fields 50 players on a toroidal board; zombies
# rise and chase them, and a bitten player turns into one. Your score is how long your
# last player survives.
#
# The protocol: one process plays the whole game; for each of your living players each
# turn it reads one line of integers,
#     clock owner number x y bullets side k   then k times:  dx dy owner number
# (the player: its entry index, its number, position, bullets, the board's side; then
# every entity in its 17x17 view, itself included, at offset dx east, dy south; owner -1
# is a zombie, -2 a dead body, else an entry index) and answers one line: a move (N, NE,
# E, SE, S, SW, W, NW, STAY) or "SHOOT <number>" (something within 5 cells). Flush after
# each answer. Standard error goes to logs/{{NAME}}.log.
#
# This starting strategy: shoot a zombie that could bite next turn, else step away from
# the nearest zombie in sight, else wander at random. Change anything below.

import os
import random
import sys

ZOMBIE = -1
MOVES = [("N", 0, -1), ("NE", 1, -1), ("E", 1, 0), ("SE", 1, 1),
         ("S", 0, 1), ("SW", -1, 1), ("W", -1, 0), ("NW", -1, -1)]


def distance(dx, dy):
    """Chebyshev distance: how many moves apart two cells are."""
    return max(abs(dx), abs(dy))


def decide(numbers, shot):
    clock, owner, number, x, y, bullets, side, k = numbers[:8]
    seen = [tuple(numbers[8 + 4 * i: 12 + 4 * i]) for i in range(k)]  # (dx, dy, owner, number)
    occupied = {(dx, dy) for dx, dy, _, _ in seen}
    zombies = sorted((distance(dx, dy), dx, dy, n) for dx, dy, o, n in seen if o == ZOMBIE)

    # 1. A zombie within 2 cells can be next to us after its move, and bite: shoot it,
    #    unless another of our players already did this turn.
    if bullets > 0:
        for d, _, _, n in zombies:
            if d <= 2 and n not in shot:
                shot.add(n)
                return f"SHOOT {n}"

    # 2. Step to the free neighbouring cell farthest from the nearest zombie (a move onto
    #    an occupied cell fails: the player stays).
    if zombies:
        best_d, zx, zy, _ = zombies[0]
        best = "STAY"
        for name, mx, my in MOVES:
            if (mx, my) not in occupied and distance(zx - mx, zy - my) > best_d:
                best, best_d = name, distance(zx - mx, zy - my)
        return best

    # 3. Nothing in sight: wander (random numbers seeded in main from ARENA_SEED).
    return random.choice(MOVES)[0]


def main():
    # The game's seed: seeding from it makes the game replay exactly from its seed.
    random.seed(int(os.environ.get("ARENA_SEED", "1")))
    turn, shot = -1, set()  # zombie numbers shot at this turn
    for line in sys.stdin:
        numbers = [int(v) for v in line.split()]
        if len(numbers) < 8:
            print("STAY", flush=True)
            continue
        if numbers[0] != turn:
            turn, shot = numbers[0], set()
        print(decide(numbers, shot), flush=True)


if __name__ == "__main__":
    main()
