//! The rules engine of hex humans vs zombies: the world, the commands of both sides and the
//! boundary between half-turns (spec sections 3 and 6 to 8).
//!
//! What this is: a deterministic state machine. `Engine::new` sets the game up and runs the first
//! boundary; `apply` checks and resolves one command at once (accepted or not, a rejected command
//! changes nothing except the two quirks of 8.3 and 8.5); `end_half_turn` runs the boundary of
//! spec 6. What it is not: no clocks (the host owns them and reports a timeout with `time_out`),
//! no bots, no I/O, no randomness.

use super::board::{self, CELLS};
use super::data::{self, Weapon};
use super::state::{Airstrike, Command, Contents, Crate, Human, Side, State, Wall, Zombie};

/// What an id names (spec 3). Ids are dense, so the world is a table indexed by id.
#[derive(Clone, Debug)]
enum Slot {
    /// Removed (dead, grabbed, landed) or never placed (an off-board airdrop's crate).
    Gone,
    /// A weapon type (0..=6) or a spawn zone (7..=10).
    Fixed,
    Wall(Wall),
    Crate(Crate),
    Human(Human),
    Zombie(Zombie),
    Airstrike(Airstrike),
}

/// One game of hex humans vs zombies.
#[derive(Clone, Debug)]
pub struct Engine {
    t: u32,
    airdrops_held: f64,
    zombies_ready: f64,
    /// Per zone (7..=10), how many zombies it has spawned (spec 4).
    zone_count: [u32; 4],
    /// Indexed by id; the counter of spec 3 is `slots.len()`.
    slots: Vec<Slot>,
    /// Ids of living objects of each kind, in id (= creation) order.
    humans: Vec<u32>,
    zombies: Vec<u32>,
    walls: Vec<u32>,
    crates: Vec<u32>,
    airstrikes: Vec<u32>,
    /// Hittable objects of each in-bounds hex, in the order they arrived there (the order splash
    /// damage visits them, which fixes the ids of crates dropped by deaths).
    cells: Vec<Vec<u32>>,
    humans_timed_out: bool,
    zombies_timed_out: bool,
    result: Option<(Side, u32)>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    /// Spec 6, start of game: weapons 0–6, zones 7–10, the office map from 11, t = 0, nothing held,
    /// then the first boundary. The result equals a trace's `initial_state`.
    pub fn new() -> Engine {
        let mut g = Engine {
            t: 0,
            airdrops_held: 0.0,
            zombies_ready: 0.0,
            zone_count: [0; 4],
            slots: Vec::with_capacity(4096),
            humans: Vec::new(),
            zombies: Vec::new(),
            walls: Vec::new(),
            crates: Vec::new(),
            airstrikes: Vec::new(),
            cells: vec![Vec::new(); CELLS],
            humans_timed_out: false,
            zombies_timed_out: false,
            result: None,
        };
        // Weapons 0..=6 and zones 7..=10 take the first ids.
        for _ in 0..data::FIRST_MAP_ID {
            g.slots.push(Slot::Fixed);
        }
        for (x, y, item) in data::office_items() {
            match item {
                data::MapItem::Wall(hp) => {
                    g.add_wall(x, y, hp);
                }
                data::MapItem::AmmoCrate(hp) => {
                    g.add_crate(x, y, hp, Contents::Ammo);
                }
            }
        }
        g.end_half_turn();
        g
    }

    // ---------------------------------------------------------------- read access

    /// The current half-turn (after the game ended: its result).
    pub fn t(&self) -> u32 {
        self.t
    }

    /// The side that plays the current half-turn.
    pub fn active(&self) -> Side {
        Side::of_turn(self.t)
    }

    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// (winner, result t) once the game is over.
    pub fn result(&self) -> Option<(Side, u32)> {
        self.result
    }

    /// Airdrops held by the humans (f64, at most 1).
    pub fn airdrops_held(&self) -> f64 {
        self.airdrops_held
    }

    /// Zombies ready to spawn (f64).
    pub fn zombies_ready(&self) -> f64 {
        self.zombies_ready
    }

    /// The zombie cap for the current half-turn (spec 8.1).
    pub fn zombie_cap(&self) -> u32 {
        data::zombie_cap(self.t)
    }

    /// Humans still to spawn (only meaningful on t = 1).
    pub fn humans_to_spawn(&self) -> usize {
        if self.t == 1 { data::HUMANS_PER_GAME.saturating_sub(self.humans.len()) } else { 0 }
    }

    /// How many humans, zombies, walls, crates and pending airstrikes there are, and the next id:
    /// equal before and after a command unless it created or removed an object.
    pub fn census(&self) -> [usize; 6] {
        [
            self.humans.len(),
            self.zombies.len(),
            self.walls.len(),
            self.crates.len(),
            self.airstrikes.len(),
            self.slots.len(),
        ]
    }

    /// The next id the counter will hand out (spec 3).
    pub fn next_id(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Ids of a side's living units in id order (the order the host calls them: hex.md, "The calls").
    pub fn unit_ids(&self, side: Side) -> &[u32] {
        match side {
            Side::Humans => &self.humans,
            Side::Zombies => &self.zombies,
        }
    }

    /// Living humans in id order.
    pub fn humans(&self) -> impl Iterator<Item = &Human> + '_ {
        self.humans.iter().filter_map(|&id| self.human(id))
    }

