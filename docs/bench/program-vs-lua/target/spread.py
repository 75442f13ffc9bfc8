#!/usr/bin/python3
# arena: target
import sys
SIDE = 64
out = sys.stdout
for line in sys.stdin:
    n, me, wall, *others = map(int, line.split())
    mx, my = me % SIDE, me // SIDE
    best, bdx, bdy = 999, 0, 0
    for p in others:
        dx = (p % SIDE - mx + 32) % SIDE - 32
        dy = (p // SIDE - my + 32) % SIDE - 32
        d = abs(dx) + abs(dy)
        if d < best:
            best, bdx, bdy = d, dx, dy
    if best > 6:
        move = (0, 1, 3, 4)[me % 4]
    elif abs(bdx) >= abs(bdy):
        move = 1 if bdx > 0 else 3
    else:
        move = 0 if bdy > 0 else 4
    out.write(f"{move}\n")
    out.flush()
