#!/usr/bin/env python3
# arena: hex
# A horde that hunts (the zombie side of HexSmart, in Python): zombies remember every
# human any of them has seen and steer to the nearest sighting (turning to the best
# facing, then stepping), bite humans next to them, break the walls in their way,
# follow their scent when no human was seen, and eat a zombie on their own hex to heal
# when hurt; they spawn in the zone closest to the humans, facing them. Its humans play
# the baseline (py-basic.py). It keeps its own copy of the world from the host's
# "world" and "delta" lines (docs/games/hex.md).
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


SEQ = [13, 14, 12, 15, 11, 16, 10, 17, 9, 18, 8, 19, 7, 20, 6, 21, 5, 22, 4, 23, 3, 24, 2, 25, 1, 26, 0]


def zone_hex(zone, k):
    return {7: (-13, -13 + k), 8: (-13 + k, 13), 9: (13, 13 - k), 10: (13 - k, -13)}[zone]


def step(p, d):
    dx, dy = DIRS[d % 6]
    return p[0] + dx, p[1] + dy


def facing_towards(src, dst, prefer):
    """The facing whose front hex is closest to dst (ties: prefer, then the lower)."""
    def cost(d):
        f = step(src, d)
        return distance(f[0], f[1], dst[0], dst[1])
    best = prefer
    for d in range(6):
        if cost(d) < cost(best):
            best = d
    return best


class Horde:
    def __init__(self):
        self.sightings = []  # where humans were seen, oldest first
        self.zone_count = [0, 0, 0, 0]
        self.next_zone = 0

    def remember(self, ctx, world):
        """Forget sightings a zombie that moved can see are empty; add the humans seen."""
        if "world" in ctx:
            movers = list(world.lists["zombies"].values())
        else:
            delta = ctx.get("delta", {})
            movers = delta.get("added", {}).get("zombies", []) + delta.get("changed", {}).get("zombies", [])
            if ctx["me"] is not None:
                movers.append(ctx["me"])
        humans = {(h["x"], h["y"]) for h in world.lists["humans"].values()}
        self.sightings = [s for s in self.sightings
                          if s in humans or not any(distance(z["x"], z["y"], s[0], s[1]) <= 2 for z in movers)]
        for h in world.sorted("humans"):
            if (h["x"], h["y"]) not in self.sightings:
                self.sightings.append((h["x"], h["y"]))

    def spawn(self, ctx):
        out = []
        for _ in range(min(ctx["zombies_to_spawn"], 16)):
            target = self.sightings[0] if self.sightings else None
            if target is not None:
                x, y = target
                edges = [x + 13, 13 - y, 13 - x, y + 13]
                k = edges.index(min(edges))
            else:
                self.next_zone += 1
                k = self.next_zone % 4
            zone = 7 + k
            hex_ = zone_hex(zone, SEQ[self.zone_count[k] % 27])
            self.zone_count[k] += 1
            facing = facing_towards(hex_, target or (0, 0), INWARD[zone])
            out.append({"cmd": "spawn_zombie", "zone": zone, "facing": facing})
        return out

    def zombie(self, ctx, world):
        me = ctx["me"]
        here = (me["x"], me["y"])
        out = []
        meals = [z for z in world.sorted("zombies") if z["id"] != me["id"] and (z["x"], z["y"]) == here]
        if meals and me["hp"] <= 35:
            out.append({"cmd": "eat", "id": max(reversed(meals), key=lambda z: z["hp"])["id"]})
        near = [h for h in world.sorted("humans") if distance(me["x"], me["y"], h["x"], h["y"]) <= 1]
        if near:
            out.append({"cmd": "attack", "id": min(near, key=lambda h: h["hp"])["id"]})
            return out
        f = me["facing"] % 6
        if self.sightings:
            nearest = min(self.sightings, key=lambda s: distance(here[0], here[1], s[0], s[1]))
            want = facing_towards(here, nearest, f)
        elif me["scent"] > 0:
            want = f
        else:
            want = (f + 1) % 6
        if want != f:
            out.append({"cmd": "turn", "by": 1 if (want + 6 - f) % 6 <= 3 else -1})
            return out
        front = step(here, f)
        wall = next((w for w in world.sorted("walls") if (w["x"], w["y"]) == front), None)
        if wall is not None:
            out.append({"cmd": "attack", "id": wall["id"]})
        elif abs(front[0]) <= 13 and abs(front[1]) <= 13:
            out.append({"cmd": "forward"})
        else:
            out.append({"cmd": "turn", "by": 1})
        return out


def humans(ctx, world):
    """The baseline's humans: six pistols near the middle, each shooting the nearest zombie."""
    if ctx["kind"] == "spawn_humans":
        return [{"cmd": "spawn", "x": x, "y": y, "weapon": 5}
                for x, y in [(2, 2), (3, 2), (2, 3), (1, 2), (2, 1), (3, 1)]]
    me = ctx["me"]
    near = [(distance(me["x"], me["y"], z["x"], z["y"]), z["id"]) for z in world.lists["zombies"].values()]
    near = [n for n in near if n[0] <= 5]
    return [{"cmd": "attack", "id": min(near)[1]}] * 3 if near else []


def main():
    world = World()
    horde = Horde()
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            break
        ctx = json.loads(line)
        world.update(ctx)
        if ctx["side"] == "humans":
            out = humans(ctx, world)
        else:
            horde.remember(ctx, world)
            out = horde.spawn(ctx) if ctx["kind"] == "spawn_zombies" else horde.zombie(ctx, world)
        send(json.dumps(out))


main()