    /// Living zombies in id order.
    pub fn zombies(&self) -> impl Iterator<Item = &Zombie> + '_ {
        self.zombies.iter().filter_map(|&id| self.zombie(id))
    }

    /// Standing walls in id order.
    pub fn walls(&self) -> impl Iterator<Item = &Wall> + '_ {
        self.walls.iter().filter_map(|&id| self.wall(id))
    }

    /// Crates in id order.
    pub fn crates(&self) -> impl Iterator<Item = &Crate> + '_ {
        self.crates.iter().filter_map(|&id| self.krate(id))
    }

    /// Pending airdrops in id order.
    pub fn airstrikes(&self) -> impl Iterator<Item = &Airstrike> + '_ {
        self.airstrikes.iter().filter_map(|&id| self.airstrike(id))
    }

    pub fn human(&self, id: u32) -> Option<&Human> {
        match self.slots.get(id as usize) {
            Some(Slot::Human(h)) => Some(h),
            _ => None,
        }
    }

    pub fn zombie(&self, id: u32) -> Option<&Zombie> {
        match self.slots.get(id as usize) {
            Some(Slot::Zombie(z)) => Some(z),
            _ => None,
        }
    }

    pub fn wall(&self, id: u32) -> Option<&Wall> {
        match self.slots.get(id as usize) {
            Some(Slot::Wall(w)) => Some(w),
            _ => None,
        }
    }

    pub fn krate(&self, id: u32) -> Option<&Crate> {
        match self.slots.get(id as usize) {
            Some(Slot::Crate(c)) => Some(c),
            _ => None,
        }
    }

    pub fn airstrike(&self, id: u32) -> Option<&Airstrike> {
        match self.slots.get(id as usize) {
            Some(Slot::Airstrike(a)) => Some(a),
            _ => None,
        }
    }

    /// Ids of the hittable objects (walls, crates, humans, zombies) on a hex, in arrival order.
    pub fn occupants(&self, x: i32, y: i32) -> &[u32] {
        match board::cell(x, y) {
            Some(c) => &self.cells[c],
            None => &[],
        }
    }

    /// Is there a wall on the hex?
    pub fn wall_at(&self, x: i32, y: i32) -> bool {
        self.occupants(x, y).iter().any(|&id| matches!(self.slots[id as usize], Slot::Wall(_)))
    }

    /// Is there a human on the hex?
    pub fn human_at(&self, x: i32, y: i32) -> bool {
        self.occupants(x, y).iter().any(|&id| matches!(self.slots[id as usize], Slot::Human(_)))
    }

    /// Is there a zombie on the hex?
    pub fn zombie_at(&self, x: i32, y: i32) -> bool {
        self.occupants(x, y).iter().any(|&id| matches!(self.slots[id as usize], Slot::Zombie(_)))
    }

    /// The whole world, comparable with a trace state.
    pub fn snapshot(&self) -> State {
        State {
            t: self.t,
            airdrops_held: self.airdrops_held,
            zombies_ready: self.zombies_ready,
            zombie_cap: self.zombie_cap(),
            humans: self.humans().copied().collect(),
            zombies: self.zombies().copied().collect(),
            walls: self.walls().copied().collect(),
            crates: self.crates().copied().collect(),
            airstrikes: self.airstrikes().copied().collect(),
        }
    }

    // ---------------------------------------------------------------- creation and removal

    fn add_wall(&mut self, x: i32, y: i32, hp: i64) -> u32 {
        let id = self.next_id();
        self.slots.push(Slot::Wall(Wall { id, x, y, hp, cap: hp * data::WALL_CAP_FACTOR }));
        self.walls.push(id);
        self.enter(id, x, y);
        id
    }

    fn add_crate(&mut self, x: i32, y: i32, hp: i64, contents: Contents) -> u32 {
        let id = self.next_id();
        self.slots.push(Slot::Crate(Crate { id, x, y, hp, cap: hp, contents }));
        self.crates.push(id);
        self.enter(id, x, y);
        id
    }

    /// Put a hittable object at the end of its hex's list.
    fn enter(&mut self, id: u32, x: i32, y: i32) {
        if let Some(c) = board::cell(x, y) {
            self.cells[c].push(id);
        }
    }

    /// Take a hittable object out of its hex's list, keeping the others' order.
    fn leave(&mut self, id: u32, x: i32, y: i32) {
        if let Some(c) = board::cell(x, y) {
            let list = &mut self.cells[c];
            if let Some(i) = list.iter().position(|&o| o == id) {
                list.remove(i);
            }
        }
    }

    fn unlist(list: &mut Vec<u32>, id: u32) {
        if let Ok(i) = list.binary_search(&id) {
            list.remove(i);
        }
    }

    fn pos(&self, id: u32) -> Option<(i32, i32)> {
        match &self.slots[id as usize] {
            Slot::Wall(o) => Some((o.x, o.y)),
            Slot::Crate(o) => Some((o.x, o.y)),
            Slot::Human(o) => Some((o.x, o.y)),
            Slot::Zombie(o) => Some((o.x, o.y)),
            Slot::Airstrike(o) => Some((o.x, o.y)),
            _ => None,
        }
    }

    /// Spec 7.6: remove a hittable object whose hp is ≤ 0. A human with ammo > 0 leaves an ammo
    /// crate (hp = cap = its ammo) and then a crate with its carried weapon (hp 100).
    fn check_death(&mut self, id: u32) {
        let (x, y, drops) = match &self.slots[id as usize] {
            Slot::Wall(o) if o.hp <= 0 => (o.x, o.y, None),
            Slot::Crate(o) if o.hp <= 0 => (o.x, o.y, None),
            Slot::Zombie(o) if o.hp <= 0 => (o.x, o.y, None),
            Slot::Human(o) if o.hp <= 0 => (o.x, o.y, if o.ammo > 0 { Some((o.ammo, o.weapon)) } else { None }),
            _ => return,
        };
        let list = match &self.slots[id as usize] {
            Slot::Wall(_) => &mut self.walls,
            Slot::Crate(_) => &mut self.crates,
            Slot::Zombie(_) => &mut self.zombies,
            _ => &mut self.humans,
        };
        Self::unlist(list, id);
        self.slots[id as usize] = Slot::Gone;
        self.leave(id, x, y);
        if let Some((ammo, weapon)) = drops {
            self.add_crate(x, y, ammo, Contents::Ammo);
            self.add_crate(x, y, data::CRATE_HP, Contents::Weapon(weapon));
        }
    }

    /// Spec 7.6: damage d (negative heals): hp −= d, then hp := min(hp, cap); then the death check.
    fn hit(&mut self, id: u32, d: i64) {
        let (hp, cap) = match &mut self.slots[id as usize] {
            Slot::Wall(o) => (&mut o.hp, o.cap),
            Slot::Crate(o) => (&mut o.hp, o.cap),
            Slot::Human(o) => (&mut o.hp, data::HUMAN_HP_CAP),
            Slot::Zombie(o) => (&mut o.hp, data::ZOMBIE_HP_CAP),
            _ => return,
        };
        *hp = (*hp - d).min(cap);
        self.check_death(id);
    }

    /// Every hittable object on a hex, listed when the hex is processed, takes d (7.5, 7.9).
    fn hit_hex(&mut self, x: i32, y: i32, d: i64) {
        let Some(c) = board::cell(x, y) else { return };
        if self.cells[c].is_empty() {
            return;
        }
        let listed = self.cells[c].clone();
        for id in listed {
            self.hit(id, d);
        }
    }

    // ---------------------------------------------------------------- commands

    /// Check and resolve one command of `side` at once; `true` if accepted. Commands of the side
    /// that is not active, and every command after the game ended, are rejected.
    pub fn apply(&mut self, side: Side, cmd: &Command) -> bool {
        self.try_apply(side, cmd).is_ok()
    }

    /// [`Engine::apply`], saying why a refused command was refused (the first check it failed,
    /// in the order of the rules). A refused command changes nothing, but for the two quirks
    /// of spec 8.3 and 8.5.
    pub fn try_apply(&mut self, side: Side, cmd: &Command) -> Result<(), Refusal> {
        if self.result.is_some() {
            return Err(Refusal::GameOver);
        }
        if side != self.active() {
            return Err(Refusal::NotYourHalfTurn);
        }
        match (side, *cmd) {
            (Side::Humans, Command::SpawnHuman { x, y, weapon }) => self.spawn_human(x, y, weapon),
            (Side::Humans, Command::Move { unit, x, y }) => self.human_move(unit, x, y),
            (Side::Zombies, Command::Move { unit, x, y }) => self.zombie_move(unit, Some((x, y))),
            (Side::Zombies, Command::Forward { unit }) => self.zombie_move(unit, None),
            (_, Command::Attack { unit, target }) => self.attack(side, unit, Target::Object(target)),
            (_, Command::AttackGround { unit, x, y }) => self.attack(side, unit, Target::Ground(x, y)),
            (Side::Humans, Command::Grab { unit, krate }) => self.grab(unit, krate),
            (Side::Humans, Command::Give { unit, to, amount }) => self.give(unit, to, amount),
            (Side::Humans, Command::ThrowWeapon { unit, x, y }) => self.throw(unit, x, y, None),
            (Side::Humans, Command::ThrowAmmo { unit, x, y, amount }) => self.throw(unit, x, y, Some(amount)),
            (Side::Humans, Command::Build { unit, x, y }) => self.build(unit, x, y),
            (Side::Humans, Command::CallDrop { x, y, contents }) => self.call_drop(x, y, contents),
            (Side::Zombies, Command::SpawnZombie { zone, facing }) => self.spawn_zombie(zone, facing),
            (Side::Zombies, Command::Turn { unit, direction }) => self.turn(unit, direction),
            (Side::Zombies, Command::Eat { unit, target }) => self.eat(unit, target),
            _ => Err(Refusal::NotThisSide),
        }
    }

    fn human_mut(&mut self, id: u32) -> Option<&mut Human> {
        match self.slots.get_mut(id as usize) {
            Some(Slot::Human(h)) => Some(h),
            _ => None,
        }
    }

    fn zombie_mut(&mut self, id: u32) -> Option<&mut Zombie> {
        match self.slots.get_mut(id as usize) {
            Some(Slot::Zombie(z)) => Some(z),
            _ => None,
        }
    }

    /// Spec 7.1.
    fn spawn_human(&mut self, x: i32, y: i32, weapon: u32) -> Result<(), Refusal> {
        // 1. Half-turn 1 only, in bounds, fewer than 6 living humans.
        if self.t != 1 {
            return Err(Refusal::NotHalfTurnOne);
        }
        if !board::in_bounds(x, y) {
            return Err(Refusal::OffTheBoard);
        }
        if self.humans.len() >= data::HUMANS_PER_GAME {
            return Err(Refusal::AllPlaced);
        }
        // 2. A weapon one can spawn with.
        if !data::weapon(weapon).is_some_and(|w| w.spawn_with) {
            return Err(Refusal::NotASpawnWeapon);
        }
        // 3. No human and no wall on the hex.
        if self.human_at(x, y) || self.wall_at(x, y) {
            return Err(Refusal::Occupied);
        }
        // 4. hp 100, ammo 125, 0 moves, idle 0.5.
        let id = self.next_id();
        self.slots.push(Slot::Human(Human {
            id,
            x,
            y,
            hp: data::HUMAN_HP,
            ammo: data::HUMAN_AMMO,
            weapon,
            specialty: weapon,
            moves: 0,
            idle: data::IDLE_START,
        }));
        self.humans.push(id);
        self.enter(id, x, y);
        Ok(())
    }

    /// Spec 7.3.
    fn human_move(&mut self, unit: u32, x: i32, y: i32) -> Result<(), Refusal> {
        let Some(h) = self.human(unit).copied() else { return Err(Refusal::NoSuchHuman) };
        // 1. In bounds, adjacent, no wall, human or zombie there, a move left.
        if !board::in_bounds(x, y) {
            return Err(Refusal::OffTheBoard);
        }
        if !board::adjacent(h.x, h.y, x, y) {
            return Err(Refusal::NotAdjacent);
        }
        if h.moves < 1 {
            return Err(Refusal::NoMoves);
        }
        if self.occupants(x, y).iter().any(|&o| !matches!(self.slots[o as usize], Slot::Crate(_))) {
            return Err(Refusal::Blocked);
        }
        // 2. Step, −1 move.
        self.leave(unit, h.x, h.y);
        let hm = self.human_mut(unit).expect("human");
        hm.x = x;
        hm.y = y;
        hm.moves -= 1;
        self.enter(unit, x, y);
        Ok(())
    }

    /// Spec 8.5, move: forward only (a `Move` names the hex, which must then be the front one).
    fn zombie_move(&mut self, unit: u32, to: Option<(i32, i32)>) -> Result<(), Refusal> {
        let Some(z) = self.zombie(unit).copied() else { return Err(Refusal::NoSuchZombie) };
        let (fx, fy) = board::front(z.x, z.y, z.facing);
        if to.is_some_and(|p| p != (fx, fy)) {
            return Err(Refusal::NotFront);
        }
        // 1. In bounds, no wall and no human there, a move left.
        if !board::in_bounds(fx, fy) {
            return Err(Refusal::OffTheBoard);
        }
        if z.moves < 1 {
            return Err(Refusal::NoMoves);
        }
        if self.wall_at(fx, fy) || self.human_at(fx, fy) {
            return Err(Refusal::FrontBlocked);
        }
        // 2. Step, −1 move.
        self.leave(unit, z.x, z.y);
        let zm = self.zombie_mut(unit).expect("zombie");
        zm.x = fx;
        zm.y = fy;
        zm.moves -= 1;
        self.enter(unit, fx, fy);
        Ok(())
    }

    /// Spec 7.5 (humans) and 8.5 (zombies).
    fn attack(&mut self, side: Side, unit: u32, target: Target) -> Result<(), Refusal> {
        // Check 1: an object target exists and is hittable.
        let (tx, ty, target_id, target_is_crate) = match target {
            Target::Object(id) => match self.slots.get(id as usize) {
                Some(Slot::Wall(o)) => (o.x, o.y, Some(id), false),
                Some(Slot::Crate(o)) => (o.x, o.y, Some(id), true),
                Some(Slot::Human(o)) => (o.x, o.y, Some(id), false),
                Some(Slot::Zombie(o)) => (o.x, o.y, Some(id), false),
                _ => return Err(Refusal::NoTarget),
            },
            Target::Ground(x, y) => (x, y, None, false),
        };
        // Check 2: the attacker is a unit of the active side.
        let (ax, ay, weapon, ammo, idle) = match (side, self.slots.get(unit as usize)) {
            (Side::Humans, Some(Slot::Human(h))) => (h.x, h.y, h.weapon, h.ammo, h.idle),
            (Side::Zombies, Some(Slot::Zombie(z))) => (z.x, z.y, data::ZOMBIE_ARMS, 0, z.idle),
            (Side::Humans, _) => return Err(Refusal::NoSuchHuman),
            (Side::Zombies, _) => return Err(Refusal::NoSuchZombie),
        };
        let w: Weapon = data::WEAPONS[weapon as usize];
        // Check 3: range (no line of sight). Check 4: ammo. Check 5: zombies may not hit crates.
        if board::distance(ax, ay, tx, ty) > w.range {
            return Err(Refusal::OutOfRange);
        }
        if ammo < w.ammo {
            return Err(Refusal::NoAmmo);
        }
        if side == Side::Zombies && target_is_crate {
            return Err(Refusal::ZombieHitsCrate);
        }
        // Check 6: the firing rule (7.4): delay < idle; idle −= delay, capped at 1.
        if w.delay >= idle {
            return Err(Refusal::NotReady);
        }
        let idle = idle - w.delay;
        let idle = if idle > 1.0 { 1.0 } else { idle };
        match side {
            Side::Humans => {
                let h = self.human_mut(unit).expect("human");
                h.idle = idle;
                h.ammo -= w.ammo;
            }
            Side::Zombies => {
                // 8.5: the idle time is spent even if the move check then fails.
                let z = self.zombie_mut(unit).expect("zombie");
                z.idle = idle;
                if z.moves < 1 {
                    return Err(Refusal::NoMoves);
                }
                z.moves -= 1;
            }
        }
        // Damage step 1: direct, object form only.
        if let Some(id) = target_id
            && w.direct != 0
        {
            self.hit(id, w.direct);
        }
        // Damage step 2: horizontal over the disk, in disk order.
        if w.horizontal != 0 {
            for (x, y) in board::disk(tx, ty, w.radius) {
                self.hit_hex(x, y, w.horizontal);
            }
        }
        // Damage step 3: vertical on the target hex.
        if w.vertical != 0 {
            self.hit_hex(tx, ty, w.vertical);
        }
        Ok(())
    }

    /// Spec 7.7, grab.
    fn grab(&mut self, unit: u32, krate: u32) -> Result<(), Refusal> {
        let Some(h) = self.human(unit).copied() else { return Err(Refusal::NoSuchHuman) };
        let Some(c) = self.krate(krate).copied() else { return Err(Refusal::NoSuchCrate) };
        if board::distance(h.x, h.y, c.x, c.y) > 1 {
            return Err(Refusal::TooFar);
        }
        let hm = self.human_mut(unit).expect("human");
        match c.contents {
            Contents::Weapon(w) if hm.weapon == data::CHAINSAW => hm.weapon = w,
            Contents::Ammo => hm.ammo += c.hp,
            Contents::Weapon(_) => return Err(Refusal::NeedsChainsaw),
        }
        self.remove_crate(krate);
        Ok(())
    }

    fn remove_crate(&mut self, id: u32) {
        if let Some(c) = self.krate(id).copied() {
            Self::unlist(&mut self.crates, id);
            self.slots[id as usize] = Slot::Gone;
            self.leave(id, c.x, c.y);
        }
    }

    /// Spec 7.7, give.
    fn give(&mut self, unit: u32, to: u32, amount: i64) -> Result<(), Refusal> {
        let Some(g) = self.human(unit).copied() else { return Err(Refusal::NoSuchHuman) };
        let Some(r) = self.human(to).copied() else { return Err(Refusal::NoTarget) };
        if amount < 1 || amount > g.ammo {
            return Err(Refusal::BadAmount);
        }
        if board::distance(g.x, g.y, r.x, r.y) > 1 {
            return Err(Refusal::TooFar);
        }
        self.human_mut(unit).expect("human").ammo -= amount;
        self.human_mut(to).expect("human").ammo += amount;
        Ok(())
    }

    /// Spec 7.7, throw: the carried weapon (`amount` None) or ammo.
    fn throw(&mut self, unit: u32, x: i32, y: i32, amount: Option<i64>) -> Result<(), Refusal> {
        let Some(h) = self.human(unit).copied() else { return Err(Refusal::NoSuchHuman) };
        // 1. In bounds, distance ≤ 1, not holding the Chainsaw.
        if !board::in_bounds(x, y) {
            return Err(Refusal::OffTheBoard);
        }
        if board::distance(h.x, h.y, x, y) > 1 {
            return Err(Refusal::TooFar);
        }
        if h.weapon == data::CHAINSAW {
            return Err(Refusal::HoldsChainsaw);
        }
        match amount {
            None => {
                // 2a. The weapon goes into a new crate (hp 100); the human holds the Chainsaw.
                self.human_mut(unit).expect("human").weapon = data::CHAINSAW;
                self.add_crate(x, y, data::CRATE_HP, Contents::Weapon(h.weapon));
            }
            Some(q) => {
                // 2b. 1 ≤ q ≤ ammo (deviation: the original allowed q ≤ 0); a crate with hp = cap = q.
                if q < 1 || q > h.ammo {
                    return Err(Refusal::BadAmount);
                }
                self.human_mut(unit).expect("human").ammo -= q;
                self.add_crate(x, y, q, Contents::Ammo);
            }
        }
        Ok(())
    }

    /// Spec 7.8.
    fn build(&mut self, unit: u32, x: i32, y: i32) -> Result<(), Refusal> {
        let Some(h) = self.human(unit).copied() else { return Err(Refusal::NoSuchHuman) };
        // 1. In bounds, adjacent, no human and no zombie there, a move left.
        if !board::in_bounds(x, y) {
            return Err(Refusal::OffTheBoard);
        }
        if !board::adjacent(h.x, h.y, x, y) {
            return Err(Refusal::NotAdjacent);
        }
        if h.moves < 1 {
            return Err(Refusal::NoMoves);
        }
        if self.human_at(x, y) || self.zombie_at(x, y) {
            return Err(Refusal::UnitThere);
        }
        // 2. −1 move; a new wall (7 hp) or +7 hp on the wall there (up to its cap).
        self.human_mut(unit).expect("human").moves -= 1;
        let existing = self.occupants(x, y).iter().copied().find(|&o| matches!(self.slots[o as usize], Slot::Wall(_)));
        match existing {
            Some(id) => self.hit(id, -data::BUILD_HP),
            None => {
                self.add_wall(x, y, data::BUILD_HP);
            }
        }
        Ok(())
    }

    /// Spec 7.9, call.
    fn call_drop(&mut self, x: i32, y: i32, contents: Contents) -> Result<(), Refusal> {
        if self.airdrops_held < 1.0 {
            return Err(Refusal::NoAirdrop);
        }
        if let Contents::Weapon(w) = contents
            && !data::weapon(w).is_some_and(|w| w.call_in)
        {
            return Err(Refusal::NotDroppable);
        }
        self.airdrops_held -= 1.0;
        let id = self.next_id();
        self.slots.push(Slot::Airstrike(Airstrike { id, x, y, delay: data::AIRDROP_DELAY, contents }));
        self.airstrikes.push(id);
        Ok(())
    }

    /// Spec 8.2.
    fn spawn_zombie(&mut self, zone: u32, facing: u32) -> Result<(), Refusal> {
        // 1. Below the cap, a whole zombie ready, a facing 0..=5, a zone id.
        if self.zombies.len() as u32 >= self.zombie_cap() {
            return Err(Refusal::AtTheCap);
        }
        if self.zombies_ready < 1.0 {
            return Err(Refusal::NoneReady);
        }
        if facing > 5 {
            return Err(Refusal::BadFacing);
        }
        let Some(k) = data::ZONES.iter().position(|&z| z == zone) else { return Err(Refusal::NoSuchZone) };
        // 2. The zone's next hex, whatever stands there; hp 70, 0 moves, idle 0.5, scent 0.
        let (x, y) = data::zone_spawn_hex(zone, self.zone_count[k]).expect("zone");
        self.zone_count[k] += 1;
        let id = self.next_id();
        self.slots.push(Slot::Zombie(Zombie {
            id,
            x,
            y,
            hp: data::ZOMBIE_HP,
            facing: facing as u8,
            moves: 0,
            idle: data::IDLE_START,
            scent: 0.0,
        }));
        self.zombies.push(id);
        self.enter(id, x, y);
        // 3. Ready −= 1.
        self.zombies_ready -= 1.0;
        Ok(())
    }

    /// Spec 8.3. Quirk kept: a direction other than ±1 spends the move and is rejected.
    fn turn(&mut self, unit: u32, direction: i32) -> Result<(), Refusal> {
        let Some(z) = self.zombie_mut(unit) else { return Err(Refusal::NoSuchZombie) };
        if z.moves < 1 {
            return Err(Refusal::NoMoves);
        }
        z.moves -= 1;
        if direction.abs() != 1 {
            return Err(Refusal::BadTurn);
        }
        z.facing = (z.facing as i32 + direction).rem_euclid(6) as u8;
        Ok(())
    }

    /// Spec 8.6.
    fn eat(&mut self, unit: u32, target: u32) -> Result<(), Refusal> {
        let Some(z) = self.zombie(unit).copied() else { return Err(Refusal::NoSuchZombie) };
        let Some(v) = self.zombie(target).copied() else { return Err(Refusal::NoTarget) };
        // 1. Not itself (deviation); same hex, or the front neighbour.
        if unit == target {
            return Err(Refusal::EatsItself);
        }
        let d = board::distance(z.x, z.y, v.x, v.y);
        if d > 1 || (d == 1 && !board::in_front(z.x, z.y, z.facing, v.x, v.y)) {
            return Err(Refusal::NotInReach);
        }
        // 2. The eater heals 2 × the target's hp (cap 105), the target dies, the eater's moves −= 1.
        let zm = self.zombie_mut(unit).expect("zombie");
        zm.hp = (zm.hp + 2 * v.hp).min(data::ZOMBIE_HP_CAP);
        zm.moves -= 1;
        self.hit(target, 10 * v.hp);
        Ok(())
    }

    // ---------------------------------------------------------------- boundary

    /// The host reports that `side`'s clock ran out. As in the original, the effect comes at the next
    /// boundary (step 2): zombies ⇒ t := 1000 (humans win); humans ⇒ every human dies.
    pub fn time_out(&mut self, side: Side) {
        match side {
            Side::Humans => self.humans_timed_out = true,
            Side::Zombies => self.zombies_timed_out = true,
        }
    }

    /// End the current half-turn: the boundary of spec 6, steps 2 to 7 (step 1, the clock, is the
    /// host's). Does nothing once the game is over.
    pub fn end_half_turn(&mut self) {
        if self.result.is_some() {
            return;
        }
        // Step 2: end checks.
        if self.zombies_timed_out {
            self.t = data::TURN_LIMIT;
        }
        if self.humans_timed_out {
            for id in self.humans.clone() {
                if let Some(h) = self.human_mut(id) {
                    h.hp = 0;
                }
                self.check_death(id);
            }
        }
        if self.humans.is_empty() && self.t >= 1 {
            self.result = Some((Side::Zombies, self.t));
        } else if self.t >= data::TURN_LIMIT {
            self.result = Some((Side::Humans, self.t));
        }
        if self.result.is_some() {
            return;
        }
        // Step 3: moves refresh, idle += 0.5, airstrike delays −1.
        for &id in self.humans.iter().chain(&self.zombies).chain(&self.airstrikes) {
            match &mut self.slots[id as usize] {
                Slot::Human(h) => {
                    h.moves = data::HUMAN_MOVES;
                    h.idle += data::IDLE_GAIN;
                }
                Slot::Zombie(z) => {
                    z.moves = data::ZOMBIE_MOVES;
                    z.idle += data::IDLE_GAIN;
                }
                Slot::Airstrike(a) => a.delay -= 1,
                _ => {}
            }
        }
        // Step 4: airstrikes with delay ≤ 0 land, oldest first.
        let landing: Vec<u32> = self.airstrikes().filter(|a| a.delay <= 0).map(|a| a.id).collect();
        for id in landing {
            self.land(id);
        }
        // Step 5: scent.
        self.update_scent();
        // Step 6.
        self.t += 1;
        // Step 7: supply.
        if self.t % 2 == 1 {
            self.airdrops_held = (self.airdrops_held + data::AIRDROP_RATE).min(1.0);
            self.zombies_ready -= self.zombies_ready.floor();
        } else {
            self.zombies_ready += 1.0 + (0.025 * self.t as f64) / 2.0;
        }
    }

    /// Spec 7.9, landing: removed; 200 damage to every hittable object on the hex (crates dropped by
    /// these deaths are not hit); then a crate (hp 100) if the hex is in bounds. The crate's id is
    /// drawn either way, as the original built the crate before checking the bounds.
    fn land(&mut self, id: u32) {
        let Some(a) = self.airstrike(id).copied() else { return };
        Self::unlist(&mut self.airstrikes, id);
        self.slots[id as usize] = Slot::Gone;
        self.hit_hex(a.x, a.y, data::AIRDROP_DAMAGE);
        if board::in_bounds(a.x, a.y) {
            self.add_crate(a.x, a.y, data::CRATE_HP, a.contents);
        } else {
            self.slots.push(Slot::Gone);
        }
    }

    /// Spec 8.7: scent := Σ 1/distance over living humans in front, in human id order.
    fn update_scent(&mut self) {
        let humans: Vec<(i32, i32)> = self.humans().map(|h| (h.x, h.y)).collect();
        for &id in &self.zombies {
            if let Slot::Zombie(z) = &mut self.slots[id as usize] {
                let mut s = 0.0;
                for &(hx, hy) in &humans {
                    if board::in_front(z.x, z.y, z.facing, hx, hy) {
                        s += 1.0 / board::distance(z.x, z.y, hx, hy) as f64;
                    }
                }
                z.scent = s;
            }
        }
    }

    /// Where object `id` stands, if it is a map object.
    pub fn position(&self, id: u32) -> Option<(i32, i32)> {
        if (id as usize) < self.slots.len() { self.pos(id) } else { None }
    }
}

