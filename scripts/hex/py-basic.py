#!/usr/bin/env python3
# arena: hex
# The hex baseline as a program bot (one line of JSON per call, one line per answer):
# humans with pistols shoot the nearest zombie; zombies bite, else step forward, and
# turn at walls and edges. Deterministic (no randomness of its own).
import json
import sys

DIRS = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]
INWARD = {7: 0, 8: 4, 9: 3, 10: 1}


def distance(x1, y1, x2, y2):
    dx, dy = x2 - x1, y2 - y1
    if dx * dy > 0:
        return abs(dx) + abs(dy)
    return max(abs(dx), abs(dy))


def answer(ctx, state):
    if ctx["kind"] == "spawn_humans":
        return [{"cmd": "spawn", "x": x, "y": y, "weapon": 5}
                for x, y in [(2, 2), (3, 2), (2, 3), (1, 2), (2, 1), (3, 1)]]
    if ctx["kind"] == "spawn_zombies":
        out = []
        for _ in range(min(ctx["zombies_to_spawn"], 16)):
            zone = 7 + state["zone"] % 4
            state["zone"] += 1
            out.append({"cmd": "spawn_zombie", "zone": zone, "facing": INWARD[zone]})
        return out
    me = ctx["me"]
    if ctx["side"] == "humans":
        near = [(distance(me["x"], me["y"], z["x"], z["y"]), z["id"]) for z in ctx["zombies"]]
        near = [n for n in near if n[0] <= 5]
        if near:
            target = min(near)[1]
            return [{"cmd": "attack", "id": target}] * 3
        return []
    for h in ctx["humans"]:
        if distance(me["x"], me["y"], h["x"], h["y"]) <= 1:
            return [{"cmd": "attack", "id": h["id"]}]
    dx, dy = DIRS[me["facing"]]
    fx, fy = me["x"] + dx, me["y"] + dy
    walls = {(w["x"], w["y"]) for w in ctx["walls"]}
    if abs(fx) > 13 or abs(fy) > 13 or (fx, fy) in walls:
        state["turn"] = -state["turn"]
        return [{"cmd": "turn", "by": state["turn"]}]
    return [{"cmd": "forward"}]


def main():
    state = {"zone": 0, "turn": 1}
    for line in sys.stdin:
        ctx = json.loads(line)
        print(json.dumps(answer(ctx, state)), flush=True)


main()
