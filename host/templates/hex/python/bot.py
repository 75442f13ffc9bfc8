#!/usr/bin/env python3
# arena: hex
# {{NAME}}: a hex humans vs zombies bot for the arena, a Python program written by
# `arena new-bot`. Nothing to build (keep the file executable); play it with
#     arena --game hex --scripts . play --seed 1 --set max_turns=100
#
# The game in a few lines (all of it: the arena's docs/games/hex.md): a game seats two
# entries, the first playing six armed humans on a hex map, the second the zombie horde;
# your bot plays either side, and each call says which. The humans try to survive as long
# as they can (up to 1000 half-turns); the zombies try to bite them all. Each call is
# either a spawn call (place your humans on the first half-turn; spawn zombies in the
# edge zones 7..10) or a unit call (one per living unit of your side, in id order), and
# its answer is an ordered list of commands (at most 16; a zombie's first 4 count).
# Hexes: |x| <= 13 and |y| <= 13; distance |dx| + |dy| when dx * dy > 0, else
# max(|dx|, |dy|); the six facings 0..5 step (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1),
# (1, -1).
#
# This starting strategy (the bundled baseline): the humans take pistols near the middle
# and shoot the nearest zombie in range; the zombies spawn in the four zones in turn,
# facing inwards, bite a human next to them, else step forward, turning a random way at
# a wall or the edge. Change anything below.
#
# The protocol: one process plays the whole game. Each call is one line of JSON on
# standard input: {"kind": "spawn_humans" | "spawn_zombies" | "unit", "side": "humans" |
# "zombies", "t", "unit", "me", "humans", "zombies", "walls", "crates", "airstrikes",
# "humans_to_spawn", "zombies_to_spawn", ...}; the answer is one line of JSON, a list of
# commands such as [{"cmd": "attack", "id": 131}], flushed. Standard error goes to
# logs/{{NAME}}.log.

import json
import sys

DIRS = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]  # facing 0..5
INWARD = {7: 0, 8: 4, 9: 3, 10: 1}  # zone -> facing into the board


def distance(x1, y1, x2, y2):
    dx, dy = x2 - x1, y2 - y1
    if dx * dy > 0:
        return abs(dx) + abs(dy)
    return max(abs(dx), abs(dy))


def answer(ctx, state):
    if ctx["kind"] == "spawn_humans":
        # Six pistols (weapon 5) around (2, 2), an open hall of the office map.
        return [{"cmd": "spawn", "x": x, "y": y, "weapon": 5}
                for x, y in [(2, 2), (3, 2), (2, 3), (1, 2), (2, 1), (3, 1)]]
    if ctx["kind"] == "spawn_zombies":
        out = []
        for _ in range(min(ctx["zombies_to_spawn"], 16)):
            zone = 7 + state["spawned"] % 4
            state["spawned"] += 1
            out.append({"cmd": "spawn_zombie", "zone": zone, "facing": INWARD[zone]})
        return out
    me = ctx["me"]
    if ctx["side"] == "humans":
        # Shoot the nearest zombie within a pistol's range (5), as often as it can.
        near = [(distance(me["x"], me["y"], z["x"], z["y"]), z["id"]) for z in ctx["zombies"]]
        near = [n for n in near if n[0] <= 5]
        if near:
            return [{"cmd": "attack", "id": min(near)[1]}] * 4
        return []
    # A zombie: bite a human next to it, else step forward, else turn (alternating
    # ways; a bot that wants randomness seeds it from the ARENA_SEED environment
    # variable, the game's seed, so that games replay exactly from their seed).
    for h in ctx["humans"]:
        if distance(me["x"], me["y"], h["x"], h["y"]) <= 1:
            return [{"cmd": "attack", "id": h["id"]}]
    dx, dy = DIRS[me["facing"] % 6]
    fx, fy = me["x"] + dx, me["y"] + dy
    walls = {(w["x"], w["y"]) for w in ctx["walls"]}
    if abs(fx) > 13 or abs(fy) > 13 or (fx, fy) in walls:
        state["turn"] = -state["turn"]
        return [{"cmd": "turn", "by": state["turn"]}]
    return [{"cmd": "forward"}]


def main():
    state = {"spawned": 0, "turn": 1}
    for line in sys.stdin:
        line = line.strip()
        print(json.dumps(answer(json.loads(line), state) if line else []), flush=True)


if __name__ == "__main__":
    main()
