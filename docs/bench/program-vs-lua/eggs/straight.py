#!/usr/bin/python3
# arena: eggs persistent
import os, random, sys
random.seed(os.environ.get("ARENA_SEED", "0"))
steps = [(-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)]
out = sys.stdout
while True:
    view = [sys.stdin.readline() for _ in range(5)]
    memory = sys.stdin.readline()
    if not memory:
        break
    memory = memory.rstrip("\n")
    def at(dx, dy):
        return view[2 + dy][2 + dx]
    for i, (dx, dy) in enumerate(steps, start=1):
        if at(dx, dy) == "o":
            out.write(f"{i}\nN\n{memory}\n")
            break
    else:
        d = int(memory) if memory.isdigit() and 1 <= int(memory) <= 8 else 0
        if d == 0 or at(*steps[d - 1]) in "#X":
            d = random.randint(1, 8)
        out.write(f"{d}\nN\n{d}\n")
    out.flush()