#[derive(Clone, Copy)]
enum Target {
    Object(u32),
    Ground(i32, i32),
}

/// Why the rules refused a command ([`Engine::try_apply`]): the first check it failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// The game is over.
    GameOver,
    /// It is the other side's half-turn.
    NotYourHalfTurn,
    /// A command the other side gives, not this one.
    NotThisSide,
    /// Humans are placed on half-turn 1 only (spec 7.1).
    NotHalfTurnOne,
    /// The hex is off the board.
    OffTheBoard,
    /// Six humans are placed already (spec 7.1).
    AllPlaced,
    /// Not a weapon a human may be placed with (spec 7.1).
    NotASpawnWeapon,
    /// A human or a wall stands on the hex (spec 7.1).
    Occupied,
    /// The unit is not a living human of the side.
    NoSuchHuman,
    /// The unit is not a living zombie of the side.
    NoSuchZombie,
    /// The hex is not next to the unit.
    NotAdjacent,
    /// The unit has no move left this half-turn.
    NoMoves,
    /// A wall, a human or a zombie stands on the hex (spec 7.3).
    Blocked,
    /// A zombie steps only to its front hex (spec 8.5).
    NotFront,
    /// A wall or a human stands on the zombie's front hex (spec 8.5).
    FrontBlocked,
    /// No such object to hit (or give to, or eat).
    NoTarget,
    /// The target is out of the weapon's range (spec 7.5).
    OutOfRange,
    /// Not enough ammo for a shot (spec 7.5).
    NoAmmo,
    /// Zombies may not hit crates (spec 7.5).
    ZombieHitsCrate,
    /// The weapon is not ready: its delay is not below the idle time (spec 7.4).
    NotReady,
    /// No such crate.
    NoSuchCrate,
    /// Farther than one hex (spec 7.7).
    TooFar,
    /// A weapon crate is grabbed only while holding the Chainsaw (spec 7.7).
    NeedsChainsaw,
    /// The amount is not within 1 and the ammo held (spec 7.7).
    BadAmount,
    /// Nothing is thrown while holding the Chainsaw (spec 7.7).
    HoldsChainsaw,
    /// A human or a zombie stands on the hex (spec 7.8).
    UnitThere,
    /// No whole airdrop held (spec 7.9).
    NoAirdrop,
    /// Not contents an airdrop may carry (spec 7.9).
    NotDroppable,
    /// The zombie cap is reached (spec 8.1).
    AtTheCap,
    /// No whole zombie ready (spec 8.2).
    NoneReady,
    /// A facing is 0 to 5 (spec 8.2).
    BadFacing,
    /// Not a spawn zone (7 to 10, spec 4).
    NoSuchZone,
    /// A turn is +1 or −1 (spec 8.3).
    BadTurn,
    /// A zombie may not eat itself (spec 10).
    EatsItself,
    /// The zombie to eat is neither on its hex nor on its front hex (spec 8.6).
    NotInReach,
}

