#!/usr/bin/env python3
# arena: hex
# A hex bot that plays whole sides over the program protocol (docs/games/hex.md, "Whole
# sides"): it answers its first line with {"plays": "sides"}, then gets one "side" line
# per half-turn with the side's whole world, and gives its commands one per line, reading
# after each the verdict and the delta of the world, which it applies to its own copy.
# The same decisions as plugins/hex-legion and scripts/hex/legion.lua, to the tie (a test
# checks it); the plan is told in full in plugins/hex-legion/src/lib.rs: humans fort up
# around a free centre, call ammo onto it, share ammo, focus their fire (each zombie shot
# until the world shows it dead) and wall the ring two steps out; zombies share their
# sightings, spawn nearest the first one, and act front-liners first: eat to heal, bite
# the weakest human in reach, else turn towards the nearest sighting and break the wall
# in front or step.
import json
import sys

DIRS = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]
SEQ = [13, 14, 12, 15, 11, 16, 10, 17, 9, 18, 8, 19, 7, 20, 6, 21, 5, 22, 4, 23, 3, 24, 2, 25, 1, 26, 0]
INWARD = [0, 4, 3, 1]
MEDKIT, SHOTGUN, GRENADE, CHAINSAW, PISTOL = 0, 1, 2, 4, 5
RANGE = [1, 3, 4, 1, 1, 5, 1]
AMMO = [5, 2, 12, 0, 0, 1, 3]
DELAY = [2.0, 1.0, 3.0, 1.0, 1.0, 0.5, 0.33]
LISTS = ("humans", "zombies", "walls", "crates", "airstrikes")
COUNTERS = ("humans_to_spawn", "zombies_to_spawn", "zombie_cap", "airdrops_held", "zombies_ready")


def send(value):
    """One line to the host, flushed at once (the host waits for it)."""
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def distance(x1, y1, x2, y2):
    dx, dy = x2 - x1, y2 - y1
    if dx * dy > 0:
        return abs(dx) + abs(dy)
    return max(abs(dx), abs(dy))


def step(x, y, d):
    dx, dy = DIRS[d % 6]
    return x + dx, y + dy


def in_bounds(x, y):
    return abs(x) <= 13 and abs(y) <= 13


def zone_hex(k, m):
    """Hex m of zone 7 + k."""
    return [(-13, -13 + m), (-13 + m, 13), (13, 13 - m), (13 - m, -13)][k]


def facing_towards(x, y, tx, ty, prefer):
    """The facing whose front hex is closest to (tx, ty): `prefer` unless another is closer."""
    def cost(d):
        fx, fy = step(x, y, d)
        return distance(fx, fy, tx, ty)
    best = prefer
    for d in range(6):
        if cost(d) < cost(best):
            best = d
    return best


class Turn:
    """One half-turn of the side: the world as the host last described it (the side line's
    world, then each verdict line's delta) and the counters, and the commands."""

    def __init__(self, ctx):
        self.t = ctx["t"]
        self.side = ctx["side"]
        self.counters = {k: ctx[k] for k in COUNTERS}
        self.lists = {name: {o["id"]: o for o in ctx["world"][name]} for name in LISTS}

    def sorted(self, name):
        """A list's objects in id order (as the host lists them)."""
        table = self.lists[name]
        return [table[i] for i in sorted(table)]

    def get(self, name, i):
        return self.lists[name].get(i)

    def apply(self, delta):
        for part in ("added", "changed"):
            for name, objects in delta.get(part, {}).items():
                for o in objects:
                    self.lists[name][o["id"]] = o
        for i in delta.get("removed", []):
            for table in self.lists.values():
                if table.pop(i, None) is not None:
                    break

    def command(self, command, unit=None):
        """Gives one command and reads its verdict: {"verdict": ..., "reason": ...}."""
        if unit is not None:
            command["unit"] = unit
        send(command)
        verdict = json.loads(sys.stdin.buffer.readline())
        self.apply(verdict.get("delta", {}))
        for k in COUNTERS:
            self.counters[k] = verdict[k]
        return verdict


def ok(verdict):
    return verdict["verdict"] == "accepted"


