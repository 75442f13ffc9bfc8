#!/usr/bin/env python3
# arena: target
# {{NAME}}: an "Invisible target" bot for the arena, a Python program written by
# `arena new-bot`. Nothing to build (keep the file executable); play it with
#     arena --game target --scripts . play --seed 1
#
# The game in a few lines (all of it, and the protocol: the arena's
# docs/games/target.md): a target hides on a cell of a 64x64 torus (positions
# p = 64 * y + x). Every entry fields copies of its player; they move in turn, and now
# and then a wall appears, never one that would cut any player off from the target. The
# game ends after a round in which nobody moved; each copy nearest the target then
# scores a point.
#
# The protocol (the original contest's): each copy is a process of its own, kept for the
# whole game. On each of its turns it reads one line of integers: N + 1 (N players), its
# position, the wall added since its previous turn (or 4096), then the other N - 1
# players' positions; it answers one line within 50 ms: 0 north, 1 west, 2 stay, 3 east,
# 4 south. Flush after each answer. Standard error goes to logs/{{NAME}}.log.
#
# This starting strategy: spread out, since a copy far from everyone else is the
# nearest to more of the places the target can be. For the first 100 turns a copy steps
# away from the nearest other player while one is within 8 cells, never into a known
# wall; then it stays. The walls say where the target can be: use them.

import os
import random
import sys

SIDE, NO_WALL, STAY = 64, 4096, 2


def step(p, m):
    """The cell a move leads to from p on the torus."""
    x, y = p % SIDE, p // SIDE
    if m == 0:
        return ((y - 1) % SIDE) * SIDE + x
    if m == 1:
        return y * SIDE + (x - 1) % SIDE
    if m == 3:
        return y * SIDE + (x + 1) % SIDE
    if m == 4:
        return ((y + 1) % SIDE) * SIDE + x
    return p


def distance(a, b):
    """Torus Manhattan distance."""
    dx, dy = abs(a % SIDE - b % SIDE), abs(a // SIDE - b // SIDE)
    return min(dx, SIDE - dx) + min(dy, SIDE - dy)


def main():
    walls = set()  # every wall this copy was told about
    rng = None
    turn = 0
    for line in sys.stdin:
        numbers = [int(v) for v in line.split()]
        if len(numbers) < 3:
            print(STAY, flush=True)
            continue
        me, new_wall, others = numbers[1], numbers[2], numbers[3:]
        if rng is None:
            # Seeded from the game's seed and this copy's index (each copy is its own
            # process), so that the game replays exactly from its seed.
            rng = random.Random(f"{os.environ.get('ARENA_SEED', me)}:{os.environ.get('ARENA_COPY', '0')}")
        if new_wall != NO_WALL:
            walls.add(new_wall)
        turn += 1

        def nearest(p):
            return min((distance(p, o) for o in others), default=10**9)

        best, best_d = STAY, nearest(me)
        if turn <= 100 and best_d < 8:
            # The move that gets farthest from the nearest player; a move into a wall or
            # onto another player fails (the copy stays).
            for m in (0, 1, 3, 4):
                to = step(me, m)
                if to in walls or to in others:
                    continue
                d = nearest(to)
                if d > best_d or (d == best_d and best != STAY and rng.randrange(2) == 0):
                    best, best_d = m, d
        print(best, flush=True)


if __name__ == "__main__":
    main()
