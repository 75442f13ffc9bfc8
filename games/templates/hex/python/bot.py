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
# its answer is an ordered list of commands (at most 16, a zombie's unit call 4: past
# that the first run, the rest are refused and the call counts as an error). Spawning
# works in any call of your half-turn. Hexes: |x| <= 13 and |y| <= 13; distance
# |dx| + |dy| when dx * dy > 0, else max(|dx|, |dy|); the six facings 0..5 step (1, 0),
# (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1).
#
# This starting strategy (the bundled baseline): the humans take pistols near the middle
# and shoot the nearest zombie in range; the zombies spawn in the four zones in turn,
# facing inwards, bite a human next to them, else step forward, turning a random way at
# a wall or the edge. Change anything below.
#
# The protocol: one process plays the whole game. Each call is one line of JSON on
# standard input: {"kind": "spawn_humans" | "spawn_zombies" | "unit", "side": "humans" |
# "zombies", "t", "unit", "me", "humans_to_spawn", "zombies_to_spawn", ...} with, on the
# first call of each half-turn, the side's whole sight as "world" (lists "humans",
# "zombies", "walls", "crates", "airstrikes"), and on the later calls only what changed
# as "delta" ("added", "changed", "removed"): the World class below keeps the copy. The
# first line also carries "game" (the weapons table, the zones, the radius). The answer
# is one line of JSON, a list of commands such as [{"cmd": "attack", "id": 131}],
# flushed; {"random": n} asks the game's generator first. Standard error goes to
# logs/{{NAME}}.log.

import json
import sys

DIRS = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]
INWARD = {7: 0, 8: 4, 9: 3, 10: 1}
LISTS = ("humans", "zombies", "walls", "crates", "airstrikes")


class World:
    """The side's sight: per list, the objects by id (ids are unique across lists)."""

    def __init__(self):
        self.lists = {name: {} for name in LISTS}
        self.walls_at = None  # the walls' hexes, made again when the walls change

    def load(self, world):
        """A whole world: the first call of a half-turn."""
        self.lists = {name: {o["id"]: o for o in world.get(name, [])} for name in LISTS}
        self.walls_at = None

    def apply(self, delta):
        """What changed since the previous call: objects added or changed, ids removed."""
        for part in ("added", "changed"):
            for name, objects in delta.get(part, {}).items():
                table = self.lists[name]
                for o in objects:
                    table[o["id"]] = o
                if name == "walls":
                    self.walls_at = None
        for i in delta.get("removed", []):
            for name, table in self.lists.items():
                if table.pop(i, None) is not None:
                    if name == "walls":
                        self.walls_at = None
                    break

    def update(self, ctx):
        if "world" in ctx:
            self.load(ctx["world"])
        else:
            self.apply(ctx.get("delta", {}))

    def sorted(self, name):
        """A list's objects in id order (as the host lists them)."""
        table = self.lists[name]
        return [table[i] for i in sorted(table)]

    def wall_at(self, x, y):
        if self.walls_at is None:
            self.walls_at = {(w["x"], w["y"]) for w in self.lists["walls"].values()}
        return (x, y) in self.walls_at


def send(line):
    """One line to the host, flushed at once (the host waits for it)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def random(n):
    """A number in 0..n from the game's generator (one request line, one reply line)."""
    send(json.dumps({"random": n}))
    return json.loads(sys.stdin.buffer.readline())["random"]


def distance(x1, y1, x2, y2):
    dx, dy = x2 - x1, y2 - y1
    if dx * dy > 0:
        return abs(dx) + abs(dy)
    return max(abs(dx), abs(dy))


def answer(ctx, world, state):
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
        near = [(distance(me["x"], me["y"], z["x"], z["y"]), z["id"]) for z in world.lists["zombies"].values()]
        near = [n for n in near if n[0] <= 5]
        if near:
            target = min(near)[1]
            return [{"cmd": "attack", "id": target}] * 3
        return []
    for h in world.sorted("humans"):
        if distance(me["x"], me["y"], h["x"], h["y"]) <= 1:
            return [{"cmd": "attack", "id": h["id"]}]
    dx, dy = DIRS[me["facing"]]
    fx, fy = me["x"] + dx, me["y"] + dy
    if abs(fx) > 13 or abs(fy) > 13 or world.wall_at(fx, fy):
        return [{"cmd": "turn", "by": 1 if random(2) == 0 else -1}]
    return [{"cmd": "forward"}]


def main():
    state = {"zone": 0}
    world = World()
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            break
        ctx = json.loads(line)
        world.update(ctx)
        send(json.dumps(answer(ctx, world, state)))


main()