class Legion:
    def __init__(self):
        self.centre = None
        self.sightings = []
        self.zone_count = [0, 0, 0, 0]
        self.next_zone = 0

    def play(self, turn):
        if turn.side == "humans":
            self.humans(turn)
        else:
            self.zombies(turn)

    def place(self, turn):
        walls = {(w["x"], w["y"]) for w in turn.lists["walls"].values()}
        best, score = None, None
        for x in range(-8, 9):
            for y in range(-8, 9):
                if (x, y) in walls or any(step(x, y, d) in walls for d in range(6)):
                    continue
                ring = 0
                for d in range(6):
                    ax, ay = step(x, y, d)
                    ring += step(ax, ay, d) in walls
                    ring += step(ax, ay, d + 1) in walls
                s = 4 * ring - distance(0, 0, x, y)
                if score is None or s > score:
                    best, score = (x, y), s
        self.centre = best or (2, 2)
        arms = [PISTOL, SHOTGUN, PISTOL, SHOTGUN, PISTOL, PISTOL]
        for d in range(6):
            x, y = step(self.centre[0], self.centre[1], d)
            turn.command({"cmd": "spawn", "x": x, "y": y, "weapon": arms[d]})

    def humans(self, turn):
        if turn.t == 1:
            self.place(turn)
            return
        people = turn.sorted("humans")
        if not people:
            return
        if self.centre is None:
            self.centre = (people[0]["x"], people[0]["y"])
        cx, cy = self.centre
        ids = [h["id"] for h in people]
        # An ammo airdrop onto the empty centre.
        if turn.counters["airdrops_held"] >= 1 and not any((h["x"], h["y"]) == (cx, cy) for h in people):
            turn.command({"cmd": "call_drop", "x": cx, "y": cy, "contents": "ammo"})
        # Crates within reach.
        for i in ids:
            h = turn.get("humans", i)
            if h is None:
                continue
            grabs = [k["id"] for k in turn.sorted("crates")
                     if distance(h["x"], h["y"], k["x"], k["y"]) <= 1
                     and (k["contents"] == "ammo" or h["weapon"] == CHAINSAW)]
            for k in grabs:
                if turn.command({"cmd": "grab", "id": k}, i)["verdict"] == "cap":
                    return
        # Out of ammo next to the centre: the Chainsaw.
        for i in ids:
            h = turn.get("humans", i)
            if h and h["ammo"] <= 0 and h["weapon"] != CHAINSAW and distance(h["x"], h["y"], cx, cy) <= 1:
                turn.command({"cmd": "throw_weapon", "x": cx, "y": cy}, i)
        # Ammo for whoever runs low, from the neighbour with the most.
        for i in ids:
            h = turn.get("humans", i)
            if h is None or h["ammo"] >= 15:
                continue
            donor = None
            for o in turn.sorted("humans"):
                if (o["id"] != i and o["ammo"] > 40 and distance(o["x"], o["y"], h["x"], h["y"]) <= 1
                        and (donor is None or o["ammo"] > donor["ammo"])):
                    donor = o
            if donor:
                turn.command({"cmd": "give", "id": i, "amount": 20}, donor["id"])
        # Focus fire.
        targets = sorted((distance(z["x"], z["y"], cx, cy), z["hp"], z["id"]) for z in turn.sorted("zombies"))
        for _, _, target in targets:
            refused = set()
            while True:
                z = turn.get("zombies", target)
                if z is None:
                    break
                shooter = next((h["id"] for h in turn.sorted("humans")
                                if h["id"] not in refused and can_fire(turn, h, z)), None)
                if shooter is None:
                    break
                v = turn.command({"cmd": "attack", "id": target}, shooter)
                if v["verdict"] == "cap":
                    return
                if not ok(v):
                    refused.add(shooter)
        # Walls on the ring two steps from the centre, the weakest first.
        for i in ids:
            while True:
                h = turn.get("humans", i)
                if h is None or h["moves"] < 1:
                    break
                taken = {(o["x"], o["y"]) for o in turn.lists["humans"].values()}
                taken |= {(z["x"], z["y"]) for z in turn.lists["zombies"].values()}
                best, bhp = None, None
                for d in range(6):
                    px, py = step(h["x"], h["y"], d)
                    if in_bounds(px, py) and distance(cx, cy, px, py) == 2 and (px, py) not in taken:
                        hp = sum(w["hp"] for w in turn.lists["walls"].values() if (w["x"], w["y"]) == (px, py))
                        if bhp is None or hp < bhp:
                            best, bhp = (px, py), hp
                if best is None or not ok(turn.command({"cmd": "build", "x": best[0], "y": best[1]}, i)):
                    break

    def remember(self, turn):
        zombies = turn.sorted("zombies")
        humans = turn.sorted("humans")
        kept = []
        for (x, y) in self.sightings:
            watched = any(distance(z["x"], z["y"], x, y) <= 2 for z in zombies)
            there = any((h["x"], h["y"]) == (x, y) for h in humans)
            if not watched or there:
                kept.append((x, y))
        self.sightings = kept
        for h in humans:
            if (h["x"], h["y"]) not in self.sightings:
                self.sightings.append((h["x"], h["y"]))

    def nearest(self, x, y):
        best, bd = None, None
        for p in self.sightings:
            d = distance(x, y, p[0], p[1])
            if bd is None or d < bd:
                best, bd = p, d
        return best

    def zombies(self, turn):
        self.remember(turn)
        # The zombies alive at the half-turn's start, front-liners first.
        order = []
        for z in turn.sorted("zombies"):
            t = self.nearest(z["x"], z["y"]) or (0, 0)
            order.append((distance(z["x"], z["y"], t[0], t[1]), z["id"]))
        order.sort()
        # Spawns, while the supply and the cap allow.
        while turn.counters["zombies_to_spawn"] > 0:
            focus = self.sightings[0] if self.sightings else None
            if focus:
                edges = [focus[0] + 13, 13 - focus[1], 13 - focus[0], focus[1] + 13]
                k = 0
                for i in range(1, 4):
                    if edges[i] < edges[k]:
                        k = i
            else:
                self.next_zone += 1
                k = self.next_zone % 4
            hx, hy = zone_hex(k, SEQ[self.zone_count[k] % 27])
            tx, ty = focus or (0, 0)
            facing = facing_towards(hx, hy, tx, ty, INWARD[k])
            if not ok(turn.command({"cmd": "spawn_zombie", "zone": 7 + k, "facing": facing})):
                break
            self.zone_count[k] += 1
        for _, i in order:
            z = turn.get("zombies", i)
            if z is None:
                continue
            x, y = z["x"], z["y"]
            # Heal on the healthiest other zombie of its hex.
            if z["hp"] <= 35:
                meal = None
                for m in turn.sorted("zombies"):
                    if m["id"] != i and (m["x"], m["y"]) == (x, y) and (meal is None or m["hp"] > meal["hp"]):
                        meal = m
                if meal:
                    turn.command({"cmd": "eat", "id": meal["id"]}, i)
            z = turn.get("zombies", i)
            if z is None:
                continue
            prey = None
            for h in turn.sorted("humans"):
                if distance(x, y, h["x"], h["y"]) <= 1 and (prey is None or h["hp"] < prey["hp"]):
                    prey = h
            if prey:
                turn.command({"cmd": "attack", "id": prey["id"]}, i)
                continue
            f = z["facing"] % 6
            t = self.nearest(x, y)
            if t:
                want = facing_towards(x, y, t[0], t[1], f)
            elif z["scent"] > 0:
                want = f
            else:
                want = (f + 1) % 6
            if want != f:
                turn.command({"cmd": "turn", "by": 1 if (want - f) % 6 <= 3 else -1}, i)
                continue
            fx, fy = step(x, y, f)
            wall = next((w for w in turn.sorted("walls") if (w["x"], w["y"]) == (fx, fy)), None)
            if wall:
                turn.command({"cmd": "attack", "id": wall["id"]}, i)
            elif in_bounds(fx, fy):
                turn.command({"cmd": "forward"}, i)
            else:
                turn.command({"cmd": "turn", "by": 1}, i)


def can_fire(turn, h, z):
    w = h["weapon"]
    if w == MEDKIT or w >= 7:
        return False
    d = distance(h["x"], h["y"], z["x"], z["y"])
    if d < 1 or d > RANGE[w] or h["ammo"] < AMMO[w] or DELAY[w] >= h["idle"]:
        return False
    if w == GRENADE:
        return not any(distance(o["x"], o["y"], z["x"], z["y"]) <= 1 for o in turn.lists["humans"].values())
    return True


def main():
    bot = Legion()
    if not sys.stdin.buffer.readline():
        return
    # The first line of the game: the declaration answers it, and the first side line
    # follows at once.
    send({"plays": "sides"})
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            break
        ctx = json.loads(line)
        if ctx.get("kind") != "side":
            continue  # a verdict owed to a call that ran out of time
        bot.play(Turn(ctx))
        send("done")


main()
