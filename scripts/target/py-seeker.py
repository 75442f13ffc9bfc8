#!/usr/bin/env python3
# arena: target
# TargetSeekerPy: an "Invisible target" program bot (the seed's text protocol: one
# process per copy for the whole game; each turn one line in -- N+1, its position, the
# new wall or 4096, the N-1 other players' positions -- one move 0..4 out, within 50 ms).
#
# Strategy (the same as the TargetSeeker plugin and lua-seeker.lua): a wall is only
# placed where every player can still reach the target, so the target always lies in the
# region of free cells that holds the players. After a new wall the belief is pruned to
# the cells reachable from this player through non-wall cells. The copy then moves to
# where it is the nearest player to the most possible cells (a sample of at most SAMPLE
# cells, ties counting half), staying if nothing beats staying. It cannot tell its
# entry's other copies from rivals (each copy is a process of its own), so it treats
# every other player alike. Its random tie-breaks are seeded by the game's seed and its
# copy index (ARENA_SEED, ARENA_COPY), so that a game replays from its seed.
import os
import random
import sys

SIDE, CELLS, NO_WALL, SAMPLE = 64, 4096, 4096, 192


def step(p, m):
    x, y = p % SIDE, p // SIDE
    if m == 0:
        return ((y - 1) % SIDE) * SIDE + x
    if m == 4:
        return ((y + 1) % SIDE) * SIDE + x
    if m == 1:
        return y * SIDE + (x - 1) % SIDE
    if m == 3:
        return y * SIDE + (x + 1) % SIDE
    return p


def distance(a, b):
    dx = abs(a % SIDE - b % SIDE)
    dy = abs(a // SIDE - b // SIDE)
    return min(dx, SIDE - dx) + min(dy, SIDE - dy)


NEIGHBOURS = [[step(c, m) for m in (0, 1, 3, 4)] for c in range(CELLS)]


def main():
    wall = [False] * CELLS
    cells = list(range(CELLS))
    dirty = False
    rng = None
    for line in sys.stdin:
        nums = [int(v) for v in line.split()]
        if len(nums) < 3:
            print(2, flush=True)
            continue
        me, new_wall, others = nums[1], nums[2], nums[3:]
        if rng is None:
            rng = random.Random(f"{os.environ.get('ARENA_SEED', me)}:{os.environ.get('ARENA_COPY', '0')}")
        if new_wall != NO_WALL and 0 <= new_wall < CELLS and not wall[new_wall]:
            wall[new_wall] = True
            dirty = True
        if dirty:
            dirty = False
            seen = [False] * CELLS
            seen[me] = True
            todo = [me]
            while todo:
                c = todo.pop()
                for d in NEIGHBOURS[c]:
                    if not wall[d] and not seen[d]:
                        seen[d] = True
                        todo.append(d)
            cells = [c for c in cells if seen[c]]
        occupied = set(others)
        stride = max(1, -(-len(cells) // SAMPLE))
        sample = []
        for t in cells[::stride]:
            tx, ty = t % SIDE, t // SIDE
            best = 1000
            for p in others:
                dx = abs(tx - p % SIDE)
                dy = abs(ty - p // SIDE)
                d = min(dx, SIDE - dx) + min(dy, SIDE - dy)
                if d < best:
                    best = d
            sample.append((tx, ty, best))

        def mass(c):
            cx, cy = c % SIDE, c // SIDE
            total = 0
            for tx, ty, best in sample:
                dx = abs(tx - cx)
                dy = abs(ty - cy)
                d = min(dx, SIDE - dx) + min(dy, SIDE - dy)
                if d < best:
                    total += 2
                elif d == best:
                    total += 1
            return total

        best, ties, choice = mass(me), 1, 2
        for m in (0, 1, 3, 4):
            d = step(me, m)
            if wall[d] or d in occupied:
                continue
            v = mass(d)
            if v > best:
                best, ties, choice = v, 1, m
            elif v == best:
                ties += 1
                if rng.randrange(ties) == 0:
                    choice = m
        print(choice, flush=True)


if __name__ == "__main__":
    main()