impl Refusal {
    /// Every refusal, in code order ([`Refusal::code`]).
    pub const ALL: [Refusal; 35] = [
        Refusal::GameOver,
        Refusal::NotYourHalfTurn,
        Refusal::NotThisSide,
        Refusal::NotHalfTurnOne,
        Refusal::OffTheBoard,
        Refusal::AllPlaced,
        Refusal::NotASpawnWeapon,
        Refusal::Occupied,
        Refusal::NoSuchHuman,
        Refusal::NoSuchZombie,
        Refusal::NotAdjacent,
        Refusal::NoMoves,
        Refusal::Blocked,
        Refusal::NotFront,
        Refusal::FrontBlocked,
        Refusal::NoTarget,
        Refusal::OutOfRange,
        Refusal::NoAmmo,
        Refusal::ZombieHitsCrate,
        Refusal::NotReady,
        Refusal::NoSuchCrate,
        Refusal::TooFar,
        Refusal::NeedsChainsaw,
        Refusal::BadAmount,
        Refusal::HoldsChainsaw,
        Refusal::UnitThere,
        Refusal::NoAirdrop,
        Refusal::NotDroppable,
        Refusal::AtTheCap,
        Refusal::NoneReady,
        Refusal::BadFacing,
        Refusal::NoSuchZone,
        Refusal::BadTurn,
        Refusal::EatsItself,
        Refusal::NotInReach,
    ];

    /// Its number (its index in [`Refusal::ALL`]), as replays store it.
    pub fn code(self) -> u8 {
        Refusal::ALL.iter().position(|&r| r == self).expect("every refusal is listed") as u8
    }

    /// The refusal of a number.
    pub fn from_code(code: u8) -> Option<Refusal> {
        Refusal::ALL.get(usize::from(code)).copied()
    }

    /// Why, in a few words (NUL-terminated, for the C ABI).
    pub fn reason(self) -> &'static std::ffi::CStr {
        match self {
            Refusal::GameOver => c"the game is over",
            Refusal::NotYourHalfTurn => c"not this side's half-turn",
            Refusal::NotThisSide => c"a command of the other side",
            Refusal::NotHalfTurnOne => c"humans are placed on half-turn 1 only",
            Refusal::OffTheBoard => c"off the board",
            Refusal::AllPlaced => c"six humans are placed already",
            Refusal::NotASpawnWeapon => c"not a weapon a human may be placed with",
            Refusal::Occupied => c"a human or a wall on the hex",
            Refusal::NoSuchHuman => c"no such human of this side",
            Refusal::NoSuchZombie => c"no such zombie of this side",
            Refusal::NotAdjacent => c"not an adjacent hex",
            Refusal::NoMoves => c"no move left",
            Refusal::Blocked => c"a wall, a human or a zombie on the hex",
            Refusal::NotFront => c"not the zombie's front hex",
            Refusal::FrontBlocked => c"a wall or a human in front",
            Refusal::NoTarget => c"no such target",
            Refusal::OutOfRange => c"out of range",
            Refusal::NoAmmo => c"not enough ammo",
            Refusal::ZombieHitsCrate => c"zombies may not hit crates",
            Refusal::NotReady => c"the weapon is not ready (its delay is not below the idle time)",
            Refusal::NoSuchCrate => c"no such crate",
            Refusal::TooFar => c"farther than one hex",
            Refusal::NeedsChainsaw => c"a weapon crate is grabbed only while holding the Chainsaw",
            Refusal::BadAmount => c"the amount is not within 1 and the ammo held",
            Refusal::HoldsChainsaw => c"nothing is thrown while holding the Chainsaw",
            Refusal::UnitThere => c"a human or a zombie on the hex",
            Refusal::NoAirdrop => c"no whole airdrop held",
            Refusal::NotDroppable => c"not contents an airdrop may carry",
            Refusal::AtTheCap => c"the zombie cap is reached",
            Refusal::NoneReady => c"no whole zombie ready",
            Refusal::BadFacing => c"a facing is 0 to 5",
            Refusal::NoSuchZone => c"not a spawn zone (7 to 10)",
            Refusal::BadTurn => c"a turn is +1 or -1",
            Refusal::EatsItself => c"a zombie may not eat itself",
            Refusal::NotInReach => c"not on its hex nor on its front hex",
        }
    }

    /// Why, in a few words.
    pub fn as_str(self) -> &'static str {
        self.reason().to_str().expect("reasons are ASCII")
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
